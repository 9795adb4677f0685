"""The golden Crazy Eights bundles (golden/, rebuilt by golden/make.py) still verify under the
key they were sealed with, replay to exactly what expected.json recorded, and rebuild byte for
byte from their seeds: a change to the rules, the deal or the protocol shows here first."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
GOLDEN = Path(__file__).resolve().parent / "golden"
RUNS: list[dict[str, Any]] = json.loads((GOLDEN / "expected.json").read_text())["runs"]


def test_there_are_golden_runs_of_each_kind() -> None:
    assert len(RUNS) == 3 and sorted(path.name for path in GOLDEN.glob("*.json")) == sorted(
        [*(run["file"] for run in RUNS), "expected.json"])
    finals = [run["final"] for run in RUNS]
    assert {final["stock_rule"] for final in finals} == {"reshuffle", "pass"}
    assert all(final["result"] is not None for final in finals)


@pytest.mark.parametrize("run", RUNS, ids=[run["file"] for run in RUNS])
def test_a_golden_bundle_verifies_and_replays_as_recorded(fairdeal: Run,
                                                          run: dict[str, Any]) -> None:
    path = GOLDEN / run["file"]
    verified = fairdeal("verify", "--trusted-key", run["key"], str(path)).stdout
    assert verified.startswith(f"OK: {path}  (crazy-eights, ")
    text = fairdeal("replay", str(path)).stdout
    states = fairdeal("replay", str(path), "--json").stdout
    assert hashlib.sha256(text.encode()).hexdigest() == run["replay_text_sha256"]
    assert json.loads(states.splitlines()[-1]) == run["final"]
    assert hashlib.sha256(states.encode()).hexdigest() == run["replay_json_sha256"]


@pytest.mark.parametrize("run", RUNS, ids=[run["file"] for run in RUNS])
def test_a_golden_bundle_rebuilds_byte_identical(fairdeal: Run, run: dict[str, Any],
                                                 tmp_path: Path) -> None:
    fairdeal("simulate", "crazy-eights", *run["args"], "--out", str(tmp_path))
    (made,) = tmp_path.glob("*.json")
    assert made.name == run["file"]
    assert made.read_bytes() == (GOLDEN / run["file"]).read_bytes()
