"""The store raises its own errors, never a driver's: each outage the web answers 503 for
(a full disk, a lock held too long, a read-only file, a server that cannot be reached) made for
real, on each path to the database (the hot path's raw driver calls, SQLAlchemy statements,
the transparency log, the rate-limit buckets, opening the database); and a statement the
database refuses is a StoreError, not an outage."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, exc, text

from fairdeal.ledger.database import open_engine
from fairdeal.ledger.errors import ConflictError
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.ratelimits import SharedBuckets
from fairdeal.ledger.store import EventStore, StoredEvent
from fairdeal.ledger.storeerrors import (
    StoreBusy,
    StoreError,
    StoreFull,
    StoreUnavailable,
    translated,
)
from fairdeal.ledger.tlog import TransparencyLog

#: nothing listens there: a connection is refused at once
UNREACHABLE = "postgresql+psycopg://nobody@127.0.0.1:1/fairdeal"
#: every message the store's errors carry: none quotes the driver (which may quote a statement)
MESSAGES = {StoreFull: "the database is unavailable (its disk is full)",
            StoreBusy: "the database is unavailable (it is busy)",
            StoreUnavailable: "the database is unavailable (it cannot be reached)"}


def _row(match_id: str) -> dict[str, Any]:
    return {"id": match_id, "game": "arcomage", "params": "{}", "turn_limit_ms": None,
            "created_ms": 1, "status": "playing", "seat_names": '["a","b"]',
            "token_hashes": "[]", "server_seed": "00" * 32, "commitment": "11" * 32,
            "next_seq": 1}


def _event(seq: int, size: int = 10) -> StoredEvent:
    """An event whose body is ``size`` bytes or so: a large one needs new pages."""
    return StoredEvent(seq=seq, type="move", body='{"pad":"' + "x" * size + '"}',
                       hash=f"{seq:064x}")


def _assert_outage(raised: pytest.ExceptionInfo[StoreError], kind: type[StoreError],
                   driver: type[BaseException] | tuple[type[BaseException], ...]) -> None:
    """Exactly ``kind`` (not a finer or a coarser one), from a ``driver`` error."""
    assert type(raised.value) is kind
    assert str(raised.value) == MESSAGES[kind]
    cause = raised.value.__cause__
    assert isinstance(cause, driver)
    assert raised.value.error_type == type(cause).__name__
    assert raised.value.driver_error_type == type(getattr(cause, "orig", cause)).__name__


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Iterator[tuple[Engine, EventStore]]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    store = EventStore(engine)
    store.create_match(_row("m"), [StoredEvent(0, "genesis", '{"seq":0}', "0" * 64)])
    yield engine, store
    engine.dispose()


def test_a_full_disk_is_store_full_on_the_hot_path_and_on_statements(
        sqlite_file: tuple[Engine, EventStore]) -> None:
    """SQLite's own size cap (max_page_count) makes the same SQLITE_FULL as a full disk."""
    engine, store = sqlite_file
    cap = {"pages": 0}

    @event.listens_for(engine, "connect")
    def _cap(connection: Any, _: Any) -> None:
        if cap["pages"]:
            connection.execute(f"PRAGMA max_page_count = {cap['pages']}")

    with engine.connect() as conn:
        cap["pages"] = int(conn.execute(text("PRAGMA page_count")).scalar() or 0)
    engine.dispose()
    with pytest.raises(StoreFull) as raised:  # the group commit: sqlite3 itself
        store.append("m", 1, [_event(1, 200_000)], {"next_seq": 2})
    _assert_outage(raised, StoreFull, sqlite3.OperationalError)
    with pytest.raises(StoreFull) as raised:  # a SQLAlchemy statement
        store.create_match(_row("n"), [_event(0, 200_000)])
    _assert_outage(raised, StoreFull, exc.OperationalError)
    assert [stored.seq for stored in store.read("m")] == [0]  # nothing half-written
    cap["pages"] = 0
    engine.dispose()
    store.append("m", 1, [_event(1, 200_000)], {"next_seq": 2})  # room again: it resumes
    assert store.head_seq("m") == 1


def test_a_lock_held_too_long_is_store_busy(sqlite_file: tuple[Engine, EventStore],
                                            tmp_path: Path) -> None:
    engine, store = sqlite_file

    @event.listens_for(engine, "connect")
    def _impatient(connection: Any, _: Any) -> None:  # after the store's 30 s: 50 ms
        connection.execute("PRAGMA busy_timeout = 50")

    engine.dispose()
    holder = sqlite3.connect(tmp_path / "ledger.db", isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreBusy) as raised:
            store.append("m", 1, [_event(1)], {"next_seq": 2})
        _assert_outage(raised, StoreBusy, sqlite3.OperationalError)
        with pytest.raises(StoreBusy) as raised:
            store.update_match("m", {"status": "ended"})
        _assert_outage(raised, StoreBusy, exc.OperationalError)
        holder.execute("ROLLBACK")
    finally:
        holder.close()
    store.append("m", 1, [_event(1)], {"next_seq": 2})
    assert store.match("m")["next_seq"] == 2  # type: ignore[index]


