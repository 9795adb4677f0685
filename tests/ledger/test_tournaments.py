"""Tournaments on the ledger, on a real SQLite file and real PostgreSQL (docs/tournaments.md,
api.md): a 4-player round-robin's whole lifecycle driven through the Ledger façade with the
players' keys, its matches played with the games' own legal actions; what each party may not
do, refused with a named error; the log and its leaves."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.errors import BadRequest, ConflictError, Forbidden, Refused, Unauthorized
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logscan import LogScan
from fairdeal.verifier.tournament.events import validate_event
from fairdeal.verifier.tournament.primitives import ZERO_HASH, commitment, event_hash

from ..tournament_play import (
    ARBITER,
    Player,
    play_match,
    play_round,
    register,
    registered,
    signed,
)


@pytest.fixture
def ledger(engine: Engine, tmp_path) -> Ledger:
    return Ledger(EventStore(engine), load_or_create_server_key(tmp_path))


def _chain(events: list[dict]) -> None:
    """Every event well-formed and chained to the one before (primitives' hashes)."""
    prev = ZERO_HASH
    for index, event in enumerate(events):
        validate_event(event, index)
        assert event["seq"] == index and event["prev"] == prev
        prev = event_hash(event)


def test_a_round_robin_is_paired_played_and_its_results_read_off_the_matches(
        ledger: Ledger) -> None:
    created, players = registered(ledger, 4)
    tid, organiser = created["id"], created["organiser_token"]
    assert ledger.tournament(tid)["status"] == "registering"
    started = ledger.start_tournament(tid, organiser)
    assert started["event"]["players"] == [p.player for p in players]
    seen: set[frozenset[str]] = set()
    for number in (1, 2, 3):
        event = ledger.pair_next_round(tid, organiser)["event"]
        assert event["round"] == number and len(event["pairings"]) == 2
        seen |= {frozenset(p["seats"]) for p in event["pairings"]}
        with pytest.raises(ConflictError) as refused:
            ledger.pair_next_round(tid, organiser)
        assert refused.value.code == "round-not-complete"
        play_round(ledger, tid, players)
        answer = ledger.tournament(tid)
        for pairing in answer["rounds"][-1]["pairings"]:
            # seat 1 resigned each match: seat 0 won, read off the match's reveal
            assert pairing["result"]["outcome"] == "match"
            assert pairing["result"]["winner"] == pairing["seats"][0]
    assert len(seen) == 6  # every pair met once
    with pytest.raises(ConflictError) as over:
        ledger.pair_next_round(tid, organiser)
    assert over.value.code == "tournament-over"
    events = ledger.tournament_events(tid)
    _chain(events)
    results = [e for e in events if e["type"] == "result"]
    assert len(results) == 6
    for result in results:
        sealed = [s.to_json() for s in ledger.store.read(result["match_id"])]
        assert result["head"] == event_hash_of_match(sealed[-1])
        assert result["match_seq"] == sealed[-1]["seq"]
    # the header's commitment is to the seed the server keeps (revealed only at the end)
    row = ledger.tournament_core.tstore.row(tid)
    assert commitment(bytes.fromhex(row["seed"]), events[0]) == events[0]["commitment"]
    assert "seed" not in ledger.tournament(tid)


def event_hash_of_match(event: dict) -> str:
    from fairdeal.verifier.protocol import event_hash as match_hash
    return match_hash(event)


def test_a_tables_match_is_seated_with_the_players_keys_and_tokens(ledger: Ledger) -> None:
    created, players = registered(ledger, 2)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    pairing = ledger.pair_next_round(tid, created["organiser_token"])["event"]["pairings"][0]
    by_id = {p.player: p for p in players}
    seats = [by_id[s] for s in pairing["seats"]]
    events = [s.to_json() for s in ledger.store.read(pairing["match_id"])]
    assert [e["type"] for e in events] == ["genesis", "seat_key", "seat_key"]
    assert [s["name"] for s in events[0]["seats"]] == [p.name for p in seats]
    assert [e["public_key"] for e in events[1:]] == [p.key.public_text for p in seats]
    # the player token is the seat token
    assert [ledger.seat_of(pairing["match_id"], p.token) for p in seats] == [0, 1]
    me = ledger.tournament_me(tid, seats[1].token)
    assert me["pairing"]["seat"] == 1 and me["pairing"]["opponent"] == seats[0].player
    # a seed event not signed by the player's key is refused: the seat has its key
    view = ledger.seat_view(pairing["match_id"], seats[0].token)
    with pytest.raises(Refused, match="signature"):
        ledger.add_seed(pairing["match_id"], seats[0].token, None,
                        expected_seq=view["next_seq"], sig="00" * 64)


def test_registration_refusals_are_named(ledger: Ledger) -> None:
    created, players = registered(ledger, 2, max_players=3)
    tid = created["id"]
    with pytest.raises(ConflictError) as again:
        register(ledger, tid, players[0])
    assert again.value.code == "already-registered"
    third = Player("third", SigningKey.from_seed(b"\x09" * 32))
    body = {"public_key": third.key.public_text, "name": "third", "entropy": "ab" * 32,
            "expected_seq": ledger.tournament(tid)["next_seq"], "sig": "00" * 64}
    with pytest.raises(BadRequest) as forged:
        ledger.register_player(tid, body)
    assert forged.value.code == "bad-signature"
    with pytest.raises(ConflictError) as stale:
        ledger.register_player(tid, {**body, "expected_seq": 1})
    assert stale.value.code == "stale-seq"
    register(ledger, tid, third)
    with pytest.raises(ConflictError) as full:
        register(ledger, tid, Player("fourth", SigningKey.from_seed(b"\x0a" * 32)))
    assert full.value.code == "tournament-full"
    with pytest.raises(Unauthorized):
        ledger.start_tournament(tid, None)
    with pytest.raises(Forbidden):
        ledger.start_tournament(tid, players[0].token)
    ledger.start_tournament(tid, created["organiser_token"])
    with pytest.raises(ConflictError) as closed:
        register(ledger, tid, Player("late", SigningKey.from_seed(b"\x0b" * 32)))
    assert closed.value.code == "registration-closed"


@pytest.mark.parametrize(("change", "code"), [
    ({"game": "chess"}, "unknown-game"),
    ({"params": {"no-such-param": 1}}, "invalid-params"),
    ({"params": []}, "invalid-params"),
    ({"system": "knockout"}, "invalid-system"),
    ({"rounds": 3}, "invalid-rounds"),
    ({"system": "swiss", "rounds": 0}, "invalid-rounds"),
    ({"tiebreaks": ["buchholz", "coin-toss"]}, "invalid-tiebreaks"),
    ({"tiebreaks": ["wins", "wins"]}, "invalid-tiebreaks"),
    ({"points": {"win": 2}}, "invalid-points"),
    ({"points": {"win": -1, "draw": 1, "loss": 0, "bye": 2, "forfeit-win": 2}},
     "invalid-points"),
    ({"arbiter_key": "ed25519:zz"}, "invalid-arbiter-key"),
    ({"arbiter_key": None}, "invalid-arbiter-key"),
    ({"name": ""}, "invalid-name"),
    ({"seating_ms": 5}, "invalid-seating"),
    ({"turn_limit_ms": 0}, "invalid-turn-limit"),
    ({"max_players": 1}, "invalid-max-players"),
    ({"auto": "yes"}, "invalid-auto"),
    ({"colour": "blue"}, "unknown-field"),
])
def test_a_bad_field_at_creation_is_named(ledger: Ledger, change: dict, code: str) -> None:
    fields = {"name": "cup", "game": "arcomage", "system": "round-robin", "rounds": 1,
              "arbiter_key": ARBITER.public_text, **change}
    with pytest.raises(BadRequest) as refused:
        ledger.create_tournament(**fields)
    assert refused.value.code == code
    assert ledger.list_tournaments()["tournaments"] == []


def test_too_few_players_and_too_many_swiss_rounds(ledger: Ledger) -> None:
    created, _ = registered(ledger, 1)
    with pytest.raises(ConflictError) as few:
        ledger.start_tournament(created["id"], created["organiser_token"])
    assert few.value.code == "too-few-players"
    swiss, _ = registered(ledger, 3, system="swiss", rounds=3)
    with pytest.raises(ConflictError) as long_swiss:
        ledger.start_tournament(swiss["id"], swiss["organiser_token"])
    assert long_swiss.value.code == "too-many-rounds"


def test_a_withdrawal_before_the_first_move_is_a_forfeit(ledger: Ledger) -> None:
    created, players = registered(ledger, 4)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    pairing = ledger.pair_next_round(tid, created["organiser_token"])["event"]["pairings"][0]
    by_id = {p.player: p for p in players}
    quitter, stayer = by_id[pairing["seats"][0]], by_id[pairing["seats"][1]]
    with pytest.raises(BadRequest) as paired:
        ledger.withdraw_player(tid, quitter.token, signed(
            ledger, tid, quitter.key, "withdraw", {"from_round": 1}, quitter.player))
    assert paired.value.code == "invalid-round"
    ledger.withdraw_player(tid, quitter.token, signed(ledger, tid, quitter.key, "withdraw",
                                                      {"from_round": 2}, quitter.player))
    table = ledger.tournament(tid)["rounds"][0]["pairings"][0]
    assert table["result"]["outcome"] == "forfeit"
    assert table["result"]["winner"] == stayer.player
    with pytest.raises(ConflictError) as twice:
        ledger.withdraw_player(tid, quitter.token, {"from_round": 2, "expected_seq": 99,
                                                    "sig": "00" * 64})
    assert twice.value.code == "withdrawn"


def test_a_withdrawal_after_the_first_move_leaves_the_game_to_be_played(
        ledger: Ledger) -> None:
    created, players = registered(ledger, 2)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    pairing = ledger.pair_next_round(tid, created["organiser_token"])["event"]["pairings"][0]
    by_id = {p.player: p for p in players}
    seats = [by_id[s] for s in pairing["seats"]]
    # both seeds in and a move played: the game is played out, not forfeited
    play_match_partly(ledger, pairing["match_id"], seats)
    ledger.withdraw_player(tid, seats[0].token, signed(
        ledger, tid, seats[0].key, "withdraw", {"from_round": 2}, seats[0].player))
    assert ledger.tournament(tid)["rounds"][0]["pairings"][0]["result"] is None
    play_match(ledger, pairing["match_id"], seats, loser=0)
    result = ledger.tournament(tid)["rounds"][0]["pairings"][0]["result"]
    assert result["outcome"] == "match" and result["winner"] == seats[1].player


def play_match_partly(ledger: Ledger, match_id: str, seats: list[Player]) -> None:
    from ..tournament_play import _seat_fields
    for seat, player in enumerate(seats):
        ledger.add_seed(match_id, player.token, None, **_seat_fields(
            ledger, match_id, player.token, seat, player.key, "client_seed",
            {"client_seed": None}))
    view = ledger.seat_view(match_id, seats[0].token)
    player = seats[view["current_seat"]]
    legal = ledger.seat_view(match_id, player.token)["legal_actions"]
    fields = {"action": legal[0], "action_id": "first", "client_ts": ledger.clock()}
    extra = _seat_fields(ledger, match_id, player.token, view["current_seat"], player.key,
                         "move", fields)
    ledger.play(match_id, player.token, legal[0], expected_seq=extra["expected_seq"],
                action_id="first", client_ts=fields["client_ts"], sig=extra["sig"])


def test_tournament_leaves_are_logged_and_scanned(ledger: Ledger) -> None:
    created, players = registered(ledger, 2)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    ledger.pair_next_round(tid, created["organiser_token"])
    kinds = [(leaf.kind, leaf.match_id) for _, leaf in ledger.log.every_leaf()]
    assert kinds[0] == ("tournament-created", tid)
    assert ("tournament-round", tid) in kinds
    assert sum(kind == "genesis" for kind, _ in kinds) == 1
    scan = LogScan()
    for index, leaf in ledger.log.every_leaf():
        findings, _ = scan.add(index, leaf.body)
        assert findings == []
    # a second genesis of one match id still raises the alarm, among tournament leaves
    genesis = next(leaf for _, leaf in ledger.log.every_leaf() if leaf.kind == "genesis")
    findings, _ = scan.add(scan.size, genesis.body)
    assert findings and "second genesis" in findings[0].message
    assert json.loads(genesis.body)["match_id"] == genesis.match_id
