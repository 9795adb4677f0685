"""The ledger as composed parts: each part receives its collaborators in its constructor (no
inheritance stack), no ledger module reaches into another's private names, and the typed
answers read exactly as the JSON they replace."""

from __future__ import annotations

import ast
from pathlib import Path

from fairdeal.ledger.creating import CreatedMatch, MatchCreator
from fairdeal.ledger.deadlines import Deadlines
from fairdeal.ledger.imports import BundleImports, Imported
from fairdeal.ledger.live import LiveMatches
from fairdeal.ledger.reading import ReadSide
from fairdeal.ledger.seats import SeatActions, SeatAnswer
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.keys import SigningKey

from .conftest import started_match

LEDGER = Path(__file__).parents[2] / "ledger"
KEY = SigningKey.from_seed(b"\x21" * 32)


def _private_reaches(path: Path) -> list[str]:
    """Each ``from … import _name`` and each ``other._name`` (not ``self``/``cls``) in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            found += [f"{path.name}:{node.lineno} imports {alias.name}" for alias in node.names
                      if alias.name.startswith("_") and alias.name != "__future__"]
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
              and not node.attr.startswith("__")
              and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{path.name}:{node.lineno} reaches {ast.unparse(node)}")
    return found


def test_no_ledger_module_uses_another_ones_private_names() -> None:
    found = [reach for path in sorted(LEDGER.glob("*.py")) for reach in _private_reaches(path)]
    assert found == []


def test_the_scan_sees_a_private_import_and_a_reach(tmp_path: Path) -> None:
    cheat = tmp_path / "cheat.py"
    cheat.write_text("from .live import _cache\n\ndef f(ledger):\n    return ledger._live(1)\n")
    assert _private_reaches(cheat) == ["cheat.py:1 imports _cache",
                                       "cheat.py:4 reaches ledger._live"]


def test_the_parts_are_composed_not_stacked(store: EventStore) -> None:
    """Every part stands alone (object is its only base) and the façade holds one of each,
    all sharing the one cache of live matches."""
    for part in (Ledger, LiveMatches, Deadlines, ReadSide, BundleImports, MatchCreator,
                 SeatActions):
        assert part.__bases__ == (object,), part
    ledger = Ledger(store, KEY)
    assert ledger.deadlines.matches is ledger.matches
    assert ledger.reading.matches is ledger.matches
    assert ledger.seats.matches is ledger.matches and ledger.seats.reading is ledger.reading


def test_a_clock_swapped_on_the_facade_governs_every_part(store: EventStore) -> None:
    ledger = Ledger(store, KEY)
    ledger.clock = lambda: 1_234_567
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    assert ledger.public_events(created["id"])[0]["ts"] == 1_234_567
    answer = ledger.add_seed(created["id"], created["seats"][0]["token"], None)
    assert answer.event["ts"] == 1_234_567


def test_create_match_answers_a_typed_match_that_reads_as_its_json(store: EventStore) -> None:
    ledger = Ledger(store, KEY)
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None, seats=["ann", "bob"])
    assert isinstance(created, CreatedMatch)
    assert list(created.to_json()) == ["id", "game", "params", "commitment", "turn_limit_ms",
                                       "seed_deadline_ms", "server_key_id", "next_seq",
                                       "seats"]
    assert dict(created) == created.to_json()
    assert created["seats"] == [{"seat": 0, "name": "ann", "token": created.seats[0].token},
                                {"seat": 1, "name": "bob", "token": created.seats[1].token}]
    assert (created.id, created.next_seq, created.server_key_id) == (
        created["id"], 1, KEY.key_id)


def test_the_seat_actions_answer_typed_values_that_read_as_before(store: EventStore) -> None:
    ledger = Ledger(store, KEY)
    match_id, tokens = started_match(ledger)
    view = ledger.seat_view(match_id, tokens[0])
    seat = view["current_seat"]
    mover = ledger.seat_view(match_id, tokens[seat])
    played = ledger.play(match_id, tokens[seat], mover["legal_actions"][0],
                         expected_seq=mover["next_seq"], action_id="first")
    assert isinstance(played, SeatAnswer) and played.replayed is False
    assert set(played) == {"event", "receipt", "view", "replayed"}
    assert played["view"] is played.view and played.view["next_seq"] == mover["next_seq"] + 1
    again = ledger.play(match_id, tokens[seat], mover["legal_actions"][0],
                        expected_seq=mover["next_seq"], action_id="first")
    assert again.replayed is True and again.event == played.event
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    seeded = ledger.add_seed(created["id"], created["seats"][0]["token"], None)
    assert seeded.replayed is None and set(seeded) == {"event", "receipt", "view"}


def test_import_bundle_answers_a_named_pair(store: EventStore) -> None:
    ledger = Ledger(store, KEY)
    outcome = ledger.import_bundle(b"{}")
    assert isinstance(outcome, Imported) and isinstance(outcome, tuple)
    match_id, report = outcome
    assert match_id is None and outcome.report is report and not report.ok