def test_a_read_only_database_is_unavailable_and_still_reads(
        sqlite_file: tuple[Engine, EventStore], tmp_path: Path) -> None:
    url = f"sqlite:///file:{tmp_path / 'ledger.db'}?mode=ro&uri=true"
    engine = open_engine(url, create=False)
    try:
        store = EventStore(engine)
        assert [stored.seq for stored in store.read("m")] == [0]
        with pytest.raises(StoreUnavailable) as raised:
            store.append("m", 1, [_event(1)], {"next_seq": 2})
        _assert_outage(raised, StoreUnavailable, sqlite3.OperationalError)
        assert "readonly" in str(raised.value.__cause__)
    finally:
        engine.dispose()


def test_a_server_that_cannot_be_reached_is_unavailable_on_every_path(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    import psycopg

    with pytest.raises(StoreUnavailable) as raised:  # opening: the tables cannot be made
        open_engine(UNREACHABLE)
    _assert_outage(raised, StoreUnavailable, exc.OperationalError)
    assert raised.value.detail.startswith(
        "OperationalError: (psycopg.OperationalError) connection failed")
    engine = open_engine(UNREACHABLE, create=False)
    try:
        store = EventStore(engine)
        log = TransparencyLog(engine, load_or_create_server_key(tmp_path), "fairdeal.test/log")
        calls = [lambda: store.read("m"), lambda: store.match("m"), lambda: store.matches(),
                 lambda: store.append("m", 1, [_event(1)], {"next_seq": 2}),
                 lambda: store.create_match(_row("m"), []), log.size, log.checkpoint,
                 lambda: log.leaves(), lambda: SharedBuckets(engine)]
        for call in calls:  # the raw paths meet psycopg's own error, the others SQLAlchemy's
            with pytest.raises(StoreUnavailable) as raised:
                call()
            _assert_outage(raised, StoreUnavailable, (exc.OperationalError,
                                                      psycopg.OperationalError))
            cause = raised.value.__cause__
            assert isinstance(getattr(cause, "orig", cause), psycopg.OperationalError)
    finally:
        engine.dispose()


def test_a_statement_the_database_refuses_is_a_store_error_not_an_outage(
        store: EventStore) -> None:
    """A row missing a required column is refused by the database (both backends): a bug,
    not a conflict and not an outage."""
    row = _row("m")
    del row["params"]
    with pytest.raises(StoreError) as raised:
        store.create_match(row, [])
    assert not isinstance(raised.value, StoreUnavailable)
    assert str(raised.value) == "the database failed (IntegrityError)"
    assert raised.value.driver_error_type in ("IntegrityError", "NotNullViolation")
    assert store.match("m") is None


def test_the_stores_own_refusals_pass_as_they_are(store: EventStore) -> None:
    store.create_match(_row("m"), [])
    with pytest.raises(ConflictError, match="already exists"):
        store.create_match(_row("m"), [])
    with pytest.raises(ValueError, match="is not at position 1"):
        store.append("m", 1, [_event(2)])


def test_translated_turns_driver_errors_only() -> None:
    @translated
    def fails(error: BaseException) -> None:
        raise error

    with pytest.raises(StoreFull):
        fails(sqlite3.OperationalError("database or disk is full"))
    with pytest.raises(StoreBusy):
        fails(exc.TimeoutError("QueuePool limit of size 20 overflow 40 reached, connection "
                               "timed out, timeout 30.00"))
    with pytest.raises(StoreUnavailable):
        fails(exc.DisconnectionError("the connection is closed"))
    with pytest.raises(StoreError) as raised:
        fails(sqlite3.ProgrammingError("Cannot operate on a closed cursor."))
    assert type(raised.value) is StoreError
    with pytest.raises(KeyError):
        fails(KeyError("not the database's"))


def test_connections_opening_a_new_sqlite_file_at_once_all_open_it(tmp_path: Path) -> None:
    """A server's workers start at the same moment on a new data folder: every connection
    switches the file to WAL as it opens, and SQLite answers the ones that lose that race
    "database is locked" at once, without waiting its busy timeout. Each must wait its turn
    instead, so none of them fails to start."""
    failures: list[BaseException] = []
    for round_ in range(30):
        engines = [open_engine(f"sqlite:///{tmp_path / f'race-{round_}.db'}", create=False)
                   for _ in range(8)]
        start = threading.Event()

        def connect(engine: Engine, start: threading.Event) -> None:
            start.wait()
            try:
                with engine.connect() as conn:
                    assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            except BaseException as e:  # noqa: BLE001  collected for the assertion below
                failures.append(e)

        threads = [threading.Thread(target=connect, args=(engine, start)) for engine in engines]
        for thread in threads:
            thread.start()
        start.set()
        for thread in threads:
            thread.join()
        for engine in engines:
            engine.dispose()
    assert failures == []
