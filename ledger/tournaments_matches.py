"""A tournament's matches: ordinary matches, created by the ledger inside the transaction that
writes the round (or the replay) naming them (docs/tournaments.md §2, api.md).

Each has the header's game, params, turn limit and seating window; seat names are the players'
names; both players' registered keys are written as its ``seat_key`` events at creation, so the
match accepts only what those keys sign; and each seat's token is the player's player token
(the match keeps its hash, as for any seat token). Its genesis joins the transparency log in the
same transaction, as every match's does.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert

from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.logleaf import genesis_leaf
from fairdeal.verifier.record import MatchRecorder, make_genesis

from .seatkeys import insert_seat_keys, seat_key_rows
from .storereads import StoredEvent
from .tables import EventRow, MatchRow
from .tlog import append_leaf

__all__ = ["NewMatch", "insert_matches", "new_match"]

_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]
_EVENTS = EventRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class NewMatch:
    """A match drafted for a table: its row and its first events (genesis, two seat keys)."""

    match_id: str
    row: dict[str, Any]
    events: tuple[dict[str, Any], ...]


def new_match(header: Mapping[str, Any], players: Sequence[Mapping[str, Any]],
              token_hashes: Sequence[str], server_key_id: str, now: int) -> NewMatch:
    """Draft the match of one table: ``players`` are the two ``register`` events, seat 0
    first; ``token_hashes`` their player tokens' hashes in the same order."""
    match_id = secrets.token_hex(8)
    server_seed = secrets.token_bytes(32)
    genesis = make_genesis(game_name=header["game"], params=header["params"],
                           seats=[player["name"] for player in players], match_id=match_id,
                           server_seed=server_seed, server_key_id=server_key_id,
                           turn_limit_ms=header["turn_limit_ms"], ts=now,
                           seating_ms=header["seating_ms"],
                           rules_version=header["rules_version"])
    recorder = MatchRecorder(genesis, server_seed)
    for seat, player in enumerate(players):
        recorder.append("seat_key", now, seat=seat, public_key=player["public_key"])
    row = {
        "id": match_id, "game": genesis["game"],
        "params": canonical_bytes(genesis["params"]).decode(),
        "turn_limit_ms": header["turn_limit_ms"], "created_ms": now, "status": "seating",
        "seat_names": json.dumps([player["name"] for player in players]),
        "token_hashes": json.dumps(list(token_hashes)),
        "server_seed": server_seed.hex(), "commitment": genesis["commitment"],
        "next_seq": recorder.next_seq, "deadline_ms": now + header["seating_ms"],
    }
    return NewMatch(match_id, row, tuple(recorder.events))


def insert_matches(conn: Connection, matches: Sequence[NewMatch]) -> None:
    """Store the drafted matches in the caller's transaction: rows, events, the seat-key
    index, and each genesis leaf."""
    for match in matches:
        conn.execute(insert(_MATCHES), [match.row])
        stored = [StoredEvent.of(event) for event in match.events]
        conn.execute(insert(_EVENTS), [
            {"match_id": match.match_id, "seq": e.seq, "type": e.type, "body": e.body,
             "hash": e.hash, "action_id": e.action_id} for e in stored])
        keys, _ = seat_key_rows(match.match_id, [(e.seq, e.type, e.body) for e in stored])
        insert_seat_keys(conn, [{**key, "signed": False} for key in keys])
        append_leaf(conn, "genesis", match.match_id, genesis_leaf(match.events[0]))
