"""The CLI's words as a newcomer reads them (issue 21, items 11 and 16): verdicts in colour on a
terminal only, a summary line after many files, plurals that agree, and an audit of nothing that
fails a CI job unless it is allowed. Real subprocesses; a pseudo-terminal for the colours."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bundles"
KEY = (FIXTURES / "server-key.txt").read_text().strip()
GREEN_OK = "\x1b[32m\x1b[1mOK\x1b[0m: "
RED_FAIL = "\x1b[31m\x1b[1mFAIL\x1b[0m: "


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(extra)
    return env


def _on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """What the command prints when its standard output is a terminal (a pty)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "fairdeal.cli", *args], stdout=follower,
                               stderr=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def _piped(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120)


FILES = [str(FIXTURES / "honest" / "arcomage-untimed.json"),
         str(FIXTURES / "tampered" / "swapped-card.json")]


def test_verdicts_are_coloured_on_a_terminal() -> None:
    out = _on_a_terminal(["verify", "--trusted-key", KEY, *FILES], _env())
    assert GREEN_OK in out and RED_FAIL in out
    assert "[\x1b[31m\x1b[1mFAIL\x1b[0m] moves" in out  # the failing check's mark too


def test_no_colour_when_piped_or_no_color_is_set() -> None:
    piped = _piped(["verify", "--trusted-key", KEY, *FILES], _env())
    assert "\x1b[" not in piped.stdout and "OK: " in piped.stdout
    plain = _on_a_terminal(["verify", "--trusted-key", KEY, *FILES], _env(NO_COLOR="1"))
    assert "\x1b[" not in plain and "FAIL: " in plain
    # FORCE_COLOR colours a pipe (a CI log that shows colours); NO_COLOR still wins
    forced = _piped(["verify", "--trusted-key", KEY, *FILES], _env(FORCE_COLOR="1"))
    assert GREEN_OK in forced.stdout
    both = _piped(["verify", *FILES], _env(FORCE_COLOR="1", NO_COLOR="1"))
    assert "\x1b[" not in both.stdout


def test_many_files_end_with_a_summary_line_and_one_file_does_not() -> None:
    tampered = sorted(str(p) for p in (FIXTURES / "tampered").glob("*.json"))
    honest = sorted(str(p) for p in (FIXTURES / "honest").glob("*.json"))[:3]
    result = _piped(["verify", "--trusted-key", KEY, *honest, *tampered], _env())
    assert result.returncode == 1
    total = len(tampered) + 3
    assert result.stdout.splitlines()[-1] == f"{total} files: 3 OK, {len(tampered)} FAIL"
    one = _piped(["verify", "--trusted-key", KEY, honest[0]], _env())
    assert one.returncode == 0 and len(one.stdout.splitlines()) == 2  # OK line, deal line
    assert "files:" not in one.stdout
    json_out = _piped(["verify", "--json", *honest], _env())
    assert "files:" not in json_out.stdout  # --json stays one JSON document


def test_one_is_singular(tmp_path: Path) -> None:
    result = _piped(["audit", str(FIXTURES / "tampered" / "wrong-seat.json")], _env())
    assert "1 bundle failed verification and was left out" in result.stdout
    assert "1 bundles" not in result.stdout and "1 matches" not in result.stdout


def test_an_audit_of_nothing_fails_unless_allowed(tmp_path: Path) -> None:
    env = _env(FAIRDEAL_DATA_DIR=str(tmp_path / "data"))
    folder = str(FIXTURES / "honest")
    nobody = _piped(["audit", folder, "--player", "nobody"], env)
    assert nobody.returncode == 1
    assert "nothing to audit: no bundle passed the filters" in nobody.stderr
    assert "--allow-empty" in nobody.stderr
    allowed = _piped(["audit", folder, "--player", "nobody", "--allow-empty"], env)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "nothing to audit" in allowed.stderr
    # the ledger as the source, empty: the same
    assert _piped(["audit", "--player", "nobody"], env).returncode == 1
    assert _piped(["audit", "--player", "nobody", "--allow-empty"], env).returncode == 0
