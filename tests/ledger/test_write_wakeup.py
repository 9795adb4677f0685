"""The write count live streams wait on (``Ledger.wait_for_write``): a write by this process
wakes a waiter at once; without one it waits the whole timeout; a bad request, a write to
another match and another process's write do not wake it (the streams poll for the last)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore

from .conftest import started_match


def _move(ledger: Ledger, match_id: str, tokens: list[str]) -> None:
    view = ledger.seat_view(match_id, tokens[0])
    seat = view["current_seat"]
    view = ledger.seat_view(match_id, tokens[seat])
    ledger.play(match_id, tokens[seat], view["legal_actions"][0],
                expected_seq=view["next_seq"], action_id=f"move-{view['next_seq']}")


def test_a_write_wakes_the_waiter_at_once(engine: Engine, tmp_path) -> None:
    ledger = Ledger(EventStore(engine), load_or_create_server_key(tmp_path))
    match_id, tokens = started_match(ledger)
    seen = ledger.writes(match_id)
    woke: list[tuple[int, float]] = []

    def waiter() -> None:
        started = time.monotonic()
        woke.append((ledger.wait_for_write(match_id, seen, 30), time.monotonic() - started))

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.2)
    _move(ledger, match_id, tokens)
    thread.join(30)
    count, waited = woke[0]
    assert count == seen + 1 and waited < 5  # not the 30 s timeout


def test_without_a_write_it_waits_the_timeout(engine: Engine, tmp_path) -> None:
    key = load_or_create_server_key(tmp_path)
    ledger, other = Ledger(EventStore(engine), key), Ledger(EventStore(engine), key)
    match_id, tokens = started_match(ledger)
    other_id, other_tokens = started_match(ledger)
    seen = ledger.writes(match_id)
    with pytest.raises(BadRequest):  # not an action: nothing stored, nobody woken
        view = ledger.seat_view(match_id, tokens[0])
        seat = view["current_seat"]
        ledger.play(match_id, tokens[seat], {"kind": "no-such-action"},
                    expected_seq=view["next_seq"], action_id="bad")
    _move(other, match_id, tokens)  # another process's write: not this one's count
    _move(ledger, other_id, other_tokens)  # another match's: not this match's count
    started = time.monotonic()
    assert ledger.wait_for_write(match_id, seen, 0.3) == seen
    assert time.monotonic() - started >= 0.29
