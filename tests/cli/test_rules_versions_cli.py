"""Rules versions from the command line: `fairdeal rules` lists the newest (tavern effects and
all) or an older one, `simulate` records under the newest, and a limit the rules refuse is a
usage error, not a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def fairdeal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                          text=True, timeout=120)


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr


def test_rules_wyrdstone_json_lists_the_tavern_effects() -> None:
    result = fairdeal("rules", "wyrdstone", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["rules_version"] == "wyrdstone/2"
    assert [effect["id"] for effect in data["tavern"]][:2] == ["fire-whisky", "sailors-grog"]
    assert {record["id"]: record["value"] for record in data["duel"]}["turn-limit-ms"] == 60_000


def test_rules_shows_an_older_version_on_request() -> None:
    result = fairdeal("rules", "wyrdstone", "--rules-version", "wyrdstone/1", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["rules_version"] == "wyrdstone/1" and "tavern" not in data
    table = fairdeal("rules", "wyrdstone")
    assert "Tavern (7)" in table.stdout and "Hermit's Tea" in table.stdout


def test_an_unknown_rules_version_is_a_usage_error() -> None:
    result = fairdeal("rules", "wyrdstone", "--rules-version", "wyrdstone/0")
    assert result.returncode == 2
    assert "wyrdstone has no rules version 'wyrdstone/0' (this code knows 'wyrdstone/1', " \
           "'wyrdstone/2')" in result.stderr
    assert_no_traceback(result)


@pytest.mark.parametrize("limit", ["30", "61"])
def test_simulate_refuses_a_turn_limit_the_rules_fix(tmp_path: Path, limit: str) -> None:
    result = fairdeal("simulate", "wyrdstone", "--turn-limit", limit, "--seed", "s",
                      "--out", str(tmp_path))
    assert result.returncode == 2
    assert "wyrdstone/2 fixes the turn at 60 s for the whole turn" in result.stderr
    assert_no_traceback(result)
    assert not list(tmp_path.iterdir())


def test_simulate_records_under_the_newest_rules(tmp_path: Path) -> None:
    result = fairdeal("simulate", "wyrdstone", "-n", "2", "--seed", "v2", "--param",
                      'A.tavern=["hermits-tea"]', "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    files = sorted(tmp_path.glob("*.json"))
    genesis = json.loads(files[0].read_text())["events"][0]
    assert genesis["rules_version"] == "wyrdstone/2" and genesis["turn_limit_ms"] == 60_000
    assert genesis["params"]["A"]["tavern"] == ["hermits-tea"]
    verified = fairdeal("verify", *map(str, files))
    assert verified.returncode == 0, verified.stdout
