"""`fairdeal replay` prints each state as the game's own text; `--json` is for data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HONEST = Path(__file__).parents[2] / "fixtures" / "bundles" / "honest"


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", "replay", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("bundle, words", [
    ("arcomage-untimed.json", ["tower", "wall", "mines", "seat A's hand:"]),
    ("toybattle-castle-field.json", ["medals blue", "base 11", "blue's rack:"]),
    ("wyrdstone-training.json", ["mage A", "health", "energy"]),
])
def test_replay_prints_text_a_person_reads(bundle: str, words: list[str]) -> None:
    result = replay(str(HONEST / bundle), "--step", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("step 3 (event ")
    for word in words:
        assert word in result.stdout
    # no raw JSON line, and the step's words say what was played, not "move by seat"
    assert not any(line.lstrip().startswith("{") for line in result.stdout.splitlines())
    assert "move by seat" not in result.stdout.splitlines()[0]


def test_replay_json_is_one_state_a_line() -> None:
    result = replay(str(HONEST / "arcomage-untimed.json"), "--json")
    states = [json.loads(line) for line in result.stdout.splitlines()]
    assert [state["step"] for state in states] == list(range(len(states)))
