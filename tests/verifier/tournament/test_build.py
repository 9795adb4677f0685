"""The log writer (build.py) writes what the protocol says (docs/tournaments.md §2): the
chain, the commitment, the players' signatures, the field and lots, the Berger pairings and
results read off real matches; and it refuses to write an event the verifier would refuse."""

from __future__ import annotations

from types import ModuleType

import pytest

from fairdeal.verifier.keys import parse_public_key, verify_signature
from fairdeal.verifier.tournament.build import TournamentLog
from fairdeal.verifier.tournament.events import InvalidTournament
from fairdeal.verifier.tournament.pairing import berger_table, lot_order
from fairdeal.verifier.tournament.primitives import (
    ZERO_HASH,
    commitment,
    event_hash,
    field_hash,
    head_message,
    signed_message,
)


@pytest.fixture(scope="module")
def organiser(make: ModuleType) -> object:
    """A round-robin of 4 played to its last result (not finished: that needs standings)."""
    played = make._Organiser(make.Plan("build-rr4", "round-robin", 4))
    for number in range(1, played.log.total_rounds() + 1):
        played._round(number)
    return played


def test_the_chain_links_every_event_and_the_commitment_opens(make: ModuleType,
                                                              organiser: object) -> None:
    log: TournamentLog = organiser.log  # type: ignore[attr-defined]
    prev = ZERO_HASH
    for seq, event in enumerate(log.events):
        assert (event["seq"], event["prev"]) == (seq, prev)
        prev = event_hash(event)
    assert log.head == prev
    seed = make._seed("build-rr4 tournament seed")
    assert log.header["commitment"] == commitment(seed, log.header)
    assert log.header["commitment"] != commitment(bytes(32), log.header)


def test_registrations_are_signed_by_their_own_keys_and_make_the_field(
        organiser: object) -> None:
    log: TournamentLog = organiser.log  # type: ignore[attr-defined]
    registers = [e for e in log.events if e["type"] == "register"]
    assert len(registers) == 4
    for event in registers:
        public = parse_public_key(event["public_key"])
        assert verify_signature(public, bytes.fromhex(event["sig"]), signed_message(event))
        forged = {**event, "name": "someone else"}
        assert not verify_signature(public, bytes.fromhex(event["sig"]), signed_message(forged))
    start = next(e for e in log.events if e["type"] == "start")
    assert start["players"] == [e["player"] for e in registers]
    assert start["field"] == field_hash([(e["player"], e["entropy"]) for e in registers])


def test_rounds_are_the_berger_table_over_the_draw_of_lots(make: ModuleType,
                                                         organiser: object) -> None:
    log: TournamentLog = organiser.log  # type: ignore[attr-defined]
    drawn = lot_order(log.state.field(make._seed("build-rr4 tournament seed")))
    rounds = [e for e in log.events if e["type"] == "round"]
    assert [r["round"] for r in rounds] == [1, 2, 3]
    for event, table in zip(rounds, berger_table(4), strict=True):
        assert [tuple(p["seats"]) for p in event["pairings"]] == [
            (drawn[a - 1], drawn[b - 1]) for a, b in table]
        assert [p["table"] for p in event["pairings"]] == [1, 2]


def test_results_are_read_off_the_matches_played_with_the_players_keys(
        organiser: object) -> None:
    import json

    log: TournamentLog = organiser.log  # type: ignore[attr-defined]
    matches: dict[str, bytes] = organiser.matches  # type: ignore[attr-defined]
    results = [e for e in log.events if e["type"] == "result"]
    assert len(results) == 6 == len(matches)
    for result in results:
        match = json.loads(matches[result["match_id"]])
        table = log.state.tables[(result["round"], result["table"])]
        keys = [e["public_key"] for e in match["events"] if e["type"] == "seat_key"]
        assert keys == [log.state.registrations[p].public_key for p in table.seats]
        winner = match["events"][-1]["result"]["winner"]
        assert result["winner"] == (table.seats[winner] if winner is not None else None)
        assert result["match_seq"] == match["events"][-1]["seq"]


def test_the_head_is_signed_by_the_server(make: ModuleType, organiser: object) -> None:
    log: TournamentLog = organiser.log  # type: ignore[attr-defined]
    bundle = log.bundle(make.SERVER_KEY)
    message = head_message(log.header["tournament_id"], len(log.events) - 1, log.head)
    assert verify_signature(make.SERVER_KEY.public_raw, bytes.fromhex(
        bundle["signature"]["sig"]), message)


def test_the_writer_refuses_what_the_verifier_would(make: ModuleType,
                                                    organiser: object) -> None:
    log: TournamentLog = organiser.log  # type: ignore[attr-defined]
    before = len(log.events)
    with pytest.raises(InvalidTournament, match=r"event \d+ \(reveal\)\.seed: expected 64 hex"):
        log.append("reveal", {"seed": "not hex"}, ts=log.events[-1]["ts"])
    with pytest.raises(InvalidTournament, match=r"unexpected field 'extra' in a withdraw"):
        log.append("withdraw", {"player": "0" * 16, "from_round": 9, "sig": "0" * 128,
                                "extra": 1}, ts=log.events[-1]["ts"])
    with pytest.raises(ValueError, match="before the last event's"):
        log.append("reveal", {"seed": "00" * 32}, ts=log.events[-1]["ts"] - 1)
    with pytest.raises(ValueError, match="32 bytes"):
        TournamentLog.new({}, b"short", 0)
    assert len(log.events) == before
