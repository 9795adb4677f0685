"""`fairdeal simulate`: no timestamp in the future, and the key it signed with is printed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from fairdeal.client.simulate import SEEDED_EPOCH_MS, SimulationSettings, simulate_matches


def fairdeal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                          text=True, timeout=300)


def _bundles(folder: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]


def test_unseeded_matches_all_lie_in_the_past(tmp_path: Path) -> None:
    result = fairdeal("--data-dir", str(tmp_path / "data"), "simulate", "arcomage", "-n", "3",
                      "--out", str(tmp_path / "out"))
    after = int(time.time() * 1000)
    assert result.returncode == 0, result.stderr
    bundles = _bundles(tmp_path / "out")
    assert len(bundles) == 3
    for bundle in bundles:
        assert all(event["ts"] <= after for event in bundle["events"])
    # recent: the first starts within the last few hours, not on a fixed date
    assert min(b["events"][0]["ts"] for b in bundles) > after - 5 * 3_600_000


def test_seeded_clock_starts_on_the_fixed_date_and_matches_follow_each_other() -> None:
    settings = SimulationSettings(game="toybattle", params={}, bots=("random", "greedy"))
    bundles = list(simulate_matches(settings, 4, seed="clock", server_key=None))
    assert bundles[0]["events"][0]["ts"] == SEEDED_EPOCH_MS
    for earlier, later in zip(bundles, bundles[1:], strict=False):
        assert later["events"][0]["ts"] > earlier["events"][-1]["ts"]


def test_a_match_that_would_end_after_now_is_moved_back() -> None:
    settings = SimulationSettings(game="toybattle", params={}, bots=("random", "greedy"))
    now = SEEDED_EPOCH_MS + 60_000  # "now" is a minute into the seeded clock
    bundles = list(simulate_matches(settings, 2, seed="late", server_key=None, now_ms=now))
    honest = list(simulate_matches(settings, 2, seed="late", server_key=None))
    for bundle, unshifted in zip(bundles, honest, strict=True):
        assert bundle["events"][-1]["ts"] <= now
        # the same match (the same choices), only earlier
        moves = [event.get("action") for event in bundle["events"]]
        assert moves == [event.get("action") for event in unshifted["events"]]
    from fairdeal.verifier.verify import verify_bytes
    for bundle in bundles:
        assert verify_bytes(json.dumps(bundle).encode()).ok


def test_simulate_prints_the_key_it_signed_with_and_it_verifies(tmp_path: Path) -> None:
    seeded = fairdeal("simulate", "toybattle", "-n", "2", "--seed", "7", "--out",
                      str(tmp_path / "seeded"))
    assert seeded.returncode == 0, seeded.stderr
    last = seeded.stdout.strip().splitlines()[-1]
    assert last.startswith("signed with ed25519:") and "derived from --seed '7'" in last
    key = last.split()[2]
    files = [str(path) for path in (tmp_path / "seeded").glob("*.json")]
    pinned = fairdeal("verify", "--trusted-key", key, *files)
    assert pinned.returncode == 0, pinned.stdout

    data = str(tmp_path / "data")
    unseeded = fairdeal("--data-dir", data, "simulate", "toybattle", "--out",
                        str(tmp_path / "plain"))
    assert unseeded.returncode == 0, unseeded.stderr
    shown = fairdeal("--data-dir", data, "keys", "show").stdout.strip().splitlines()[-1]
    assert unseeded.stdout.strip().splitlines()[-1].split()[2] == shown
    assert "keys show" in unseeded.stdout
