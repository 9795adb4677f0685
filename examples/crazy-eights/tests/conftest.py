"""What the Crazy Eights package's tests share: the installed ``fairdeal`` command, and a
folder of matches it simulated.

These tests use fairdeal only through its public faces — the ``fairdeal`` console script (found
through its entry point, run in-process with click's runner, or as a process where a server must
run), the HTTP API and pages, ``fairdeal.verifier``'s API and the plug-in interface — so that
fairdeal's internal moves do not break them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

#: the installed `fairdeal` command of this environment, as a program
FAIRDEAL = str(Path(sys.executable).parent / "fairdeal")
#: this package is installed where its entry point is (``make install`` does it)
INSTALLED = any(point.name == "crazy-eights" for point in entry_points(group="fairdeal.games"))


#: without the package installed, its tests are not collected (they import it), and the
#: report's header says so and how to install it
collect_ignore_glob = [] if INSTALLED else ["test_*.py"]


def pytest_report_header() -> str | None:
    """One line in the header when this package's tests were left out, saying why."""
    if INSTALLED:
        return None
    return ("examples/crazy-eights/tests: left out, fairdeal-crazy-eights is not installed "
            "(pip install -e examples/crazy-eights; make install does)")


def _command() -> Any:
    (script,) = [point for point in entry_points(group="console_scripts")
                 if point.name == "fairdeal"]
    return script.load()


def _run(*args: str, code: int | None = 0) -> Result:
    result = CliRunner().invoke(_command(), list(args))
    if code is not None:
        assert result.exit_code == code, (args, result.output[-3000:], result.exception)
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="session")
def fairdeal() -> Callable[..., Result]:
    """``fairdeal(*args, code=0)``: the command's result (``stdout``, ``stderr``), its exit code
    checked."""
    return _run


@pytest.fixture(scope="session")
def matches(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Eight simulated matches: random against greedy (the default stock rule), and random
    against random with ``--stock pass``, reproducibly."""
    out = tmp_path_factory.mktemp("matches")
    _run("simulate", "crazy-eights", "-n", "5", "--seed", "c8", "--out", str(out))
    _run("simulate", "crazy-eights", "--bots", "random,random", "--stock", "pass", "-n", "3",
         "--seed", "c8-pass", "--out", str(out))
    return sorted(out.glob("*.json"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``fairdeal serve`` on a fresh data folder and a free port (the environment's database
    URL and data folder never leak into it): its URL, once it answers."""
    data = tmp_path_factory.mktemp("serve")
    port = _free_port()
    env = {name: value for name, value in os.environ.items()
           if name not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}
    with (data / "serve.log").open("wb") as log:
        process = subprocess.Popen([FAIRDEAL, "--data-dir", str(data), "serve", "--quiet",
                                    "--port", str(port)], stdout=log, stderr=log, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/api/v1/matches", timeout=5).read()
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        else:
            raise AssertionError("fairdeal serve did not start: "
                                 + (data / "serve.log").read_text()[-2000:])
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
