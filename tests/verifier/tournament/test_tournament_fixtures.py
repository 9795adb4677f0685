"""The sample tournaments (fixtures/tournaments/): every honest export verifies with every key
pinned (the server's, the arbiter's, every player's); every tampered one fails at the check and
the event fixtures/tournaments/expected.json records; and make.py rebuilds them byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from fairdeal.verifier.tournament import read_export, verify_tournament_zip
from fairdeal.verifier.tournament.bundle import TournamentBundle
from fairdeal.verifier.tournament.report import TOURNAMENT_CHECKS

HERE = Path(__file__).parents[3] / "fixtures" / "tournaments"
EXPECTED = json.loads((HERE / "expected.json").read_text())
HONEST = sorted((HERE / "honest").glob("*.zip"))
TAMPERED = sorted((HERE / "tampered").glob("*.zip"))
SERVER_KEY = (HERE.parent / "bundles" / "server-key.txt").read_text().strip()


def _players(data: bytes) -> list[str]:
    bundle = TournamentBundle.from_bytes(read_export(data).tournament)
    return [e["public_key"] for e in bundle.events if e["type"] == "register"]


@pytest.mark.parametrize("path", HONEST, ids=lambda p: p.stem)
def test_every_honest_tournament_verifies_with_every_key_pinned(make: ModuleType,
                                                                 path: Path) -> None:
    data = path.read_bytes()
    report = verify_tournament_zip(data, trusted_key=SERVER_KEY,
                                   arbiter_key=make.ARBITER_KEY.public_text,
                                   player_keys=_players(data))
    assert report.ok, report.failure
    statuses = {c.name: c.status for c in report.checks}
    assert list(statuses) == [name for name, _ in TOURNAMENT_CHECKS]
    assert statuses["log"] == "skipped" and report.facts["key_pinned"]


def test_the_honest_set_covers_what_the_issue_asks() -> None:
    names = {p.stem for p in HONEST}
    assert {"round-robin-4", "round-robin-4-dispute", "round-robin-4-replay",
            "round-robin-5-withdrawal", "swiss-8", "swiss-7-bye"} <= names
    kinds = set()
    for path in HONEST:
        events = TournamentBundle.from_bytes(read_export(path.read_bytes()).tournament).events
        kinds |= {e["type"] for e in events}
        kinds |= {e["outcome"] for e in events if e["type"] == "result"}
        kinds |= {e["decision"]["kind"] for e in events if e["type"] == "ruling"}
        kinds |= {"bye" for e in events if e["type"] == "round" and e["byes"]}
        kinds |= {e["system"] for e in events if e["type"] == "header"}
    assert {"dispute", "ruling", "withdraw", "forfeit", "result-changed", "penalty",
            "replay-ordered", "bye", "round-robin", "swiss"} <= kinds


@pytest.mark.parametrize("path", TAMPERED, ids=lambda p: p.stem)
def test_every_tampered_tournament_fails_at_its_check(path: Path) -> None:
    expected = EXPECTED[path.stem]
    report = verify_tournament_zip(path.read_bytes(), trusted_key=SERVER_KEY)
    assert report.failure is not None, f"{path.stem} verifies"
    assert (report.failure.check, report.failure.seq) == (expected["check"], expected["seq"]), \
        str(report.failure)
    failed = [c.name for c in report.checks if c.status == "fail"]
    assert failed == [expected["check"]]


def test_the_tamper_set_is_the_one_the_issue_names() -> None:
    assert {p.stem for p in TAMPERED} == set(EXPECTED) >= {
        "changed-pairing", "typed-result", "ruling-not-by-arbiter", "reordered-round",
        "dropped-dispute", "swapped-match", "forged-registration", "standings-edit"}


def test_the_fixtures_are_what_make_py_builds_and_small(make: ModuleType) -> None:
    built = make.build()
    committed = {str(p.relative_to(HERE)): p.read_bytes()
                 for p in HERE.rglob("*") if p.is_file() and p.suffix in (".zip", ".json")}
    assert set(built) == set(committed)
    changed = sorted(name for name, data in built.items() if committed[name] != data)
    assert not changed, f"fixtures differ from what make.py builds: {changed}"
    assert sum(map(len, built.values())) < 3 * 2**20
