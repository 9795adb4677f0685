"""The ledger under wyrdstone/2's whole-turn timer: the rules fix 60 s for the whole turn, so a
match with another limit is refused (400), and the deadline — in views, in the match row the
sweeper reads, and on the timeout the server writes — runs from the start of the turn."""

from __future__ import annotations

from typing import Any

import pytest

from fairdeal.ledger.errors import BadRequest, ConflictError
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.verify import verify_bytes
from fairdeal.web.app import create_app

RUNE = {"kind": "rune", "rune": "rune-of-healing"}


@pytest.mark.parametrize("limit", [30_000, None, 120_000])
def test_a_wyrdstone_match_with_another_turn_limit_is_refused(ledger: Ledger,
                                                               limit: int | None) -> None:
    with pytest.raises(BadRequest, match=r"^wyrdstone/2 fixes the turn at 60 s for the whole "
                       rf"turn: turn_limit_ms must be 60000, got {limit}$") as e:
        ledger.create_match("wyrdstone", {}, turn_limit_ms=limit)
    assert e.value.code == "invalid-turn-limit"
    assert ledger.list_matches() == []


def test_the_api_refuses_it_with_a_clear_400_and_takes_the_default(ledger: Ledger) -> None:
    client = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False}).test_client()
    refused = client.post("/api/v1/matches", json={"game": "wyrdstone", "turn_limit_ms": 5_000})
    assert refused.status_code == 400
    error = refused.get_json()["error"]
    assert error["code"] == "invalid-turn-limit" and "must be 60000" in error["message"]
    created = client.post("/api/v1/matches", json={"game": "wyrdstone"})
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["turn_limit_ms"] == 60_000
    genesis = client.get(f"/api/v1/matches/{created.get_json()['id']}/events").get_json()
    assert genesis["events"][0]["rules_version"] == "wyrdstone/2"


def _started(ledger: Ledger, now: list[int]) -> tuple[str, list[str], int, int]:
    ledger.clock = lambda: now[0]
    created = ledger.create_match("wyrdstone", {})
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(created["id"], token, None)
    view = ledger.spectator_view(created["id"])
    return created["id"], tokens, view["current_seat"], now[0]


def test_a_rune_does_not_restart_the_turns_clock(ledger: Ledger) -> None:
    now = [1_800_000_000_000]
    match_id, tokens, seat, start = _started(ledger, now)
    now[0] = start + 30_000
    ledger.play(match_id, tokens[seat], RUNE, expected_seq=3, action_id="rune")
    assert ledger.seat_view(match_id, tokens[seat])["deadline_ms"] == start + 60_000
    assert ledger.get_match(match_id)["deadline_ms"] == start + 60_000  # what the sweeper reads
    now[0] = start + 61_000  # past the turn's deadline, 31 s after the rune
    events = ledger.public_events(match_id, after=3)
    assert [(event["type"], event["ts"]) for event in events][:1] == [("timeout",
                                                                        start + 60_000)]
    assert events[-1]["type"] == "reveal"
    assert events[-1]["result"] == {"winner": 1 - seat, "reason": "timeout"}
    bundle = ledger.bundle_bytes(match_id)
    assert bundle is not None and verify_bytes(bundle, ledger.server_key.public_text).ok


def test_the_whole_turn_fits_in_60_seconds_and_not_more(ledger: Ledger) -> None:
    now = [1_800_000_000_000]
    match_id, tokens, seat, start = _started(ledger, now)
    now[0] = start + 40_000
    ledger.play(match_id, tokens[seat], RUNE, expected_seq=3, action_id="rune")
    now[0] = start + 59_999  # 20 s after the rune, still within the turn
    played: dict[str, Any] = ledger.play(match_id, tokens[seat], {"kind": "skip"},
                                         expected_seq=4, action_id="skip")
    assert played["event"]["ts"] == start + 59_999
    # the other mage's turn began with that skip: its rune at 50 s leaves it 10 s, not 60
    other = 1 - seat
    now[0] = start + 59_999 + 50_000
    ledger.play(match_id, tokens[other], RUNE, expected_seq=5, action_id="rune-2")
    now[0] = start + 59_999 + 61_000
    with pytest.raises(ConflictError, match="is not the next position"):  # a timeout came first
        ledger.play(match_id, tokens[other], {"kind": "skip"}, expected_seq=6,
                    action_id="late-skip")
    events = ledger.public_events(match_id, after=5)
    assert (events[0]["type"], events[0]["ts"]) == ("timeout", start + 59_999 + 60_000)
