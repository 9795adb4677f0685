"""`fairdeal audit --seat-key KEY` in a real subprocess over a real ledger: only that key's
matches, the key named in the report, a prefix resolved by the ledger; a clear error for an
unknown key, and for a prefix when auditing files (only a ledger can resolve one)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fairdeal.ledger.service import Ledger

from ..keyed import ANN, BOB, keyed_match


def fairdeal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_audit_one_seat_key(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    try:
        ids = [keyed_match(ledger, ("ann", "bob"), (ANN, BOB), loser=1),
               keyed_match(ledger, ("annie", "cy"), (ANN, None), loser=0),
               keyed_match(ledger, ("dan", "bob"), (None, BOB), loser=0)]
        (tmp_path / "one.json").write_bytes(ledger.bundle(ids[2]))
    finally:
        ledger.store.engine.dispose()
    done = fairdeal("--data-dir", str(tmp_path), "audit", "--seat-key", ANN.key_id[:6],
                    "--json", "-q")
    assert done.returncode in (0, 1), done.stderr  # 1 is a verdict, not a crash
    report = json.loads(done.stdout)
    assert report["matches"] == 2 and report["filters"] == f"seat key {ANN.key_id}"
    assert report["seat_keys"][ANN.key_id]["names"] == {"ann": 1, "annie": 1}
    assert BOB.key_id in report["seat_keys"]  # an opponent's key, in the matches counted
    unknown = "ffff" if not ANN.key_id.startswith("ffff") else "0000"
    done = fairdeal("--data-dir", str(tmp_path), "audit", "--seat-key", unknown, "-q")
    assert done.returncode == 1 and "no match on this server was signed" in done.stderr
    assert "Traceback" not in done.stderr
    done = fairdeal("audit", str(tmp_path / "one.json"), "--seat-key", BOB.key_id[:6], "-q")
    assert done.returncode == 2 and "whole key id" in done.stderr
    done = fairdeal("audit", str(tmp_path / "one.json"), "--seat-key", BOB.public_text,
                    "--json", "-q")
    assert json.loads(done.stdout)["seat_keys"][BOB.key_id]["matches"] == 1
