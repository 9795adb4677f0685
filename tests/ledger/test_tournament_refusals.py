"""Every refusal of a tournament action names its problem (api.md's codes), and stores
nothing: the log is as it was. SQLite file and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.errors import BadRequest, ConflictError, LedgerError
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore

from ..tournament_play import ARBITER, registered, signed


@pytest.fixture
def ledger(engine: Engine, tmp_path) -> Ledger:
    return Ledger(EventStore(engine), load_or_create_server_key(tmp_path))


def _refused(ledger: Ledger, tid: str, kind: type[LedgerError], code: str, call) -> None:
    before = ledger.tournament_events(tid)
    with pytest.raises(kind) as refused:
        call()
    assert refused.value.code == code, refused.value.message
    assert refused.value.message
    assert ledger.tournament_events(tid) == before


def test_before_the_start(ledger: Ledger) -> None:
    created, players = registered(ledger, 2)
    tid, organiser = created["id"], created["organiser_token"]
    good = {"public_key": ARBITER.public_text, "name": "arb", "entropy": "ab" * 32,
            "expected_seq": 3, "sig": "00" * 64}
    cases = [
        (BadRequest, "invalid-entropy", {**good, "entropy": "AB" * 32}),
        (BadRequest, "invalid-name", {**good, "name": ""}),
        (BadRequest, "invalid-public-key", {**good, "public_key": 7}),
        (BadRequest, "invalid-expected-seq", {**good, "expected_seq": "3"}),
        (BadRequest, "unknown-field", {**good, "seat": 0}),
        (BadRequest, "bad-signature", {**good, "sig": "zz"}),
    ]
    for kind, code, body in cases:
        _refused(ledger, tid, kind, code, lambda body=body: ledger.register_player(tid, body))
    _refused(ledger, tid, BadRequest, "invalid-json",
             lambda: ledger.register_player(tid, ["not", "an", "object"]))
    _refused(ledger, tid, ConflictError, "not-started",
             lambda: ledger.pair_next_round(tid, organiser))
    _refused(ledger, tid, ConflictError, "not-started", lambda: ledger.withdraw_player(
        tid, players[0].token, signed(ledger, tid, players[0].key, "withdraw",
                                      {"from_round": 1}, players[0].player)))
    _refused(ledger, tid, ConflictError, "not-started",
             lambda: ledger.finish_tournament(tid, organiser))
    ledger.start_tournament(tid, organiser)
    _refused(ledger, tid, ConflictError, "started",
             lambda: ledger.start_tournament(tid, organiser))


def test_disputes_while_playing(ledger: Ledger) -> None:
    created, players = registered(ledger, 2)
    tid, organiser = created["id"], created["organiser_token"]
    ledger.start_tournament(tid, organiser)
    match_id = ledger.pair_next_round(tid, organiser)["event"]["pairings"][0]["match_id"]
    player = players[0]
    good = {"match_id": match_id, "step": 0, "text": "why", "receipts": None,
            "report": "ab" * 32, "expected_seq": 99, "sig": "00" * 64}
    cases = [
        (ConflictError, "match-not-sealed", good),
        (BadRequest, "invalid-step", {**good, "step": -1}),
        (BadRequest, "invalid-text", {**good, "text": "x" * 2001}),
        (BadRequest, "invalid-receipts", {**good, "receipts": [1]}),
        (BadRequest, "invalid-report", {**good, "report": "nope"}),
        (BadRequest, "unknown-field", {**good, "dispute": 1}),
    ]
    for kind, code, body in cases:
        _refused(ledger, tid, kind, code,
                 lambda body=body: ledger.file_dispute(tid, player.token, body))
    _refused(ledger, tid, BadRequest, "invalid-round", lambda: ledger.withdraw_player(
        tid, player.token, {"from_round": 0, "expected_seq": 9, "sig": "00" * 64}))
    _refused(ledger, tid, BadRequest, "unknown-dispute",
             lambda: ledger.order_replay(tid, organiser, 1))
    _refused(ledger, tid, BadRequest, "invalid-text", lambda: ledger.rule_dispute(
        tid, {"dispute": 1, "decision": {"kind": "result-stands"}, "text": 5,
              "expected_seq": 9, "sig": "00" * 64}))
