"""Without npm, or without its registry, `make test` still runs the tests, and the browser
verifier's tests are skipped saying why — unless FAIRDEAL_REQUIRE_BROWSER=1 (what .ci/run sets,
having installed npm), where that is a failure (issue 21, item 4)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from fairdeal.web.viewer.runtime import FetchError, RuntimeUnavailable, fetch_runtime

ROOT = Path(__file__).resolve().parents[3]
BROWSER_TEST = ("tests/web/viewer/test_browser_verify.py::"
                "test_every_tampered_fixture_fails_in_the_browser_where_the_cli_says")
NOT_NEEDED = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:xdist",
              "-p", "no:xdist.looponfail")


def _offline_npm(folder: Path) -> Path:
    """An `npm` whose registry does not answer."""
    folder.mkdir(exist_ok=True)
    script = folder / "npm"
    script.write_text("#!/bin/sh\necho 'npm ERR! code ENOTFOUND registry.npmjs.org' >&2\n"
                      "exit 1\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


def test_no_npm_and_no_registry_are_the_machines_not_a_bad_tarball(tmp_path: Path) -> None:
    npm = _offline_npm(tmp_path / "bin") / "npm"
    with pytest.raises(RuntimeUnavailable, match="is the npm registry reachable"):
        fetch_runtime(tmp_path / "runtime", str(npm))
    assert issubclass(RuntimeUnavailable, FetchError)


def _browser_test(tmp_path: Path, path: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "FAIRDEAL_REQUIRE_BROWSER"}
    env.update(PATH=path, FAIRDEAL_PYODIDE_DIR=str(tmp_path / "no-runtime"), **extra)
    # one test, in one process: without the plugins it does not use (Hypothesis, xdist; their
    # entry points' names), each run starts in half the CPU time
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", *NOT_NEEDED,
                           BROWSER_TEST], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_browser_tests_skip_saying_why_without_npm_or_its_registry(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = _browser_test(tmp_path, str(empty))
    assert missing.returncode == 0, missing.stdout[-2000:]
    assert "skipped" in missing.stdout and "passed" not in missing.stdout
    assert "npm is not installed" in missing.stdout and "no-runtime" in missing.stdout
    offline = _browser_test(tmp_path, str(_offline_npm(tmp_path / "bin")))
    assert "skipped" in offline.stdout and "is the npm registry reachable" in offline.stdout
    # where CI has installed npm, a runtime it cannot fetch is a failure, not a skip
    required = _browser_test(tmp_path, str(empty), FAIRDEAL_REQUIRE_BROWSER="1")
    assert required.returncode != 0 and "1 error" in required.stdout
    assert " skipped" not in required.stdout.splitlines()[-1]
    assert "npm is not installed" in required.stdout


def test_make_test_does_not_stop_before_the_tests_without_npm(tmp_path: Path) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "FAIRDEAL_PYODIDE_DIR": str(tmp_path / "none"),
           "BIN": str(Path(sys.executable).parent)}
    # the target `make test` runs before pytest, on a machine with no npm; the set-up it depends
    # on is taken as done by a stamp newer than every source (the venv is this Python's)
    stamp = tmp_path / "installed"
    stamp.touch()
    done = subprocess.run([make, "-s", "browser-runtime", f"BIN={Path(sys.executable).parent}",
                           f"STAMP={stamp}"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "npm is not installed" in done.stderr
    assert "the browser verifier's tests will be skipped" in done.stdout
    recipe = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert recipe.splitlines()[0].split() == ["$(STAMP)", "browser-runtime"]
    assert "FAIRDEAL_REQUIRE_BROWSER=1" in (ROOT / ".ci" / "run").read_text()
