"""Disputes, replays and rulings on the ledger (docs/tournaments.md §2): a player disputes a
step of its own sealed match (signed, the report hash re-computed by the server from the
match's bundle), the arbiter rules (its signature is the authority), and the ruling's effect
shows in the tournament's tables. SQLite file and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.errors import BadRequest, ConflictError
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.tournament.disputes import dispute_report_hash
from fairdeal.verifier.tournament.primitives import signed_message

from ..tournament_play import ARBITER, Player, play_match, registered, signed


@pytest.fixture
def ledger(engine: Engine, tmp_path) -> Ledger:
    return Ledger(EventStore(engine), load_or_create_server_key(tmp_path))


def _one_round(ledger: Ledger) -> tuple[dict, list[Player], dict]:
    """A 2-player round-robin whose one match is played and sealed (seat 0 won)."""
    created, players = registered(ledger, 2)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    pairing = ledger.pair_next_round(tid, created["organiser_token"])["event"]["pairings"][0]
    by_id = {p.player: p for p in players}
    seats = [by_id[s] for s in pairing["seats"]]
    play_match(ledger, pairing["match_id"], seats)
    return created, seats, pairing


def _dispute(ledger: Ledger, tid: str, player: Player, match_id: str, step: int,
             seats: list[Player], report: str | None = None) -> dict:
    bundle = ledger.bundle_bytes(match_id)
    assert bundle is not None
    if report is None:
        report = dispute_report_hash(bundle, step, [p.key.public_text for p in seats])
    fields = {"match_id": match_id, "step": step, "text": "that card was not in the hand",
              "receipts": None, "report": report}
    body = signed(ledger, tid, player.key, "dispute", {**fields, "dispute": len(
        ledger.tournament(tid)["disputes"]) + 1}, player.player)
    body.pop("dispute")
    return ledger.file_dispute(tid, player.token, body)


def _ruling(ledger: Ledger, tid: str, dispute: int, decision: dict,
            key: SigningKey = ARBITER) -> dict:
    body = signed(ledger, tid, key, "ruling", {"dispute": dispute, "decision": decision,
                                               "text": "heard both"})
    return ledger.rule_dispute(tid, body)


def test_a_dispute_is_filed_and_the_arbiter_changes_the_result(ledger: Ledger) -> None:
    created, seats, pairing = _one_round(ledger)
    tid = created["id"]
    assert ledger.tournament(tid)["rounds"][0]["pairings"][0]["result"]["winner"] \
        == seats[0].player
    filed = _dispute(ledger, tid, seats[1], pairing["match_id"], 1, seats)["event"]
    assert filed["dispute"] == 1 and filed["player"] == seats[1].player
    with pytest.raises(ConflictError) as open_dispute:
        ledger.finish_tournament(tid, created["organiser_token"])
    assert open_dispute.value.code == "disputes-open"
    # a ruling signed by anyone but the arbiter is refused
    with pytest.raises(BadRequest) as forged:
        _ruling(ledger, tid, 1, {"kind": "result-stands"}, key=seats[1].key)
    assert forged.value.code == "bad-signature"
    _ruling(ledger, tid, 1, {"kind": "result-changed", "winner": seats[1].player})
    answer = ledger.tournament(tid)
    assert answer["rounds"][0]["pairings"][0]["result"]["winner"] == seats[1].player
    assert answer["disputes"][0]["ruling"]["decision"]["kind"] == "result-changed"
    with pytest.raises(ConflictError) as twice:
        _ruling(ledger, tid, 1, {"kind": "result-stands"})
    assert twice.value.code == "already-ruled"


def test_a_dispute_must_be_on_the_players_own_match_with_the_right_report(
        ledger: Ledger) -> None:
    created, seats, pairing = _one_round(ledger)
    tid = created["id"]
    with pytest.raises(BadRequest) as wrong_report:
        _dispute(ledger, tid, seats[0], pairing["match_id"], 1, seats, report="ab" * 32)
    assert wrong_report.value.code == "report-mismatch"
    with pytest.raises(BadRequest) as no_step:
        _dispute(ledger, tid, seats[0], pairing["match_id"], 999, seats, report="ab" * 32)
    assert no_step.value.code == "invalid-step"
    outsider = ledger.create_match("arcomage", {}, turn_limit_ms=None)["id"]
    with pytest.raises(BadRequest) as not_mine:
        ledger.file_dispute(tid, seats[0].token, {
            "match_id": outsider, "step": 0, "text": "x", "receipts": None,
            "report": "ab" * 32, "expected_seq": 1, "sig": "00" * 64})
    assert not_mine.value.code == "not-your-match"
    with pytest.raises(BadRequest) as unsigned:
        ledger.file_dispute(tid, seats[0].token, {
            "match_id": pairing["match_id"], "step": 1, "text": "x", "receipts": None,
            "report": dispute_report_hash(ledger.bundle_bytes(pairing["match_id"]), 1,
                                          [p.key.public_text for p in seats]),
            "expected_seq": ledger.tournament(tid)["next_seq"], "sig": "00" * 64})
    assert unsigned.value.code == "bad-signature"
    assert ledger.tournament(tid)["disputes"] == []


def test_a_replay_is_a_new_match_of_the_same_table(ledger: Ledger) -> None:
    created, seats, pairing = _one_round(ledger)
    tid, organiser = created["id"], created["organiser_token"]
    _dispute(ledger, tid, seats[1], pairing["match_id"], 1, seats)
    with pytest.raises(BadRequest) as not_a_replay:
        _ruling(ledger, tid, 1, {"kind": "replay-ordered", "match_id": pairing["match_id"]})
    assert not_a_replay.value.code == "invalid-replay"
    replay = ledger.order_replay(tid, organiser, 1)["match_id"]
    _ruling(ledger, tid, 1, {"kind": "replay-ordered", "match_id": replay})
    table = ledger.tournament(tid)["rounds"][0]["pairings"][0]
    assert table["match_id"] == replay and table["result"] is None
    # the replay is the same players with the same tokens and keys; seat 0 resigns this time
    play_match(ledger, replay, seats, loser=0)
    table = ledger.tournament(tid)["rounds"][0]["pairings"][0]
    assert table["result"]["match_id"] == replay
    assert table["result"]["winner"] == seats[1].player


def test_a_penalty_names_a_registered_player(ledger: Ledger) -> None:
    created, seats, pairing = _one_round(ledger)
    tid = created["id"]
    _dispute(ledger, tid, seats[1], pairing["match_id"], 0, seats)
    with pytest.raises(BadRequest) as nobody:
        _ruling(ledger, tid, 1, {"kind": "penalty", "player": "00" * 8, "points": 1})
    assert nobody.value.code == "invalid-decision"
    with pytest.raises(BadRequest) as shapeless:
        _ruling(ledger, tid, 1, {"kind": "penalty", "player": seats[0].player})
    assert shapeless.value.code == "invalid-decision"
    event = _ruling(ledger, tid, 1, {"kind": "penalty", "player": seats[0].player,
                                     "points": 1})["event"]
    assert event["decision"]["points"] == 1
    assert ledger.tournament_core.load(tid)[2].penalties == {seats[0].player: 1}
    with pytest.raises(BadRequest) as unknown:
        ledger.rule_dispute(tid, {"dispute": 7, "decision": {"kind": "result-stands"},
                                  "text": "", "expected_seq": 1,
                                  "sig": ARBITER.sign(signed_message({})).hex()})
    assert unknown.value.code == "unknown-dispute"
