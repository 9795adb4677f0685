"""The verifier in the visitor's browser checks Crazy Eights: ``fairdeal serve``'s browser
archive carries the plug-in package and its entry point, so Pyodide, in Debian's chromium,
replays a Crazy Eights match under its rules — and reports exactly what ``fairdeal verify
--json`` reports, an honest match and a cheat alike."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier.forge import reseal
from fairdeal.verifier.keys import SigningKey

CHROMIUM = os.environ.get("FAIRDEAL_CHROMIUM", "/usr/bin/chromium")
FAIRDEAL = str(Path(sys.executable).parent / "fairdeal")
GOLDEN = Path(__file__).resolve().parent / "golden"
RUNS = json.loads((GOLDEN / "expected.json").read_text())["runs"]
#: Pyodide's first start on a loaded two-core machine takes a while
SLOW = 180_000

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                 reason=f"no Chromium at {CHROMIUM} (CI installs Debian's "
                                        "chromium; set FAIRDEAL_CHROMIUM to another path)")]


def _cheat(tmp_path: Path) -> Path:
    """A golden match whose server seed was swapped and re-committed: another deck order, so
    a move the log holds is no longer legal."""
    forger = SigningKey.from_seed(hashlib.sha256(b"crazy eights browser forger").digest())
    bundle = json.loads((GOLDEN / RUNS[0]["file"]).read_text())
    bundle["events"][0]["server_key_id"] = forger.key_id
    seed = bundle["events"][-1]["server_seed"]
    bundle["events"][-1]["server_seed"] = ("1" if seed[0] == "0" else "0") + seed[1:]
    path = tmp_path / "cheat.json"
    path.write_text(json.dumps(reseal(bundle, forger, recommit=True)))
    return path


def _cli(paths: list[Path]) -> dict[str, dict[str, Any]]:
    done = subprocess.run([FAIRDEAL, "verify", "--json", *map(str, paths)],
                          capture_output=True, text=True, timeout=300)
    printed = json.loads(done.stdout)
    return {Path(report.pop("file")).name: report
            for report in (printed if isinstance(printed, list) else [printed])}


def test_the_browser_verifier_checks_crazy_eights_as_the_cli_does(server: str,
                                                                   tmp_path: Path) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api")
    paths = [*(GOLDEN / run["file"] for run in RUNS), _cheat(tmp_path)]
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            tab = browser.new_page()
            errors: list[str] = []
            tab.on("pageerror", lambda error: errors.append(str(error)))
            tab.goto(f"{server}/verify")
            tab.wait_for_selector("#verify-page[data-state=ready]", timeout=SLOW)
            tab.set_input_files("#verify-files", [str(path) for path in paths])
            tab.wait_for_function("n => document.getElementById('verify-page').dataset.done "
                                  "=== String(n)", arg=len(paths), timeout=SLOW)
            results = tab.evaluate("window.fairdealVerifyResults")
        finally:
            browser.close()
    assert not errors, errors
    reports = {result["name"]: result["report"] for result in results}
    cli = _cli(paths)
    assert sorted(reports) == sorted(cli) == sorted(path.name for path in paths)
    for name, report in reports.items():
        assert report.pop("browser")["signatures"] == "pure-python"
        assert report == cli[name], name
    assert [reports[path.name]["ok"] for path in paths] == [True, True, True, False]
    assert reports["cheat.json"]["failure"]["check"] == "moves"
