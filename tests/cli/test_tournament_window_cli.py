"""The dispute window of an ``--auto`` tournament from the command line, against a real
`fairdeal serve` process and its real clock (docs/tournaments.md §8): `play --tournament` says,
once every round is played, that the tournament waits for disputes until a time (UTC, as
other times are shown), `tournament status` says the same while the window is open, and the
server finishes the tournament by itself when it closes — which `play` waits for."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.cli.tournament_output import print_status, window_words
from fairdeal.verifier.protocol import utc_time

from ..processes import FAIRDEAL, ServeProcess

WAITING = re.compile(r"^waiting for disputes until (\S+Z): every round is played; the server "
                     r"finishes the tournament then$", re.M)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.output, result.exception)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _line_of(process: subprocess.Popen[str], pattern: re.Pattern[str],
             seen: list[str], timeout: float) -> re.Match[str]:
    """Read ``process``'s output until a line matches ``pattern`` (kept in ``seen``)."""
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = pattern.search(line.rstrip("\n"))
        if found:
            return found
    raise AssertionError("".join(seen))


def test_play_and_status_say_until_when_the_last_round_may_be_disputed(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    server = ServeProcess(tmp_path / "data")
    server.start()
    try:
        code, out = _run("keys", "new", str(tmp_path / "arbiter.pem"))
        assert code == 0, out
        code, out = _run("tournament", "create", "window cup", "--game", "toybattle",
                         "--system", "round-robin", "--arbiter-key",
                         str(tmp_path / "arbiter.pem"), "--auto", "--seating", "10",
                         "--token-file", str(tmp_path / "org.token"), "-q",
                         "--server", server.url)
        assert code == 0, out
        tid = out.strip()
        play = subprocess.Popen(
            [FAIRDEAL, "play", "--tournament", tid, "-n", "2", "--seed", "3",
             "--organiser-token-file", str(tmp_path / "org.token"), "--server", server.url],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        seen: list[str] = []
        try:
            waiting = _line_of(play, WAITING, seen, 120)
            # while the window is open (10 s), the status says the same, to the millisecond
            code, shown = _run("tournament", "status", tid, "--server", server.url)
            assert code == 0, shown
            assert WAITING.search(shown) and WAITING.search(shown).group(1) == waiting.group(1)
            code, data = _run("tournament", "status", tid, "--json", "--server", server.url)
            answer = json.loads(data)
            assert answer["status"] == "running"
            assert utc_time(answer["disputes_until"]) == waiting.group(1)
            rest, _ = play.communicate(timeout=120)
        finally:
            if play.poll() is None:
                play.kill()
                play.wait()
        out = "".join(seen) + rest
        assert play.returncode == 0, out
        assert re.search(rf"^tournament {tid}: finished$", out, re.M), out
        code, shown = _run("tournament", "status", tid, "--server", server.url)
        assert code == 0 and f"{tid}  'window cup'  finished" in shown
        assert "waiting for" not in shown
    finally:
        server.stop()


def test_status_names_the_open_dispute_an_auto_finish_waits_for(capsys) -> None:
    shown = {"id": "t-1", "name": "cup", "status": "running", "header": {},
             "players": [], "rounds": [], "standings": [], "disputes_until": 1767225635558,
             "disputes": [{"dispute": 1, "player": "p", "match_id": "m", "step": 2,
                           "ruling": {"decision": {"kind": "result-stands"}}},
                          {"dispute": 2, "player": "p", "match_id": "m", "step": 3,
                           "ruling": None}]}
    print_status(shown, "http://127.0.0.1:5000")
    out = capsys.readouterr().out
    assert window_words(1767225635558, [2]) in out
    assert ("waiting for the arbiter's ruling on dispute 2: the server finishes the "
            "tournament once it is ruled (disputes were open until "
            "2026-01-01T00:00:35.558Z)") in out
    print_status({**shown, "disputes_until": None}, "http://127.0.0.1:5000")
    assert "waiting for" not in capsys.readouterr().out
