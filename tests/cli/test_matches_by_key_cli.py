"""`fairdeal matches --seat-key KEY` in a real subprocess: a key's matches newest first with its
names and record, --json with numbers as numbers, pages by --cursor, a clear error for a bad or
unknown key id; and a data folder made before the seat-key index opens and is listed by key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sqlalchemy import text

from fairdeal.ledger.service import Ledger

from ..keyed import ANN, BOB, keyed_match


def fairdeal(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode == 0) == ok, (done.returncode, done.stdout, done.stderr)
    return done


def _folder(path: Path) -> list[str]:
    ledger = Ledger.open(path)
    try:
        return [keyed_match(ledger, ("ann", "bob"), (ANN, BOB), loser=1),
                keyed_match(ledger, ("annie", "bob"), (ANN, None), loser=0)]
    finally:
        ledger.store.engine.dispose()


def test_matches_by_seat_key(tmp_path: Path) -> None:
    won, lost = _folder(tmp_path)
    data = ["--data-dir", str(tmp_path)]
    out = fairdeal(*data, "matches", "--seat-key", ANN.key_id[:6]).stdout
    assert f"seat key {ANN.key_id}" in out and ANN.public_text in out
    assert "'ann' (1), 'annie' (1)" in out
    assert "arcomage   1 won, 1 lost, 0 drawn, 0 unfinished" in out
    lines = [line for line in out.splitlines() if line.startswith((won, lost))]
    assert lines[0].startswith(lost) and "as 'annie': lost" in lines[0]
    assert lines[1].startswith(won) and "as 'ann': won" in lines[1]
    assert "T" in lines[0].split()[1] and lines[0].split()[1].endswith("Z")  # ISO 8601 UTC
    page = json.loads(fairdeal(*data, "matches", "--seat-key", ANN.key_id, "--json",
                               "--limit", "1").stdout)
    assert page["total"] == 2 and isinstance(page["matches"][0]["created_ms"], int)
    assert [m["id"] for m in page["matches"]] == [lost]
    rest = json.loads(fairdeal(*data, "matches", "--seat-key", ANN.key_id, "--json",
                               "--cursor", page["next_cursor"]).stdout)
    assert [m["id"] for m in rest["matches"]] == [won] and rest["next_cursor"] is None
    text_page = fairdeal(*data, "matches", "--seat-key", ANN.key_id, "--limit", "1").stdout
    assert f"--cursor {page['next_cursor']}" in text_page


def test_bad_key_ids_are_clear_errors(tmp_path: Path) -> None:
    _folder(tmp_path)
    data = ["--data-dir", str(tmp_path)]
    unknown = "ffff" if not ANN.key_id.startswith("ffff") else "0000"
    for key, words in ((unknown, "no match on this server was signed by a seat key"),
                       ("xyz", "a key id is 4 to 16 hex digits")):
        done = fairdeal(*data, "matches", "--seat-key", key, ok=False)
        assert done.returncode == 1 and words in done.stderr and "Traceback" not in done.stderr
    done = fairdeal(*data, "matches", "--seat-key", ANN.key_id, "--offset", "5", ok=False)
    assert done.returncode == 2 and "--cursor" in done.stderr
    done = fairdeal(*data, "matches", "--seat-key", ANN.key_id, "--cursor", "nope", ok=False)
    assert "cursor must be the next_cursor" in done.stderr


def test_a_folder_made_before_the_index_is_listed_by_key(tmp_path: Path) -> None:
    won, lost = _folder(tmp_path)
    ledger = Ledger.open(tmp_path)
    with ledger.store.engine.begin() as conn:  # the schema before this version
        conn.execute(text("DROP TABLE seat_keys"))
    ledger.store.engine.dispose()
    page = json.loads(fairdeal("--data-dir", str(tmp_path), "matches", "--seat-key",
                               BOB.key_id, "--json").stdout)
    assert [m["id"] for m in page["matches"]] == [won]
    listed = fairdeal("--data-dir", str(tmp_path), "matches").stdout
    assert won in listed and lost in listed
