"""Every event type's shape (docs/tournaments.md §2): each malformed field refused with an error
naming the event's seq, its type and the field; well-formed events of each type pass."""

from __future__ import annotations

from typing import Any

import pytest

from fairdeal.verifier import FairdealError
from fairdeal.verifier.tournament.events import EVENT_TYPES, InvalidTournament, validate_event

KEY = "ed25519:" + "ab" * 32
PLAYER = "0123456789abcdef"
OTHER = "fedcba9876543210"
SIG = "cd" * 64
HEX = "ef" * 32

GOOD: dict[str, dict[str, Any]] = {
    "header": {"format": "fairdeal.tournament/1", "tournament_id": "spring-open", "name": "Open",
               "game": "arcomage", "rules_version": "arcomage/1", "rules_hash": HEX,
               "params": {"deck": "normal"}, "system": "swiss", "rounds": 5,
               "tiebreaks": ["buchholz", "wins"],
               "points": {"win": 2, "draw": 1, "loss": 0, "bye": 2, "forfeit-win": 2},
               "turn_limit_ms": None, "seating_ms": 10_000, "max_players": 64,
               "arbiter_key": KEY, "server_key_id": PLAYER, "commitment": HEX},
    "register": {"player": PLAYER, "public_key": KEY, "name": "Ada", "entropy": HEX,
                 "sig": SIG},
    "start": {"players": [PLAYER, OTHER], "field": HEX},
    "round": {"round": 1, "pairings": [{"table": 1, "seats": [PLAYER, OTHER],
                                        "match_id": "m-1"}], "byes": []},
    "result": {"round": 1, "table": 1, "match_id": "m-1", "outcome": "match", "head": HEX,
               "match_seq": 40, "winner": None},
    "withdraw": {"player": PLAYER, "from_round": 2, "sig": SIG},
    "dispute": {"dispute": 1, "player": PLAYER, "match_id": "m-1", "step": 0, "text": "",
                "receipts": None, "report": HEX, "sig": SIG},
    "ruling": {"dispute": 1, "decision": {"kind": "penalty", "player": OTHER, "points": 2},
               "text": "late", "sig": SIG},
    "reveal": {"seed": HEX},
    "final": {"standings": [{"rank": 1, "player": PLAYER, "score": 4, "tiebreaks": [3, 1]}]},
}


def event(kind: str, **changes: Any) -> dict[str, Any]:
    fields = {**GOOD[kind], **changes}
    return {"seq": 7, "prev": "0" * 64, "type": kind, "ts": 5,
            **{k: v for k, v in fields.items() if v is not _DROP}}


_DROP = object()


@pytest.mark.parametrize("kind", EVENT_TYPES)
def test_a_well_formed_event_of_each_type_passes(kind: str) -> None:
    validate_event(event(kind), 7)


BAD = [
    ("header", {"format": "fairdeal.bundle/1"}, r"event 7 \(header\)\.format"),
    ("header", {"tournament_id": "a b"}, r"\(header\)\.tournament_id"),
    ("header", {"system": "knockout"}, r"\(header\)\.system: expected 'swiss' or"),
    ("header", {"system": "round-robin", "rounds": 3}, r"\(header\)\.rounds: expected an "
                                                        r"integer from 1 to 2"),
    ("header", {"tiebreaks": ["wins", "wins"]}, r"\(header\)\.tiebreaks: expected distinct"),
    ("header", {"points": {"win": 2}}, r"\(header\)\.points"),
    ("header", {"seating_ms": 9_999}, r"\(header\)\.seating_ms"),
    ("header", {"max_players": 1}, r"\(header\)\.max_players"),
    ("header", {"arbiter_key": "ed25519:xyz"}, r"\(header\)\.arbiter_key"),
    ("header", {"params": {"a": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}}, r"nested deeper"),
    ("header", {"commitment": _DROP}, r"\(header\): missing field 'commitment'"),
    ("register", {"player": "ABCDEF0123456789"}, r"\(register\)\.player: expected a player"),
    ("register", {"entropy": "00"}, r"\(register\)\.entropy"),
    ("register", {"sig": _DROP}, r"missing field 'sig'"),
    ("register", {"name": ""}, r"\(register\)\.name: expected a string of 1 to 80"),
    ("start", {"players": [PLAYER, 5]}, r"\(start\)\.players\[1\]"),
    ("round", {"byes": [PLAYER, OTHER]}, r"\(round\)\.byes: expected a list of at most 1"),
    ("round", {"pairings": [{"table": 0, "seats": [PLAYER, OTHER], "match_id": "m"}]},
     r"\(round\)\.pairings\[0\]\.table"),
    ("round", {"pairings": [{"table": 1, "seats": [PLAYER], "match_id": "m"}]},
     r"\(round\)\.pairings\[0\]\.seats: expected two key ids"),
    ("result", {"outcome": "draw"}, r"\(result\)\.outcome"),
    ("result", {"outcome": "forfeit"}, r"field 'head' is not allowed in a 'forfeit' result"),
    ("result", {"head": _DROP}, r"field 'head' is missing in a 'match' result"),
    ("result", {"winner": "nobody"}, r"\(result\)\.winner"),
    ("withdraw", {"from_round": 0}, r"\(withdraw\)\.from_round"),
    ("dispute", {"text": "x" * 2001}, r"\(dispute\)\.text: expected a string of 0 to 2000"),
    ("dispute", {"receipts": []}, r"\(dispute\)\.receipts"),
    ("dispute", {"step": -1}, r"\(dispute\)\.step"),
    ("ruling", {"decision": {"kind": "disqualified"}}, r"\(ruling\)\.decision: expected one"),
    ("ruling", {"decision": {"kind": "penalty", "player": OTHER, "points": 0}},
     r"\(ruling\)\.decision\.points"),
    ("ruling", {"decision": {"kind": "result-changed", "winner": "x"}},
     r"\(ruling\)\.decision\.winner"),
    ("reveal", {"seed": HEX.upper()}, r"\(reveal\)\.seed: expected 64 hex digits"),
    ("final", {"standings": [{"rank": 1, "player": PLAYER, "score": 1, "tiebreaks": [True]}]},
     r"\(final\)\.standings\[0\]\.tiebreaks\[0\]"),
    ("final", {"extra": 1}, r"unexpected field 'extra' in a final event"),
]


@pytest.mark.parametrize(("kind", "changes", "message"), BAD)
def test_a_malformed_field_is_named_with_its_event(kind: str, changes: dict[str, Any],
                                                   message: str) -> None:
    with pytest.raises(InvalidTournament, match=message):
        validate_event(event(kind, **changes), 7)


def test_the_common_fields_and_the_type_are_checked() -> None:
    with pytest.raises(InvalidTournament, match=r"event 3\.type: unknown event type 'move'"):
        validate_event({"type": "move"}, 3)
    with pytest.raises(InvalidTournament, match=r"event 3 \(reveal\)\.prev"):
        validate_event({**event("reveal"), "prev": "x"}, 3)
    with pytest.raises(InvalidTournament, match=r"event 3: expected an event object, got list"):
        validate_event([], 3)
    assert issubclass(InvalidTournament, FairdealError)
