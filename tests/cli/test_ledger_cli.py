"""The ledger's commands as a newcomer runs them, against a real `fairdeal serve` process on a
real SQLite file: `play` (its lines, names and progress bar), `matches`, `import`, and the quiet
access log."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairdeal.client import ApiClient

from ..processes import free_port

FAIRDEAL = [sys.executable, "-m", "fairdeal.cli"]
HONEST = Path(__file__).parents[2] / "fixtures" / "bundles" / "honest"


def _env() -> dict[str, str]:
    return {name: value for name, value in os.environ.items()
            if name not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path]]:
    """(base URL, data folder, server log) of a `fairdeal serve --quiet` process."""
    data = tmp_path_factory.mktemp("data")
    port = free_port()
    log_path = data / "serve.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen([*FAIRDEAL, "--data-dir", str(data), "serve", "--quiet",
                                    "--port", str(port)], stdout=log, stderr=log, env=_env())
    client = ApiClient(f"http://127.0.0.1:{port}", timeout=2)
    try:
        if not client.wait_until_up(20):
            raise AssertionError(log_path.read_text())
        yield f"http://127.0.0.1:{port}", data, log_path
    finally:
        process.terminate()
        process.wait(timeout=10)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FAIRDEAL, *args], capture_output=True, text=True, timeout=300,
                          env=_env())


def test_play_says_when_each_match_starts_and_ends_with_names_and_links(
        served: tuple[str, Path, Path]) -> None:
    url, data, log = served
    result = run("play", "--server", url, "--game", "toybattle", "-n", "2", "--seed", "3")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    started = [line for line in lines if line.startswith("started:")]
    ended = [line for line in lines if line.startswith("ended:")]
    assert len(started) == len(ended) == 2
    for line in started:
        assert "random bot 1 vs random bot 2" in line
        assert re.search(rf"{re.escape(url)}/m/[0-9a-f]{{16}}$", line), line
    for line in ended:
        # the winner by seat name and bot name, as `verify` says it; never a bare index
        assert re.search(r"(seat (blue|red) \(random bot [12]\) won|draw) \(", line), line
        assert "winner 0" not in line and "winner 1" not in line
    # not a terminal: no progress bar
    assert "matches" not in result.stderr
    # --quiet: no line per request in the server's log
    assert "GET /api/v1" not in log.read_text() and "POST /api/v1" not in log.read_text()


def test_play_verbose_prints_one_line_per_move(served: tuple[str, Path, Path]) -> None:
    url, _, _ = served
    result = run("play", "--server", url, "--game", "arcomage", "-n", "1", "--seed", "4", "-v")
    assert result.returncode == 0, result.stderr
    ended = next(line for line in result.stdout.splitlines() if line.startswith("ended:"))
    moves = int(re.search(r"(\d+) moves", ended).group(1))
    move_lines = [line for line in result.stdout.splitlines()
                  if re.match(r"  [0-9a-f]{16} #\d+ seat [AB]: ", line)]
    assert len(move_lines) == moves > 0
    # the server's public captions, not raw JSON
    assert not any(line.rstrip().endswith("}") for line in move_lines)


def test_play_shows_a_progress_bar_on_a_terminal(served: tuple[str, Path, Path]) -> None:
    url, _, _ = served
    leader, follower = pty.openpty()
    process = subprocess.Popen([*FAIRDEAL, "play", "--server", url, "--game", "toybattle",
                                "-n", "2", "--seed", "5"], stdout=subprocess.PIPE,
                               stderr=follower, env=_env())
    os.close(follower)
    stdout, _ = process.communicate(timeout=300)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    terminal = b"".join(chunks).decode()
    assert process.returncode == 0
    assert "matches" in terminal and "2/2" in terminal
    assert stdout.decode().count("ended:") == 2


def test_matches_names_the_winner_as_verify_does(served: tuple[str, Path, Path]) -> None:
    url, data, _ = served
    assert run("play", "--server", url, "--game", "arcomage", "-n", "1").returncode == 0
    listed = run("--data-dir", str(data), "matches")
    assert listed.returncode == 0, listed.stderr
    outcomes = [line for line in listed.stdout.splitlines() if " won (" in line]
    assert outcomes
    assert not any(re.search(r"seat \d won", line) for line in listed.stdout.splitlines())
    assert all(re.search(r"seat (A|B|blue|red) \(random bot [12]\) won", line)
               for line in outcomes)


def test_import_twice_says_already_stored(tmp_path: Path) -> None:
    bundle = str(HONEST / "toybattle-castle-field.json")
    first = run("--data-dir", str(tmp_path), "import", bundle)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(f"imported: {bundle} as match ")
    again = run("--data-dir", str(tmp_path), "import", bundle)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"already stored: {bundle} is match ")
    assert "imported" not in again.stdout
