"""`fairdeal verify t.zip` as an organiser runs it, a real process: a tournament export is
recognised and verified whole, with the server's, the arbiter's and players' keys pinned; a
tampered one fails naming its check; a bad zip, a bare tournament log or a bad key is one clear
line, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parents[2] / "fixtures" / "tournaments"
HONEST = HERE / "honest" / "round-robin-4-dispute.zip"
TAMPERED = HERE / "tampered" / "typed-result.zip"
KEY = (HERE.parent / "bundles" / "server-key.txt").read_text().strip()
MATCH = HERE.parent / "bundles" / "honest" / "arcomage-archmage-citadel-normal.json"


def fairdeal(*args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                            text=True, timeout=120)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def _keys() -> tuple[str, list[str]]:
    import zipfile

    with zipfile.ZipFile(HONEST) as archive:
        events = json.loads(archive.read("tournament.json"))["events"]
    return events[0]["arbiter_key"], [e["public_key"] for e in events if e["type"] == "register"]


def test_an_honest_export_verifies_with_every_key_pinned() -> None:
    arbiter, players = _keys()
    pins = [arg for key in players for arg in ("--player-key", key)]
    ok = fairdeal("verify", str(HONEST), "--trusted-key", KEY, "--arbiter-key", arbiter, *pins,
                  "-v")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith(f"OK: {HONEST}  (tournament rr4d, round-robin of arcomage, "
                                "4 players, 6 matches verified")
    for check in ("pairings", "matches", "results", "disputes", "rulings", "standings"):
        assert f"[ok  ] {check}:" in ok.stdout
    assert "[skip] log:" in ok.stdout and "   1. " in ok.stdout


def test_a_tampered_export_fails_naming_its_check_and_both_kinds_mix() -> None:
    failed = fairdeal("verify", str(TAMPERED), str(MATCH))
    assert failed.returncode == 1
    lines = failed.stdout.splitlines()
    assert lines[0] == f"FAIL: {TAMPERED}"
    assert lines[1].startswith("  results check failed at event ") and "typed in" in lines[1]
    assert any(line.startswith(f"OK: {MATCH}") for line in lines)
    assert lines[-1] == "2 files: 1 OK, 1 FAIL"


def test_json_reports_a_tournament_as_such() -> None:
    out = fairdeal("verify", "--json", str(TAMPERED))
    report = json.loads(out.stdout)
    assert out.returncode == 1 and report["kind"] == "tournament" and not report["ok"]
    assert report["failure"]["check"] == "results" and report["failure"]["type"] == "result"


def test_a_pinned_arbiter_the_tournament_does_not_name_fails() -> None:
    other = "ed25519:" + "11" * 32
    out = fairdeal("verify", str(HONEST), "--arbiter-key", other)
    assert out.returncode == 1 and "another arbiter than the pinned one" in out.stdout


def test_bad_input_is_one_clear_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 this is not really a zip")
    out = fairdeal("verify", str(broken))
    assert out.returncode == 1 and "format check failed: not a zip file" in out.stdout
    bare = tmp_path / "tournament.json"
    import zipfile

    with zipfile.ZipFile(HONEST) as archive:
        bare.write_bytes(archive.read("tournament.json"))
    out = fairdeal("verify", str(bare))
    assert out.returncode == 2 and "a tournament's log alone: verify its export" in out.stderr
    out = fairdeal("verify", str(HONEST), "--player-key", "ed25519:nothex")
    assert out.returncode == 2 and "--player-key" in out.stderr
