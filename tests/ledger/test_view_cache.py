"""What a live match keeps between requests, held to a ledger that keeps nothing: the part of a
view every seat shares at a position (``ReadSide.view_of``), and the canonical bytes and hash
each write made (stored as they are, and signed in its receipt). Position after position — a
seat key registered while every view is cached, the seeds, moves (signed and not), a timeout,
a resignation and the seal — each answer equals a fresh ledger's (its own cache, everything
read from the database), and each receipt one signed from scratch."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.seats import signed_receipt
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier import record
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import event_hash, seat_message

from ..keyed import BOB

TURN_MS = 30_000


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


def _ledger(engine: Engine, clock: Clock) -> Ledger:
    return Ledger(EventStore(engine), SigningKey.from_seed(b"\x05" * 32), clock=clock)


def _views(ledger: Ledger, match_id: str, tokens: list[str]) -> list[dict[str, Any]]:
    """Every seat's view and the spectator's (which caches the position in ``ledger``)."""
    return [ledger.view(match_id, token) for token in (*tokens, None)]


def _as_fresh(ledger: Ledger, engine: Engine, match_id: str, tokens: list[str],
              answer: Any = None, seat: int | None = None) -> None:
    """``ledger``'s views (and the write ``answer`` of ``seat``, with its receipt) equal those
    of a ledger that has cached nothing."""
    fresh = Ledger(EventStore(engine), ledger.server_key, clock=ledger.clock)
    if answer is not None:
        assert seat is not None
        assert answer["view"] == fresh.view(match_id, tokens[seat])
        assert answer["receipt"] == signed_receipt(ledger.server_key, match_id,
                                                   answer["event"])
        assert answer["receipt"]["event"] == event_hash(answer["event"])
    assert _views(ledger, match_id, tokens) == _views(fresh, match_id, tokens)


def _sig(ledger: Ledger, match_id: str, token: str, seat: int, kind: str,
         fields: dict[str, Any]) -> dict[str, Any]:
    """What seat 1 (BOB's key) sends with a signed event."""
    view = ledger.seat_view(match_id, token)
    draft = {"seq": view["next_seq"], "prev": view["head"], "type": kind, "seat": seat,
             **fields}
    return {"expected_seq": view["next_seq"], "sig": BOB.sign(seat_message(draft)).hex()}


def _move(ledger: Ledger, match_id: str, tokens: list[str]) -> tuple[Any, int]:
    """The seat to act plays its first legal action (seat 1 signs); its answer, its seat."""
    seat = ledger.view(match_id, None)["current_seat"]
    view = ledger.seat_view(match_id, tokens[seat])
    action, action_id = view["legal_actions"][0], f"move-{view['next_seq']}"
    if seat == 0:
        return ledger.play(match_id, tokens[0], action, expected_seq=view["next_seq"],
                           action_id=action_id), seat
    fields = {"action": action, "action_id": action_id, "client_ts": ledger.clock()}
    signed = _sig(ledger, match_id, tokens[1], 1, "move", fields)
    return ledger.play(match_id, tokens[1], action, action_id=action_id,
                       client_ts=fields["client_ts"], **signed), seat


def test_every_answer_is_a_fresh_ledgers_position_after_position(engine: Engine) -> None:
    clock = Clock()
    ledger = _ledger(engine, clock)
    created = ledger.create_match("arcomage", {}, turn_limit_ms=TURN_MS)
    match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    _as_fresh(ledger, engine, match_id, tokens)

    # a seat key while every seat's view of the position before it is cached
    answer = ledger.register_key(match_id, tokens[1], BOB.public_text)
    _as_fresh(ledger, engine, match_id, tokens, answer, 1)
    assert _views(ledger, match_id, tokens)[0]["seat_keys"] == [None, BOB.public_text]

    clock.now += 1
    answer = ledger.add_seed(match_id, tokens[0], None)
    _as_fresh(ledger, engine, match_id, tokens, answer, 0)
    clock.now += 1
    signed = _sig(ledger, match_id, tokens[1], 1, "client_seed", {"client_seed": None})
    answer = ledger.add_seed(match_id, tokens[1], None, **signed)
    _as_fresh(ledger, engine, match_id, tokens, answer, 1)
    assert _views(ledger, match_id, tokens)[0]["started"]

    for _ in range(6):
        clock.now += 10
        answer, seat = _move(ledger, match_id, tokens)
        _as_fresh(ledger, engine, match_id, tokens, answer, seat)

    # a timeout: the server writes it when the next view finds the turn over
    before = _views(ledger, match_id, tokens)
    clock.now += TURN_MS + 1
    after = _views(ledger, match_id, tokens)
    assert after[0]["next_seq"] > before[0]["next_seq"]
    assert after[0]["deadline_ms"] != before[0]["deadline_ms"]
    _as_fresh(ledger, engine, match_id, tokens)

    clock.now += 10
    loser = ledger.view(match_id, None)["current_seat"]
    fields = {"client_ts": clock.now} if loser == 1 else {}
    signed = _sig(ledger, match_id, tokens[1], 1, "resign", fields) if loser == 1 else {}
    answer = ledger.resign(match_id, tokens[loser], client_ts=fields.get("client_ts"), **signed)
    assert answer["view"]["status"] == "ended" and answer["view"]["verified"]
    _as_fresh(ledger, engine, match_id, tokens, answer, loser)


def test_an_answers_lists_are_its_own(engine: Engine) -> None:
    """A caller that changes the lists of one answer (or the actions in it) changes no other
    answer."""
    ledger = _ledger(engine, Clock())
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(match_id, token, None)
    seat = ledger.view(match_id, None)["current_seat"]
    first = ledger.view(match_id, tokens[seat])
    expected = {name: copy.deepcopy(first[name])
                for name in ("seeded", "seeds", "seat_keys", "legal_actions")}
    for name in expected:
        for item in first[name]:
            if isinstance(item, dict):
                item.clear()
        first[name].clear()
    second = ledger.view(match_id, tokens[seat])
    assert {name: second[name] for name in expected} == expected


@pytest.mark.parametrize("kept", [0, 1])
def test_the_bytes_stored_do_not_depend_on_what_the_recorder_keeps(
        engine: Engine, monkeypatch: pytest.MonkeyPatch, kept: int) -> None:
    """With the recorder keeping no encodings (or only the last one, so that a seal's move is
    encoded again), every event is stored and receipted as with the default."""
    for keep in (record.KEPT_ENCODINGS, kept):
        monkeypatch.setattr(record, "KEPT_ENCODINGS", keep)
        clock = Clock()
        ledger = _ledger(engine, clock)
        created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
        match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
        for token in tokens:
            ledger.add_seed(match_id, token, None)
        receipts = []
        for _ in range(4):
            clock.now += 10
            view = ledger.seat_view(match_id, tokens[0])
            seat = view["current_seat"]
            view = ledger.seat_view(match_id, tokens[seat])
            answer = ledger.play(match_id, tokens[seat], view["legal_actions"][0],
                                 expected_seq=view["next_seq"], action_id=f"m{view['next_seq']}")
            receipts.append(answer["receipt"]["event"])
        resigned = ledger.resign(match_id, tokens[0])
        receipts.append(resigned["receipt"]["event"])
        events = ledger.public_events(match_id)
        assert [event_hash(event) for event in events[-6:-1]] == receipts  # the reveal last
        # each stored hash is its stored bytes' (read back, hashed again)
        assert [(e["seq"], e["type"], event_hash(e), e.get("action_id")) for e in events] == \
            [(e.seq, e.type, e.hash, e.action_id) for e in ledger.store.read(match_id)]
