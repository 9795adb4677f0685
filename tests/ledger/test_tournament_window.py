"""The dispute window of an ``auto`` tournament (docs/tournaments.md §8): the server finishes
it no sooner than the header's ``seating_ms`` after the last result, so that the last round's
players have the time to dispute it, and never while a dispute has no ruling; the organiser's
own ``finish`` may come sooner, but never over an open dispute. Driven by the ledger's
injectable clock, on a SQLite file and on PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.errors import ConflictError
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.tournament.disputes import dispute_report_hash

from ..tournament_play import ARBITER, Player, play_match, registered, signed

WINDOW = 30_000


@pytest.fixture
def clocked(engine: Engine, tmp_path) -> tuple[Ledger, list[int]]:
    """A ledger whose clock is ``now[0]``, moved by the test."""
    now = [50_000_000]
    ledger = Ledger(EventStore(engine), load_or_create_server_key(tmp_path),
                    clock=lambda: now[0])
    return ledger, now


def _last_round_played(ledger: Ledger, **fields: Any) -> tuple[dict[str, Any], list[Player]]:
    """A 2-player round-robin of one round, its match played and its result read in; the
    seat order of the table as ``players``."""
    created, players = registered(ledger, 2, seating_ms=WINDOW, **fields)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    if not fields.get("auto"):
        ledger.pair_next_round(tid, created["organiser_token"])
    pairing = ledger.tournament(tid)["rounds"][-1]["pairings"][0]
    by_id = {p.player: p for p in players}
    seats = [by_id[seat] for seat in pairing["seats"]]
    play_match(ledger, pairing["match_id"], seats)
    return created, seats


def _result_ts(ledger: Ledger, tid: str) -> int:
    return int(next(e for e in reversed(ledger.tournament_events(tid))
                    if e["type"] == "result")["ts"])


def _dispute(ledger: Ledger, tid: str, player: Player, seats: list[Player]) -> dict[str, Any]:
    match_id = ledger.tournament(tid)["rounds"][-1]["pairings"][0]["match_id"]
    bundle = ledger.bundle_bytes(match_id)
    assert bundle is not None
    fields = {"match_id": match_id, "step": 1, "text": "that move was not legal",
              "receipts": None,
              "report": dispute_report_hash(bundle, 1, [p.key.public_text for p in seats])}
    body = signed(ledger, tid, player.key, "dispute",
                  {**fields, "dispute": len(ledger.tournament(tid)["disputes"]) + 1},
                  player.player)
    body.pop("dispute")
    return ledger.file_dispute(tid, player.token, body)


def _rule(ledger: Ledger, tid: str, dispute: int) -> dict[str, Any]:
    body = signed(ledger, tid, ARBITER, "ruling", {
        "dispute": dispute, "decision": {"kind": "result-stands"}, "text": "the move was legal"})
    return ledger.rule_dispute(tid, body)


def test_an_auto_tournament_waits_a_seating_window_after_its_last_result(
        clocked: tuple[Ledger, list[int]]) -> None:
    ledger, now = clocked
    created, _ = _last_round_played(ledger, auto=True)
    tid = created["id"]
    shown = ledger.tournament(tid)  # reads the result in: the window opens
    until = _result_ts(ledger, tid) + WINDOW
    assert shown["status"] == "running" and shown["disputes_until"] == until
    now[0] = until - 1
    assert ledger.tournament(tid)["status"] == "running"
    assert ledger.tournament_events(tid)[-1]["type"] == "result"
    now[0] = until
    shown = ledger.tournament(tid)
    assert shown["status"] == "finished" and shown["disputes_until"] is None
    assert [e["type"] for e in ledger.tournament_events(tid)][-3:] == ["result", "reveal",
                                                                       "final"]


def test_a_dispute_in_the_window_holds_the_finish_until_it_is_ruled(
        clocked: tuple[Ledger, list[int]]) -> None:
    ledger, now = clocked
    created, seats = _last_round_played(ledger, auto=True)
    tid = created["id"]
    until = ledger.tournament(tid)["disputes_until"]
    now[0] = until - 5_000
    _dispute(ledger, tid, seats[1], seats)
    now[0] = until + 60_000  # long after the window: the dispute is open
    assert ledger.tournament(tid)["status"] == "running"
    now[0] += 1_000
    ledger.sweep()  # nor does the sweeper finish it
    assert ledger.tournament_core.tstore.row(tid)["status"] == "running"
    with pytest.raises(ConflictError) as refused:
        ledger.finish_tournament(tid, created["organiser_token"])
    assert refused.value.code == "disputes-open"
    _rule(ledger, tid, 1)  # the last open dispute ruled, the window long passed: finished
    assert ledger.tournament_core.tstore.row(tid)["status"] == "finished"
    assert [e["type"] for e in ledger.tournament_events(tid)][-4:] == [
        "dispute", "ruling", "reveal", "final"]


def test_a_dispute_ruled_within_the_window_still_waits_for_its_end(
        clocked: tuple[Ledger, list[int]]) -> None:
    ledger, now = clocked
    created, seats = _last_round_played(ledger, auto=True)
    tid = created["id"]
    until = ledger.tournament(tid)["disputes_until"]
    now[0] = until - 20_000
    _dispute(ledger, tid, seats[0], seats)
    now[0] = until - 10_000
    _rule(ledger, tid, 1)
    shown = ledger.tournament(tid)
    # the window runs from the last result, not from the ruling
    assert shown["status"] == "running" and shown["disputes_until"] == until
    now[0] = until
    assert ledger.tournament(tid)["status"] == "finished"


def test_the_organiser_may_finish_within_the_window(
        clocked: tuple[Ledger, list[int]]) -> None:
    ledger, now = clocked
    created, _ = _last_round_played(ledger, auto=True)
    tid = created["id"]
    now[0] = ledger.tournament(tid)["disputes_until"] - 20_000
    events = ledger.finish_tournament(tid, created["organiser_token"])["events"]
    assert [e["type"] for e in events] == ["reveal", "final"]
    assert ledger.tournament(tid)["status"] == "finished"


def test_without_auto_no_window_is_shown_and_nothing_finishes_by_itself(
        clocked: tuple[Ledger, list[int]]) -> None:
    ledger, now = clocked
    created, _ = _last_round_played(ledger)
    tid = created["id"]
    assert ledger.tournament(tid)["disputes_until"] is None
    now[0] += 10 * WINDOW
    ledger.sweep()
    shown = ledger.tournament(tid)
    assert shown["status"] == "running" and shown["disputes_until"] is None


def test_no_window_while_rounds_are_to_be_played(clocked: tuple[Ledger, list[int]]) -> None:
    ledger, _ = clocked
    created, players = registered(ledger, 4, auto=True, seating_ms=WINDOW)
    tid = created["id"]
    assert ledger.tournament(tid)["disputes_until"] is None  # registering
    ledger.start_tournament(tid, created["organiser_token"])
    shown = ledger.tournament(tid)
    assert shown["status"] == "running" and shown["disputes_until"] is None  # round 1 on
    by_id = {p.player: p for p in players}
    for pairing in shown["rounds"][-1]["pairings"]:
        play_match(ledger, pairing["match_id"], [by_id[s] for s in pairing["seats"]])
    shown = ledger.tournament(tid)  # round 1 complete: round 2 is paired, not a window
    assert len(shown["rounds"]) == 2 and shown["disputes_until"] is None
