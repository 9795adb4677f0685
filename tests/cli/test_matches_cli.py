"""`fairdeal matches` says "verified" only of matches sealed under the data folder's own key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fairdeal.verifier.keys import key_id, parse_public_key

FORGED = (Path(__file__).parents[2] / "fixtures" / "bundles" / "tampered"
          / "reforged-under-new-key.json")


def fairdeal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                          text=True, timeout=120, check=True)


def test_matches_marks_a_bundle_signed_by_another_server(tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    # without --seed, simulate seals with the data folder's key: this server's own
    fairdeal(*data, "simulate", "arcomage", "--out", str(tmp_path / "ours"))
    ours = next((tmp_path / "ours").glob("*.json"))
    fairdeal(*data, "import", str(ours), str(FORGED))
    listed = fairdeal(*data, "matches").stdout.splitlines()
    forged_id = json.loads(FORGED.read_bytes())["events"][0]["match_id"]
    other = key_id(parse_public_key(json.loads(FORGED.read_bytes())["signature"]["key"]))
    forged_line = next(line for line in listed if line.startswith(forged_id))
    own_line = next(line for line in listed if line.startswith(ours.stem))
    assert f"signed by another server ({other})" in forged_line
    assert "verified" not in forged_line and "verified" in own_line
