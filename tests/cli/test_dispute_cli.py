"""``fairdeal dispute`` on the step where the cheat is, as a newcomer runs it (a real
subprocess), and the same step on the web's dispute page (issue 21, item 2)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fairdeal.web.app import create_app

TAMPERED = Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / "tampered"

#: fixture → the step the replay stops at, the check, and words of its reason
CHEATS = [("swapped-card", 3, "moves", "not in seat B's hand"),
          ("wrong-seat", 6, "moves", "it was seat A (greedy-bot)'s turn"),
          ("scroll-not-in-deck", 3, "moves", "Fire Drake is not in seat B's deck"),
          ("forged-timeout", 7, "timers", "a forged timeout")]


def _dispute(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", "dispute", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("name", "step", "check", "words"), CHEATS)
def test_the_cli_reports_the_step_where_the_cheat_is(name: str, step: int, check: str,
                                                    words: str) -> None:
    path = str(TAMPERED / f"{name}.json")
    result = _dispute(path, "--step", str(step), "--json")
    assert result.returncode == 1, result.stderr  # the match does not verify
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert report["step"] == step and report["failing_step"] == step
    assert report["divergence"]["check"] == check and words in report["rule"]
    assert report["event"] == report["divergence"]["recorded"]
    page = _dispute(path, "--step", str(step))
    assert page.returncode == 1
    assert f"Step {step} of {step}" in page.stdout and "this step" in page.stdout
    assert words.replace("'", "&#x27;") in page.stdout
    beyond = _dispute(path, "--step", str(step + 1))
    assert beyond.returncode == 2 and f"steps 0 to {step}" in beyond.stderr


@pytest.fixture()
def client(tmp_path: Path) -> Any:
    app = create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                      "TESTING": True})
    return app.test_client()


@pytest.mark.parametrize(("name", "step", "check", "words"), CHEATS)
def test_the_web_dispute_page_shows_the_same_step(client: Any, name: str, step: int,
                                                  check: str, words: str) -> None:
    data = (TAMPERED / f"{name}.json").read_bytes()
    answer = client.post("/upload", data={"pasted": data.decode()})
    assert answer.status_code == 303
    key = re.search(r"/u/([^/?]+)", answer.headers["Location"]).group(1)
    # the match page's warning links to that step, one past the stepper's last
    match_page = client.get(f"/u/{key}").get_data(as_text=True)
    link = re.search(r'id="failing-step-link" href="([^"]+)"', match_page)
    assert link is not None and link.group(1) == f"/u/{key}/dispute?step={step}"
    page = client.get(f"/u/{key}/dispute?step={step}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert f"Step {step} of {step}" in text
    assert f"({check} check), this step" in text
    assert f"This step fails the {check} check" in text
    assert words.replace("'", "&#x27;") in text
    assert client.get(f"/u/{key}/dispute?step={step + 1}").status_code == 404
