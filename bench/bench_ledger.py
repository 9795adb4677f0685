"""Moves appended per second: in-process and through the API under gunicorn, on SQLite and on
PostgreSQL, with 1 and 16 concurrent matches; and the eventsourcing library's SQLite recorder
storing one event per transaction, measured in the same run for comparison.

    .venv/bin/pip install eventsourcing          # for the comparison only
    .venv/bin/python bench/bench_ledger.py [--postgres URL] [--moves 2000] [--skip-api]

Not a test: it prints a table. "in-process" counts ``Ledger.play`` calls (each one: the rules
check through MatchRecorder, canonical JSON, the event hash, one INSERT + UPDATE transaction,
and the mover's next view in the answer), per second spent inside ``play`` and per wall-clock
second (with the seat view a bot reads when the turn changes). "API" counts acknowledged
moves per wall-clock second of bots playing whole matches through HTTP: each move is one POST,
whose answer carries the mover's next view; a bot GETs only when the other seat moved since
its last answer. The bots run on the same machine as the server and share its cores.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from benchlib import drop_pg_schema, free_port, run_threads

from fairdeal.client import ApiClient, play_matches
from fairdeal.ledger import database
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine

GAME = "arcomage"


def _ledger(backend: str, folder: Path, pg_url: str | None) -> tuple[Ledger, Any]:
    key = load_or_create_server_key(folder)
    if backend == "sqlite":
        engine = open_engine(f"sqlite:///{folder / 'ledger.db'}")
        return Ledger(EventStore(engine), key), lambda: engine.dispose()
    assert pg_url is not None
    schema = "bench_" + secrets.token_hex(4)
    engine = open_engine(pg_url, pg_schema=schema)

    def drop() -> None:
        engine.dispose()
        drop_pg_schema(pg_url, schema)

    return Ledger(EventStore(engine), key), drop


def _play_in_process(ledger: Ledger, moves_wanted: int, rng: random.Random,
                     spent: list[float]) -> int:
    """Play matches until ``moves_wanted`` moves are stored; time only inside ``play``."""
    moves = 0
    while moves < moves_wanted:
        created = ledger.create_match(GAME, {}, turn_limit_ms=None)
        match_id = created["id"]
        tokens = [seat["token"] for seat in created["seats"]]
        # as a client does: each write answers with the writer's next view; a seat reads its
        # view only when the other seat moved since
        views = [ledger.add_seed(match_id, token, None)["view"] for token in tokens]
        while moves < moves_wanted:
            latest = max(views, key=lambda view: view["next_seq"])
            if latest["status"] == "ended":
                break
            seat = latest["current_seat"]
            view = views[seat]
            if view["next_seq"] != latest["next_seq"]:
                view = ledger.seat_view(match_id, tokens[seat])
            action = rng.choice(view["legal_actions"])
            start = time.perf_counter()
            played = ledger.play(match_id, tokens[seat], action, expected_seq=view["next_seq"],
                                 action_id=uuid.uuid4().hex)
            spent.append(time.perf_counter() - start)
            views[seat] = played["view"]
            moves += 1
    return moves


def bench_in_process(backend: str, matches: int, moves: int,
                     pg_url: str | None) -> tuple[float, float]:
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-bench-"))
    ledger, close = _ledger(backend, folder, pg_url)
    try:
        per_thread = max(1, moves // matches)
        spent: list[list[float]] = [[] for _ in range(matches)]
        threads = [threading.Thread(target=_play_in_process,
                                    args=(ledger, per_thread, random.Random(n), spent[n]))
                   for n in range(matches)]
        wall = run_threads(threads)
        total = sum(len(times) for times in spent)
        # moves per second of time spent inside play (summed over threads), and per wall-clock
        # second with the two views each move needs included
        return total / sum(sum(times) for times in spent), total / wall
    finally:
        close()
        shutil.rmtree(folder, ignore_errors=True)


def bench_eventsourcing(moves: int, writers: int = 1) -> float | None:
    """Events per second stored by ``writers`` threads, one event per transaction each (its
    own aggregate per thread), at the library's SQLite default: WAL, synchronous=FULL."""
    try:
        from eventsourcing.persistence import StoredEvent
        from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore
    except ImportError:
        return None
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-es-"))
    try:
        datastore = SQLiteDatastore(db_name=str(folder / "es.db"))
        recorder = SQLiteAggregateRecorder(datastore, "stored_events")
        recorder.create_table()
        state = b'{"action":{"card":42,"kind":"play"},"seat":0,"type":"move"}' + b" " * 120
        per_writer = max(1, moves // writers)

        def write() -> None:
            originator = uuid.uuid4()
            for version in range(1, per_writer + 1):
                recorder.insert_events([StoredEvent(originator_id=originator,
                                                    originator_version=version,
                                                    topic="fairdeal:move", state=state)])

        threads = [threading.Thread(target=write) for _ in range(writers)]
        return per_writer * writers / run_threads(threads)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bench_store_append(moves: int, writers: int) -> float:
    """Events per second through ``EventStore.append`` alone — what the eventsourcing recorder
    does: a prepared event stored (INSERT and the match row's UPDATE, one transaction each),
    no rules check and no view; ``writers`` threads, one match each."""
    from fairdeal.ledger.store import StoredEvent

    folder = Path(tempfile.mkdtemp(prefix="fairdeal-append-"))
    ledger, close = _ledger("sqlite", folder, None)
    try:
        ids = [ledger.create_match(GAME, {}, turn_limit_ms=None)["id"] for _ in range(writers)]
        per_writer = max(1, moves // writers)

        def write(match_id: str) -> None:
            for seq in range(1, per_writer + 1):
                event = {"seq": seq, "prev": "0" * 64, "type": "move", "ts": seq, "seat": 0,
                         "action": {"card": 42, "kind": "play"}, "action_id": uuid.uuid4().hex}
                ledger.store.append(match_id, seq, [StoredEvent.of(event)],
                                    {"next_seq": seq + 1})

        threads = [threading.Thread(target=write, args=(match_id,)) for match_id in ids]
        return per_writer * writers / run_threads(threads)
    finally:
        close()
        shutil.rmtree(folder, ignore_errors=True)


def durability(moves: int, rounds: int) -> list[tuple[str, str, str, str]]:
    """fairdeal against eventsourcing at synchronous=FULL, 1 and 16 writers, alternating in the
    same run; medians of ``rounds``. Our figure counts whole moves (the rules check, the view
    in the answer and the append), theirs bare inserts."""
    import statistics

    rows = []
    database.SQLITE_SYNCHRONOUS = "FULL"
    try:
        for writers in (1, 16):
            ours, stored, theirs = [], [], []
            for _ in range(rounds):
                es = bench_eventsourcing(moves, writers)
                if es is None:
                    return [("durability", "sqlite", "-", "eventsourcing not installed")]
                theirs.append(es)
                ours.append(bench_in_process("sqlite", writers, moves, None)[1])
                stored.append(bench_store_append(moves, writers))
            b = statistics.median(theirs)
            for label, figures in (("whole moves (Ledger.play)", ours),
                                   ("EventStore.append alone", stored)):
                a = statistics.median(figures)
                rows.append((f"synchronous=FULL, {writers} writer(s), {label} / eventsourcing",
                             "sqlite", str(writers), f"{a:,.0f} / {b:,.0f} = {a / b:.2f}x "
                             f"(medians of {rounds}; runs "
                             f"{', '.join(f'{x:.0f}' for x in figures)} / "
                             f"{', '.join(f'{x:.0f}' for x in theirs)})"))
    finally:
        database.SQLITE_SYNCHRONOUS = "NORMAL"
    return rows



def bench_api(backend: str, matches: int, moves: int, pg_url: str | None,
              workers: int, threads: int = 2) -> tuple[float, float]:
    """Returns (moves/s, requests/s) of bots through gunicorn."""
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-api-"))
    schema = None
    env = {k: v for k, v in os.environ.items()
           if k not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}
    env["FAIRDEAL_DATA_DIR"] = str(folder)
    env["FAIRDEAL_RATE_LIMITS"] = "off"  # the bots create matches faster than the default allows
    if backend == "postgresql":
        assert pg_url is not None
        schema = "bench_" + secrets.token_hex(4)
        engine = open_engine(pg_url, pg_schema=schema)
        engine.dispose()
        env["FAIRDEAL_DATABASE_URL"] = pg_url + ("&" if "?" in pg_url else "?") + \
            f"options=-csearch_path%3D{schema}"
    load_or_create_server_key(folder)
    port = free_port()
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    log_path = Path(tempfile.mkdtemp(prefix="fairdeal-gunicorn-")) / "gunicorn.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [gunicorn, "-w", str(workers), "--threads", str(threads), "-b",
             f"127.0.0.1:{port}", "--log-level", "warning", "fairdeal.web.app:create_app()"],
            env=env, stdout=log, stderr=log)
    try:
        client = ApiClient(f"http://127.0.0.1:{port}", timeout=2)
        client.wait_until_up(10)
        # a rough count: whole matches until at least ``moves`` moves
        counted = 0
        start = time.perf_counter()
        stats = None
        count = max(matches, moves // 25)
        for item in play_matches(f"http://127.0.0.1:{port}", GAME, count,
                                 concurrency=matches, seed=1, turn_limit_ms=60_000):
            if "stats" in item:
                stats = item["stats"]
            elif "result" in item:
                counted += item["moves"]
        elapsed = time.perf_counter() - start
        assert stats is not None
        return stats.moves / elapsed, stats.requests / elapsed
    except BaseException:
        print(log_path.read_text()[-3000:], file=sys.stderr)
        raise
    finally:
        process.terminate()
        process.wait(timeout=10)
        if schema is not None and pg_url is not None:
            drop_pg_schema(pg_url, schema)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get("FAIRDEAL_TEST_POSTGRES_URL"),
                        help="PostgreSQL URL (postgresql+psycopg://...)")
    parser.add_argument("--moves", type=int, default=2_000)
    parser.add_argument("--api-moves", type=int, default=1_500)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=2, help="threads per gunicorn worker")
    parser.add_argument("--skip-api", action="store_true")
    parser.add_argument("--durability", type=int, default=0, metavar="ROUNDS",
                        help="only the synchronous=FULL comparison, ROUNDS alternating runs")
    args = parser.parse_args()
    if args.durability:
        for row in durability(args.moves, args.durability):
            print("  ".join(row))
        return
    backends = ["sqlite"] + (["postgresql"] if args.postgres else [])
    rows: list[tuple[str, str, str, str]] = []
    es = bench_eventsourcing(args.moves)
    rows.append(("eventsourcing SQLiteAggregateRecorder (WAL, FULL)", "sqlite", "1",
                 "not installed" if es is None else f"{es:,.0f}"))
    for backend in backends:
        for matches in (1, 16):
            play, wall = bench_in_process(backend, matches, args.moves, args.postgres)
            # with 16 threads the time inside play includes waiting for the GIL: wall only
            inside = f"{play:,.0f} per play-second; " if matches == 1 else ""
            rows.append(("in-process Ledger.play", backend, str(matches),
                         f"{inside}{wall:,.0f} wall-clock with views"))
        if backend == "sqlite":  # eventsourcing keeps SQLite's default, synchronous=FULL
            database.SQLITE_SYNCHRONOUS = "FULL"
            play, wall = bench_in_process(backend, 1, args.moves, args.postgres)
            database.SQLITE_SYNCHRONOUS = "NORMAL"
            rows.append(("in-process Ledger.play, synchronous=FULL", backend, "1",
                         f"{play:,.0f} per play-second; {wall:,.0f} wall-clock with views"))
    if not args.skip_api:
        for backend in backends:
            for matches in (1, 16):
                moves, requests = bench_api(backend, matches, args.api_moves, args.postgres,
                                            args.workers, args.threads)
                rows.append((f"API, gunicorn -w {args.workers} --threads {args.threads}", backend,
                             str(matches), f"{moves:,.0f} ({requests:,.0f} req/s)"))
    width = max(len(row[0]) for row in rows)
    print(f"{'what':<{width}}  {'database':<10}  {'matches':>7}  moves/s")
    for what, backend, matches, rate in rows:
        print(f"{what:<{width}}  {backend:<10}  {matches:>7}  {rate}")


if __name__ == "__main__":
    main()
