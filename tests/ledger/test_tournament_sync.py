"""Results synced from the matches, concurrently and by the sweeper (docs/tournaments.md §5):
two ledgers (two workers with their own caches) syncing one tournament at once write each
result once; with ``auto`` the sweeper pairs the next round when one is complete, and finishes
the tournament once the last round's dispute window has passed. SQLite file and PostgreSQL."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore

from ..tournament_play import play_match, registered


@pytest.fixture
def ledgers(engine: Engine, tmp_path) -> list[Ledger]:
    key = load_or_create_server_key(tmp_path)
    return [Ledger(EventStore(engine), key), Ledger(EventStore(engine), key)]


def _play_without_sync(ledger: Ledger, tid: str, players: list) -> None:
    """Seal every match of the current round, reading the round from the log (no sync)."""
    by_id = {p.player: p for p in players}
    rounds = [e for e in ledger.tournament_core.tstore.events(tid) if e["type"] == "round"]
    for pairing in rounds[-1]["pairings"]:
        play_match(ledger, pairing["match_id"], [by_id[s] for s in pairing["seats"]])


def test_two_syncs_at_once_write_each_result_once(ledgers: list[Ledger]) -> None:
    created, players = registered(ledgers[0], 8)
    tid = created["id"]
    ledgers[0].start_tournament(tid, created["organiser_token"])
    ledgers[0].pair_next_round(tid, created["organiser_token"])
    _play_without_sync(ledgers[0], tid, players)
    go = threading.Barrier(4)
    failures: list[BaseException] = []

    def sync(ledger: Ledger) -> None:
        go.wait()
        try:
            for _ in range(3):
                ledger.tournament(tid)  # every read syncs the results first
        except BaseException as e:  # noqa: BLE001  reported below
            failures.append(e)

    threads = [threading.Thread(target=sync, args=(ledgers[n % 2],)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    events = ledgers[1].tournament_events(tid)
    results = [(e["round"], e["table"]) for e in events if e["type"] == "result"]
    assert sorted(results) == [(1, table) for table in range(1, 5)]
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert ledgers[0].sync_tournaments() == 0  # nothing left to write


def test_the_sweepers_sync_runs_at_most_once_a_second(ledgers: list[Ledger]) -> None:
    ledger = ledgers[0]
    now = [10_000_000]
    ledger.clock = lambda: now[0]
    created, players = registered(ledger, 2)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    ledger.pair_next_round(tid, created["organiser_token"])
    assert ledger.sync_tournaments() == 0
    _play_without_sync(ledger, tid, players)
    now[0] += 500
    assert ledger.sync_tournaments() == 0  # within the second: not looked at
    now[0] += 600
    assert ledger.sync_tournaments() == 1  # the result


def test_the_sweeper_syncs_and_an_auto_tournament_pairs_its_next_round(
        ledgers: list[Ledger]) -> None:
    ledger = ledgers[0]
    created, players = registered(ledger, 4, auto=True)
    tid = created["id"]
    started = ledger.start_tournament(tid, created["organiser_token"])
    assert started["round"]["round"] == 1  # auto: round 1 paired at the start
    _play_without_sync(ledger, tid, players)
    assert [e["type"] for e in ledger.tournament_core.tstore.events(tid)][-1] == "round"
    ledger.sweep()  # what the background sweeper runs
    events = ledger.tournament_core.tstore.events(tid)
    assert [e["type"] for e in events][-3:] == ["result", "result", "round"]
    assert events[-1]["round"] == 2


def test_the_sweeper_finishes_an_auto_tournament_once_its_dispute_window_passed(
        ledgers: list[Ledger]) -> None:
    ledger = ledgers[0]
    now = [20_000_000]
    ledger.clock = lambda: now[0]
    created, players = registered(ledger, 2, auto=True, seating_ms=30_000)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    _play_without_sync(ledger, tid, players)
    now[0] += 1_000
    assert ledger.sync_tournaments() == 1  # the result, stamped now: the window opens
    result_ts = ledger.tournament_core.tstore.events(tid)[-1]["ts"]
    assert result_ts == now[0]
    now[0] += 29_999
    assert ledger.sync_tournaments() == 0  # 1 ms before the window ends: nothing
    assert ledger.tournament_core.tstore.row(tid)["status"] == "running"
    now[0] += 1_001
    assert ledger.sync_tournaments() == 2  # nobody read it: the sweeper finished it
    assert [e["type"] for e in ledger.tournament_core.tstore.events(tid)][-3:] == [
        "result", "reveal", "final"]
