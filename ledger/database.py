"""Opening the ledger's database: the engine's settings, the tables and what guards them.

    engine = open_engine("sqlite:////tmp/ledger.db")     # the tables and triggers in place

Append-only for real: SQLite and PostgreSQL triggers refuse every UPDATE or DELETE on
``events`` and on the transparency log's tables (and TRUNCATE on PostgreSQL); a partial unique
index keeps one genesis leaf per match id.

SQLite runs in WAL mode with a busy timeout and ``synchronous=NORMAL``: an acknowledged append
survives a killed process (the WAL is in the OS cache); only a power cut may lose the last
transactions. PostgreSQL keeps its own durability settings.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import DisconnectionError, IntegrityError, OperationalError
from sqlmodel import SQLModel

from .seatkeys import fill_missing
from .storeerrors import translated
from .tables import (
    EventRow,
    MatchRow,
    SeatKeyRow,
    TournamentEventRow,
    TournamentPlayerRow,
    TournamentRow,
)
from .tlog import LOG_TABLES

__all__ = ["DB_FILE", "SCHEMA_LOCK", "SQLITE_SYNCHRONOUS", "autocommit_cursor", "create_schema",
           "database_url", "open_engine"]

DB_FILE = "ledger.db"
#: how long a SQLite connection waits for another's lock before "database is locked"
SQLITE_BUSY_MS = 30_000
#: NORMAL survives a killed process; FULL also a power cut, at one fsync per append
SQLITE_SYNCHRONOUS = os.environ.get("FAIRDEAL_SQLITE_SYNCHRONOUS", "NORMAL").upper()
#: the PostgreSQL advisory lock under which a process creates tables: workers starting at once
#: take turns, the first creates, the others find the tables there
SCHEMA_LOCK = 7365840212
if SQLITE_SYNCHRONOUS not in ("NORMAL", "FULL", "EXTRA"):
    raise ValueError("FAIRDEAL_SQLITE_SYNCHRONOUS must be NORMAL, FULL or EXTRA")
_EVENTS = EventRow.__table__  # type: ignore[attr-defined]
_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]
_SEAT_KEYS = SeatKeyRow.__table__  # type: ignore[attr-defined]
#: the tournaments' tables (ledger.tournaments): created where missing, like every table
_TOURNAMENT_TABLES = (TournamentRow.__table__, TournamentEventRow.__table__,  # type: ignore[attr-defined]
                      TournamentPlayerRow.__table__)  # type: ignore[attr-defined]

_SQLITE_TRIGGERS: tuple[str, ...] = (
    ("CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events "
     "BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END"),
    ("CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events "
     "BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END"),
)
_LOG_TABLE_NAMES = ("log_leaves", "log_nodes", "log_checkpoints", "log_cosignatures")
_SQLITE_TRIGGERS += tuple(
    f"CREATE TRIGGER IF NOT EXISTS tournament_events_no_{verb.lower()} BEFORE {verb} ON "
    f"tournament_events BEGIN SELECT RAISE(ABORT, 'events are append-only: {verb} refused'); "
    "END" for verb in ("UPDATE", "DELETE"))
_SQLITE_TRIGGERS += tuple(
    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, 'the log is append-only: {verb} refused'); END"
    for table in _LOG_TABLE_NAMES for verb in ("UPDATE", "DELETE"))
# one genesis leaf per match id (ledger/tlog.py): a partial unique index, in both dialects'
# words, created beside the triggers so that a database made before it gets it too
_ONE_GENESIS = ("CREATE UNIQUE INDEX IF NOT EXISTS log_leaves_one_genesis ON log_leaves "
                "(match_id) WHERE kind = 'genesis'")
# a key's tournaments (ledger.tournaments: ``TournamentStore.rows_of_player``), in both
# dialects' words and created beside the triggers, so that a store made before it gets it too
_PLAYER_INDEX = ("CREATE INDEX IF NOT EXISTS tournament_players_by_player ON "
                 "tournament_players (player, tournament_id)")
_PG_TRIGGERS = (
    ("CREATE OR REPLACE FUNCTION fairdeal_events_append_only() RETURNS trigger "
     "LANGUAGE plpgsql AS $$ BEGIN "
     "RAISE EXCEPTION 'events are append-only: % refused', TG_OP; END $$"),
    ("CREATE OR REPLACE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events "
     "FOR EACH ROW EXECUTE FUNCTION fairdeal_events_append_only()"),
    ("CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
     "FOR EACH STATEMENT EXECUTE FUNCTION fairdeal_events_append_only()"),
    ("CREATE OR REPLACE TRIGGER tournament_events_append_only BEFORE UPDATE OR DELETE ON "
     "tournament_events FOR EACH ROW EXECUTE FUNCTION fairdeal_events_append_only()"),
    ("CREATE OR REPLACE TRIGGER tournament_events_no_truncate BEFORE TRUNCATE ON "
     "tournament_events FOR EACH STATEMENT EXECUTE FUNCTION fairdeal_events_append_only()"),
    # a log made when leaf kinds were at most 16 characters ("tournament-created" is 18);
    # widening a varchar rewrites nothing and fires no row trigger
    ("DO $$ BEGIN IF EXISTS (SELECT 1 FROM information_schema.columns WHERE "
     "table_schema = current_schema() AND table_name = 'log_leaves' AND column_name = 'kind' "
     "AND character_maximum_length < 24) THEN "
     "ALTER TABLE log_leaves ALTER COLUMN kind TYPE varchar(24); END IF; END $$"),
    ("CREATE OR REPLACE FUNCTION fairdeal_log_append_only() RETURNS trigger "
     "LANGUAGE plpgsql AS $$ BEGIN "
     "RAISE EXCEPTION 'the log is append-only: % refused', TG_OP; END $$"),
) + tuple(
    statement
    for table in _LOG_TABLE_NAMES
    for statement in (
        f"CREATE OR REPLACE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION fairdeal_log_append_only()",
        f"CREATE OR REPLACE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION fairdeal_log_append_only()",
    )
)


def database_url(data_dir: Path | str, url: str | None = None) -> str:
    """The URL to open: ``url`` when given, else the SQLite file in the data folder."""
    if url:
        return url
    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{(folder / DB_FILE).resolve()}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    _wal(cursor)
    cursor.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _wal(cursor: Any) -> None:
    """Switch the file to WAL. On a new file, connections opening it at once (a server's
    workers starting) race to switch, and SQLite answers the losers "database is locked" at
    once, without waiting the busy timeout; so they wait here instead, for as long, until one
    has switched it (then the pragma only reads the mode) — the same 30 s as any other lock."""
    deadline = time.monotonic() + SQLITE_BUSY_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
        time.sleep(0.005)


def _refuse_broken(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """Hand out no connection the driver already knows is dead (the server restarted and a
    request failed on it): the pool replaces it. Costs no round trip, unlike a ping; a
    connection that died unnoticed fails one request, which the client may retry (appends
    are idempotent by action id and positioned by expected_seq)."""
    if getattr(dbapi_connection, "closed", False) or getattr(dbapi_connection, "broken", False):
        raise DisconnectionError("the connection is closed")


@translated
def open_engine(url: str, *, pg_schema: str | None = None, create: bool = True) -> Engine:
    """An engine for ``url`` with the tables and the append-only triggers in place.

    ``pg_schema`` puts every table of a PostgreSQL database in that schema (tests use one
    schema per run). The schema is created when missing.
    """
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": SQLITE_BUSY_MS / 1000}
        if ":memory:" in url or url in ("sqlite://", "sqlite:///"):
            raise ValueError("the ledger needs a SQLite file, not an in-memory database")
    elif pg_schema is not None:
        kwargs["connect_args"] = {"options": f"-c search_path={pg_schema}"}
    # one connection per request thread without waiting for the pool (16+ threads per process)
    kwargs.update(pool_size=20, max_overflow=40)
    # a driver error's message must never quote a statement's parameters: the matches row
    # holds the server seed until the reveal, and errors get logged
    kwargs["hide_parameters"] = True
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        # not pool_pre_ping: its ping is one more round trip on every request
        event.listen(engine, "checkout", _refuse_broken)
    if create:
        create_schema(engine, pg_schema)
    return engine


def create_schema(engine: Engine, pg_schema: str | None) -> None:
    """The tables, the append-only triggers, the one-genesis index, the seat-key index
    (filled from the events of a store made before it: ledger.seatkeys) and the index of the
    tournaments' players by key, where missing (the database's own errors: ``open_engine``
    translates them)."""
    if engine.dialect.name == "postgresql":
        # several workers may start at once: one creates, the others wait and find it done
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": SCHEMA_LOCK})
            if pg_schema is not None:
                conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{pg_schema}"'))
            SQLModel.metadata.create_all(conn, tables=[_MATCHES, _EVENTS, _SEAT_KEYS,
                                                       *LOG_TABLES, *_TOURNAMENT_TABLES])
            for statement in (*_PG_TRIGGERS, _PLAYER_INDEX):
                conn.execute(text(statement))
            fill_missing(conn)
            try:
                with conn.begin_nested():
                    conn.execute(text(_ONE_GENESIS))
            except IntegrityError:
                _two_geneses_warning()
        return
    # several processes may start at once on one file: the loser of a CREATE race retries
    for attempt in range(5):
        try:
            with engine.begin() as conn:
                SQLModel.metadata.create_all(conn, tables=[_MATCHES, _EVENTS, _SEAT_KEYS,
                                                           *LOG_TABLES, *_TOURNAMENT_TABLES])
                for statement in (*_SQLITE_TRIGGERS, _PLAYER_INDEX):
                    conn.execute(text(statement))
                fill_missing(conn)
            try:
                with engine.begin() as conn:
                    conn.execute(text(_ONE_GENESIS))
            except IntegrityError:
                _two_geneses_warning()
            return
        except OperationalError:
            if attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))


def _two_geneses_warning() -> None:
    """The log already holds two genesis leaves of one match id, so the unique index cannot be
    made: start anyway (append_leaf still refuses a new one under the log's lock), and say so —
    the log itself is the evidence, which ``fairdeal log monitor`` reports."""
    # the store's logger, as before the store was split (operators filter on it)
    logging.getLogger("fairdeal.ledger.store").warning(
        "the transparency log holds two genesis leaves of one match id: a match id was dealt "
        "twice (run `fairdeal log monitor` to list them); index log_leaves_one_genesis not "
        "created")


@contextmanager
def autocommit_cursor(engine: Engine) -> Iterator[Any]:
    """A PostgreSQL cursor on a pooled connection in autocommit, for one statement that is its
    own transaction: no BEGIN and COMMIT round trips around it. The connection goes back to
    the pool out of autocommit (unless the server closed it)."""
    connection = engine.raw_connection()
    try:
        driver = connection.driver_connection
        assert driver is not None
        driver.autocommit = True
        try:
            with driver.cursor() as cursor:
                yield cursor
        finally:
            if not driver.closed:
                driver.autocommit = False
    finally:
        connection.close()
