"""`fairdeal verify`, `simulate`, `replay` and `rules` as a user runs them: a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2] / "fixtures" / "bundles"
HONEST = ROOT / "honest" / "arcomage-archmage-citadel-normal.json"
TAMPERED = ROOT / "tampered" / "swapped-card.json"
KEY = (ROOT / "server-key.txt").read_text().strip()
SWAPPED_AT = json.loads((ROOT.parent / "tampered-expected.json").read_text())[
    "swapped-card"]["seq"]


def fairdeal(
    *args: str, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fairdeal.cli", *args], capture_output=True, text=True,
        input=stdin.decode() if stdin is not None else None, cwd=cwd, timeout=120,
    )


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr


def test_verify_ok_and_fail_with_exit_codes() -> None:
    ok = fairdeal("verify", str(HONEST), "--trusted-key", KEY)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"OK: {HONEST}")
    both = fairdeal("verify", str(HONEST), str(TAMPERED))
    assert both.returncode == 1
    assert f"FAIL: {TAMPERED}" in both.stdout
    assert f"moves check failed at event {SWAPPED_AT}" in both.stdout
    assert "not in seat B's hand" in both.stdout


def test_unpinned_key_is_said() -> None:
    result = fairdeal("verify", str(HONEST))
    assert result.returncode == 0
    assert "server key not pinned" in result.stdout


def test_verify_json_report() -> None:
    result = fairdeal("verify", "--json", str(TAMPERED))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert report["failure"] == {"check": "moves", "seq": SWAPPED_AT,
                                 "reason": report["failure"]["reason"]}
    assert [c["name"] for c in report["checks"]][:3] == ["format", "chain", "signature"]


def test_verbose_lists_every_check() -> None:
    result = fairdeal("verify", "-v", str(HONEST))
    for name in ("format", "chain", "signature", "rules", "commitment", "seeds", "timing",
                 "deal", "moves", "seat-signatures", "timers", "result", "receipts"):
        assert f"] {name}:" in result.stdout
    assert "[skip] receipts:" in result.stdout
    assert "  deal: " in result.stdout


@pytest.mark.parametrize("content", [b"", b"not json", b"[1,2", b"{}", b'{"format": 3}',
                                     b"\xff\xfe\x00", b"[" * 100_000])
def test_malformed_input_is_a_failure_not_a_crash(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = fairdeal("verify", str(path))
    assert result.returncode == 1
    assert result.stdout.startswith(f"FAIL: {path}")
    assert "format check failed" in result.stdout
    assert_no_traceback(result)


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    missing = fairdeal("verify", str(tmp_path / "nope.json"))
    assert missing.returncode == 2
    assert "does not exist" in missing.stderr
    folder = fairdeal("verify", str(tmp_path))
    assert folder.returncode == 2
    bad_key = fairdeal("verify", "--trusted-key", "ed25519:zz", str(HONEST))
    assert bad_key.returncode == 2
    assert "--trusted-key" in bad_key.stderr
    for result in (missing, folder, bad_key):
        assert_no_traceback(result)


def test_verify_reads_stdin() -> None:
    result = fairdeal("verify", "-", stdin=HONEST.read_bytes())
    assert result.returncode == 0
    assert result.stdout.startswith("OK: -")


def test_simulate_is_reproducible_with_a_seed(tmp_path: Path) -> None:
    args = ["simulate", "arcomage", "--battlefield", "Mirror Labyrinth", "--deck", "infinite",
            "-n", "2", "--seed", "42"]
    first = fairdeal(*args, "--out", str(tmp_path / "a"))
    second = fairdeal(*args, "--out", str(tmp_path / "b"))
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    files_a = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert len(files_a) == 2
    for name in files_a:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    verify = fairdeal("verify", *[str(p) for p in (tmp_path / "a").iterdir()])
    assert verify.returncode == 0, verify.stdout
    bundle = json.loads((tmp_path / "a" / files_a[0]).read_text())
    assert bundle["events"][0]["params"] == {"battlefield": "mirror-labyrinth",
                                             "deck": "infinite"}


def test_simulate_without_seed_uses_the_data_dir_key(tmp_path: Path) -> None:
    out = fairdeal("--data-dir", str(tmp_path / "data"), "simulate", "toybattle", "--board",
                   "City of Clouds", "--out", str(tmp_path / "out"))
    assert out.returncode == 0, out.stderr
    key = fairdeal("--data-dir", str(tmp_path / "data"), "keys", "show")
    assert key.returncode == 0, key.stderr
    files = [str(p) for p in (tmp_path / "out").iterdir()]
    pinned = fairdeal("verify", "--trusted-key", key.stdout.strip().splitlines()[-1], *files)
    assert pinned.returncode == 0, pinned.stdout
    assert (tmp_path / "data" / "server-key.pem").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("args, message", [
    (["simulate", "arcomage", "--battlefield", "Atlantis", "--out", "x"], "battlefield"),
    (["simulate", "arcomage", "--bots", "random", "--out", "x"], "--bots"),
    (["simulate", "arcomage", "--board", "castle-field", "--out", "x"], "--board"),
    (["simulate", "chess", "--out", "x"], "chess"),
    (["simulate", "arcomage", "-n", "0", "--out", "x"], "-n"),
])
def test_simulate_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = fairdeal(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert_no_traceback(result)


def test_replay_json_states() -> None:
    result = fairdeal("replay", str(HONEST), "--json")
    assert result.returncode == 0, result.stderr
    states = [json.loads(line) for line in result.stdout.splitlines()]
    assert [s["step"] for s in states] == list(range(len(states)))
    first = states[0]
    for seat in first["players"]:
        for key in ("tower", "wall", "mines", "monasteries", "barracks", "ore", "mana",
                    "troops", "hand"):
            assert key in seat
        assert len(seat["hand"]) == 6
    assert first["players"][0]["tower"] == 20 and first["players"][0]["wall"] == 5
    one = fairdeal("replay", str(HONEST), "--step", "3", "--json")
    assert json.loads(one.stdout) == states[3]
    beyond = fairdeal("replay", str(HONEST), "--step", "9999")
    assert beyond.returncode == 2
    assert "steps 0 to" in beyond.stderr


def test_replay_of_a_tampered_bundle_warns() -> None:
    result = fairdeal("replay", str(TAMPERED))
    assert result.returncode == 0
    assert "does not verify" in result.stderr
    assert_no_traceback(result)


def test_rules_table_and_json() -> None:
    table = fairdeal("rules", "arcomage")
    assert table.returncode == 0
    assert "Lightning" in table.stdout or "Žaibas" in table.stdout
    data = json.loads(fairdeal("rules", "arcomage", "--json").stdout)
    assert len(data["cards"]) == 102
    assert len(data["battlefields"]) == 8
    toy = json.loads(fairdeal("rules", "toybattle", "--json").stdout)
    assert len(toy["boards"]) == 8


def test_seat_keys_can_be_pinned() -> None:
    signed = ROOT / "honest" / "arcomage-signed-moves.json"
    events = json.loads(signed.read_text())["events"]
    keys = {e["seat"]: e["public_key"] for e in events if e["type"] == "seat_key"}
    both = fairdeal("verify", "-v", str(signed), "--seat-key", f"A={keys[0]}",
                    "--seat-key", f"1={keys[1]}")
    assert both.returncode == 0, both.stdout
    assert "pinned: A, B" in both.stdout
    assert both.stdout.startswith("OK: ") and "seat keys A, B pinned" in both.stdout
    # a wrong key is reported at the event where the seat registered its key
    b_key_event = next(e["seq"] for e in events if e["type"] == "seat_key" and e["seat"] == 1)
    other = fairdeal("verify", str(signed), "--seat-key", f"B={keys[0]}")
    assert other.returncode == 1
    assert f"seat-signatures check failed at event {b_key_event}" in other.stdout
    assert "not the pinned key" in other.stdout
    # a seat that never registered one, at its first seed event
    unsigned = fairdeal("verify", str(HONEST), "--seat-key", f"A={keys[0]}")
    first_seed = next(e["seq"] for e in json.loads(HONEST.read_text())["events"]
                      if e.get("seat") == 0)
    assert unsigned.returncode == 1
    assert "registered no key" in unsigned.stdout
    assert f"at event {first_seed}" in unsigned.stdout
    # a seat the match does not have is the caller's mistake: a usage error
    nobody = fairdeal("verify", str(signed), "--seat-key", f"blue={keys[0]}")
    assert nobody.returncode == 2
    assert "seats are A, B" in nobody.stderr
    assert_no_traceback(nobody)
    malformed = fairdeal("verify", str(signed), "--seat-key", "A:ed25519:00")
    assert malformed.returncode == 2
    assert "--seat-key" in malformed.stderr
    for result in (both, other, unsigned, nobody, malformed):
        assert_no_traceback(result)


def test_verify_a_folder_reads_its_bundles(tmp_path: Path) -> None:
    tampered = sorted((ROOT / "tampered").glob("*.json"))
    # pinned: one tampered file is re-signed under a key of its own
    result = fairdeal("verify", "--trusted-key", KEY, str(ROOT / "tampered"))
    assert result.returncode == 1
    verdicts = [line for line in result.stdout.splitlines() if line.startswith(("OK:", "FAIL:"))]
    assert verdicts == [f"FAIL: {path}" for path in tampered]
    assert "is a directory" not in result.stdout + result.stderr
    honest = fairdeal("verify", "--trusted-key", KEY, str(ROOT / "honest"))
    assert honest.returncode == 0, honest.stdout
    assert honest.stdout.count("OK: ") == len(list((ROOT / "honest").glob("*.json")))


def test_verify_r_goes_down_the_folders_and_the_corpus_has_no_stray_file() -> None:
    result = fairdeal("verify", "-r", "--trusted-key", KEY, str(ROOT))
    lines = result.stdout.splitlines()
    oks = {line.split()[1] for line in lines if line.startswith("OK: ")}
    fails = {line.split()[1] for line in lines if line.startswith("FAIL: ")}
    # every bundle below, v1's archive too, and nothing that is not one
    assert oks | fails == {str(path) for path in ROOT.rglob("*.json")}
    assert oks == {str(path) for path in ROOT.rglob("honest/*.json")}
    assert fails == {str(path) for path in ROOT.rglob("tampered/*.json")}
    assert result.returncode == 1


def test_verify_an_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "a.json").write_bytes(HONEST.read_bytes())
    flat = fairdeal("verify", str(tmp_path))
    assert flat.returncode == 2
    assert "no .json file" in flat.stderr and "-r" in flat.stderr
    deep = fairdeal("verify", "-r", str(tmp_path))
    assert deep.returncode == 0, deep.stdout
    assert_no_traceback(flat)


def test_a_folder_s_receipts_files_are_not_taken_for_bundles(tmp_path: Path) -> None:
    """`play --receipts DIR` writes <match id>.receipts.json; `verify DIR` reads bundles only."""
    (tmp_path / "m.json").write_bytes(HONEST.read_bytes())
    (tmp_path / "m.receipts.json").write_text('{"format": "fairdeal.receipts/1"}')
    result = fairdeal("verify", str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert result.stdout.count("OK: ") == 1 and "receipts.json" not in result.stdout


@pytest.mark.parametrize("game, column", [("arcomage", "effect"), ("toybattle", "effect"),
                                          ("wyrdstone", "text")])
def test_rules_wraps_to_the_terminal_and_cuts_no_word(game: str, column: str) -> None:
    table = subprocess.run([sys.executable, "-m", "fairdeal.cli", "rules", game],
                           capture_output=True, text=True, env={**os.environ, "COLUMNS": "160"})
    assert table.returncode == 0, table.stderr
    assert max(len(line) for line in table.stdout.splitlines()) <= 160
    tokens = set(table.stdout.split())
    data = json.loads(fairdeal("rules", game, "--json").stdout)
    records = next(value for value in data.values()
                   if isinstance(value, list) and value and column in value[0])
    for record in records:
        words = str(record[column]).split()
        missing = [word for word in words if word not in tokens]
        assert not missing, f"{record.get('name')}: {missing} cut from {record[column]!r}"
    assert "…" not in table.stdout


@pytest.mark.parametrize("content, named", [
    (b"not json", "not valid JSON"),
    (b'{"format": "x"}', "format"),
    (b'[{"match_id": "m"}]', "missing field"),
    (b'[{"match_id": "m", "seq": -1, "event": "00", "ts": 0, "key": "k", "sig": "s"}]',
     "receipts[0].seq"),
])
def test_a_malformed_receipts_file_is_a_usage_error(tmp_path: Path, content: bytes,
                                                    named: str) -> None:
    path = tmp_path / "receipts.json"
    path.write_bytes(content)
    result = fairdeal("verify", str(HONEST), "--receipts", str(path))
    assert result.returncode == 2
    assert named in result.stderr
    assert_no_traceback(result)


def test_receipts_for_another_match_fail_naming_both_ids(tmp_path: Path) -> None:
    """Issue 18, break 2: a receipt of another match was a quiet skip ("none of the 1 receipts
    is for this match", exit 0); it is a failure of `receipts` naming both match ids."""
    path = tmp_path / "receipts.json"
    path.write_text(json.dumps([{"match_id": "elsewhere", "seq": 1, "event": "ab" * 32,
                                 "ts": 1, "key": KEY, "sig": "cd" * 64}]))
    result = fairdeal("verify", "-v", str(HONEST), "--receipts", str(path))
    assert result.returncode == 1, result.stdout
    match_id = json.loads(HONEST.read_text())["events"][0]["match_id"]
    assert "[FAIL] receipts:" in result.stdout
    assert (f"a receipt (event 1) is for match elsewhere, but this bundle is match {match_id}"
            in result.stdout)
    assert_no_traceback(result)
