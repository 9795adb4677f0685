"""The event store: a small, game-agnostic interface over the two tables.

    store = EventStore(open_engine("sqlite:////tmp/ledger.db"))
    store.append(match_id, expected_seq=5, events=[event5], match_update={"next_seq": 6})
    store.read(match_id, after=4)          # [event5]

Append-only for real: SQLite and PostgreSQL triggers refuse every UPDATE or DELETE on
``events`` (and TRUNCATE on PostgreSQL). Optimistic concurrency: ``append`` names the position
it expects to write; the primary key (match_id, seq) lets exactly one writer take a slot, and
the loser gets a ConflictError translated from the driver's IntegrityError. A unique
(match_id, action_id) makes a retried move detectable (``find_action``).

SQLite runs in WAL mode with a busy timeout and ``synchronous=NORMAL``: an acknowledged append
survives a killed process (the WAL is in the OS cache); only a power cut may lose the last
transactions. PostgreSQL keeps its own durability settings.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.exc import DisconnectionError, IntegrityError, OperationalError
from sqlmodel import SQLModel

from fairdeal.verifier.canonical import canonical_bytes, canonical_bytes_trusted
from fairdeal.verifier.hashing import Tag, tag_prefix

from .errors import ConflictError
from .tables import EventRow, MatchRow
from .tlog import LOG_TABLES, MatchIdUsed, append_leaf, genesis_index

__all__ = [
    "DB_FILE",
    "EventStore",
    "StoredEvent",
    "database_url",
    "open_engine",
]

DB_FILE = "ledger.db"
#: NORMAL survives a killed process; FULL also a power cut, at one fsync per append
SQLITE_SYNCHRONOUS = os.environ.get("FAIRDEAL_SQLITE_SYNCHRONOUS", "NORMAL").upper()
#: the PostgreSQL advisory lock under which a process creates tables: workers starting at once
#: take turns, the first creates, the others find the tables there
SCHEMA_LOCK = 7365840212
#: a listing offset past this names no row of any table (and an SQL integer overflows soon after)
MAX_OFFSET = 2**62
if SQLITE_SYNCHRONOUS not in ("NORMAL", "FULL", "EXTRA"):
    raise ValueError("FAIRDEAL_SQLITE_SYNCHRONOUS must be NORMAL, FULL or EXTRA")
_EVENT_PREFIX = tag_prefix(Tag.EVENT)
_EVENTS = EventRow.__table__  # type: ignore[attr-defined]
_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]

# statements built once: building a statement costs more than SQLite running it
_MATCH = select(_MATCHES).where(_MATCHES.c.id == bindparam("match_id"))
_EVENT_INSERT = ("INSERT INTO events (match_id, seq, type, body, hash, action_id) "
                 "VALUES (?, ?, ?, ?, ?, ?)")

_SQLITE_TRIGGERS = (
    ("CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events "
     "BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END"),
    ("CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events "
     "BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END"),
)
_LOG_TABLE_NAMES = ("log_leaves", "log_nodes", "log_checkpoints", "log_cosignatures")
_SQLITE_TRIGGERS += tuple(
    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, 'the log is append-only: {verb} refused'); END"
    for table in _LOG_TABLE_NAMES for verb in ("UPDATE", "DELETE"))
# one genesis leaf per match id (ledger/tlog.py): a partial unique index, in both dialects'
# words, created beside the triggers so that a database made before it gets it too
_ONE_GENESIS = ("CREATE UNIQUE INDEX IF NOT EXISTS log_leaves_one_genesis ON log_leaves "
                "(match_id) WHERE kind = 'genesis'")
_PG_TRIGGERS = (
    ("CREATE OR REPLACE FUNCTION fairdeal_events_append_only() RETURNS trigger "
     "LANGUAGE plpgsql AS $$ BEGIN "
     "RAISE EXCEPTION 'events are append-only: % refused', TG_OP; END $$"),
    ("CREATE OR REPLACE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events "
     "FOR EACH ROW EXECUTE FUNCTION fairdeal_events_append_only()"),
    ("CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
     "FOR EACH STATEMENT EXECUTE FUNCTION fairdeal_events_append_only()"),
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
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _refuse_broken(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """Hand out no connection the driver already knows is dead (the server restarted and a
    request failed on it): the pool replaces it. Costs no round trip, unlike a ping; a
    connection that died unnoticed fails one request, which the client may retry (appends
    are idempotent by action id and positioned by expected_seq)."""
    if getattr(dbapi_connection, "closed", False) or getattr(dbapi_connection, "broken", False):
        raise DisconnectionError("the connection is closed")


def open_engine(url: str, *, pg_schema: str | None = None, create: bool = True) -> Engine:
    """An engine for ``url`` with the tables and the append-only triggers in place.

    ``pg_schema`` puts every table of a PostgreSQL database in that schema (tests use one
    schema per run). The schema is created when missing.
    """
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
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
        _create_schema(engine, pg_schema)
    return engine


def _create_schema(engine: Engine, pg_schema: str | None) -> None:
    if engine.dialect.name == "postgresql":
        # several workers may start at once: one creates, the others wait and find it done
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": SCHEMA_LOCK})
            if pg_schema is not None:
                conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{pg_schema}"'))
            SQLModel.metadata.create_all(conn, tables=[_MATCHES, _EVENTS, *LOG_TABLES])
            for statement in _PG_TRIGGERS:
                conn.execute(text(statement))
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
                SQLModel.metadata.create_all(conn, tables=[_MATCHES, _EVENTS, *LOG_TABLES])
                for statement in _SQLITE_TRIGGERS:
                    conn.execute(text(statement))
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
    logging.getLogger(__name__).warning(
        "the transparency log holds two genesis leaves of one match id: a match id was dealt "
        "twice (run `fairdeal log monitor` to list them); index log_leaves_one_genesis not "
        "created")


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event as stored: its canonical bytes (what is hashed) and its hash."""

    seq: int
    type: str
    body: str
    hash: str
    action_id: str | None = None

    @classmethod
    def of(cls, event: Mapping[str, Any], *, checked: bool = True) -> StoredEvent:
        """The stored form of an event: its canonical bytes and their tagged hash (the same
        bytes and hash as ``verifier.protocol.event_hash``).

        ``checked=False`` skips the canonical-JSON check for an event a ``MatchRecorder``
        accepted: the recorder hashed it with that check already, and every move pays for it
        once rather than twice."""
        body = canonical_bytes(event) if checked else canonical_bytes_trusted(event)
        return cls(
            seq=event["seq"],
            type=event["type"],
            body=body.decode("utf-8"),
            hash=hashlib.sha256(_EVENT_PREFIX + body).hexdigest(),
            action_id=event.get("action_id"),
        )

    def to_json(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.body)
        return value


@dataclass
class _Append:
    """One append waiting for a group commit, and how it ended."""

    match_id: str
    expected_seq: int
    rows: list[tuple[Any, ...]]
    update_sql: str | None
    values: list[Any]
    error: BaseException | None = None
    #: its thread commits the next batch (it came first, or the last leader handed over)
    leads: bool = False
    #: held until the append is committed, or until its thread is to lead
    waiting: threading.Lock = field(default_factory=lambda: _held(threading.Lock()))


def _held(lock: threading.Lock) -> threading.Lock:
    lock.acquire()
    return lock


@dataclass
class _Check:
    """An ``outside_writes`` caller waiting for the leader of a group commit to ask SQLite."""

    count: int | None = None
    waiting: threading.Lock = field(default_factory=lambda: _held(threading.Lock()))


class EventStore:
    """Append with an expected position, read after a position; plus the match rows.

    On SQLite, concurrent appends share a commit (group commit): at ``synchronous=FULL`` one
    fsync makes a whole batch durable, and each append still returns only once its batch is
    committed, so an acknowledged move is as durable as before. Every write of the store goes
    through one connection of its own, which is how ``outside_writes`` tells its own writes
    from everyone else's: serve one cache of matches (one ``LiveMatches``) per store.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # SQLite has one writer at a time; threads of one process queue here instead of in
        # SQLite's busy handler, which sleeps in steps of up to 100 ms
        self._write_lock: threading.Lock | contextlib.nullcontext[None] = (
            threading.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext())
        # appends waiting for the next group commit (SQLite)
        self._queue: list[_Append] = []
        self._leading = False  # a thread is committing, or about to
        self._checks: list[_Check] = []  # outside_writes callers waiting for that leader
        self._queue_lock = threading.Lock()
        # SQLite: the connection every write of this store goes through (call with the write
        # lock held), the pool and process it was opened in, and what ``outside_writes`` last
        # saw on it
        self._own: Connection | None = None
        self._own_pool: Any = None
        self._own_pid = 0
        self._data_version: int | None = None
        self._outside_writes = 0
        self._mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    # --- whose writes --------------------------------------------------------------------------

    def outside_writes(self) -> int | None:
        """A count that grows whenever the database is found changed by anyone but this store
        since the last call: another process (a second gunicorn worker), another EventStore, a
        hand edit. A cache that holds every write made through this store, and read a match
        after the count was N, knows the match unchanged while the count is still N: it need
        not read it again. None on PostgreSQL, which cannot tell: read every time.

        SQLite's ``PRAGMA data_version`` on the connection this store writes with changes
        exactly when another connection committed since it was last asked; its own commits
        leave it as it is. A change the count sees may concern any match, so every match is
        read once more: a spurious change costs a read, never a stale answer."""
        if self.dialect != "sqlite":
            return None
        # while a group commit is under way, its leader asks once for every caller waiting:
        # each caller would otherwise hold the write lock in turn, between batches
        with self._queue_lock:
            check = _Check() if self._leading else None
            if check is not None:
                self._checks.append(check)
        if check is not None:
            check.waiting.acquire()
            return check.count
        with self._write_lock:
            return self._count_outside_writes()

    def _count_outside_writes(self) -> int:
        """Ask SQLite (call with the write lock held)."""
        driver = self._own_connection().connection.dbapi_connection
        assert driver is not None
        version = driver.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._data_version = version
            self._outside_writes += 1
        return self._outside_writes

    def _own_connection(self) -> Connection:
        """This store's own SQLite connection, opened on first use and held for the store's
        life (call with the write lock held). ``engine.dispose()`` replaces it, as it does
        every pooled connection; a forked child opens its own and leaves the parent's alone
        (a SQLite connection must not cross a fork)."""
        if self._own_pid != os.getpid():
            self._own = None
        elif self._own is not None and self._own_pool is not self.engine.pool:
            self._drop_own_connection()
        if self._own is None:
            self._own = self.engine.connect()
            self._own_pool = self.engine.pool
            self._own_pid = os.getpid()
            self._data_version = None  # a new connection: its first answer counts as a change
        return self._own

    def _drop_own_connection(self) -> None:
        """After a failure the connection may be in no known state: the next write opens
        another (and ``outside_writes`` counts that as a change, so every match is read)."""
        own, self._own = self._own, None
        if own is not None:
            with contextlib.suppress(Exception):
                own.invalidate()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """One write transaction: on SQLite under the write lock, on the store's own
        connection; on PostgreSQL on a connection of the pool."""
        if self.dialect != "sqlite":
            with self.engine.begin() as conn:
                yield conn
            return
        with self._write_lock:
            conn = self._own_connection()
            try:
                with conn.begin():
                    yield conn
            except IntegrityError:
                raise  # refused and rolled back: the connection is fine
            except BaseException:
                self._drop_own_connection()
                raise

    # --- events -------------------------------------------------------------------------------

    def append(
        self,
        match_id: str,
        expected_seq: int,
        events: Sequence[StoredEvent],
        match_update: Mapping[str, Any] | None = None,
        log_leaf: bytes | None = None,
    ) -> int | None:
        """Store ``events`` at ``expected_seq``, ``expected_seq + 1``, … in one transaction,
        and apply ``match_update`` to the match row in the same transaction; with
        ``log_leaf`` (a seal's leaf bytes) append it to the transparency log in that
        transaction too, and return its index.

        Raises ConflictError when any of those positions is taken (another writer won) or an
        action id is already used; nothing is stored then.
        """
        for offset, stored in enumerate(events):
            if stored.seq != expected_seq + offset:
                raise ValueError(f"event {stored.seq} is not at position {expected_seq + offset}")
        rows = [(match_id, stored.seq, stored.type, stored.body, stored.hash, stored.action_id)
                for stored in events]
        update_sql = None
        values: list[Any] = []
        if match_update:
            columns = sorted(match_update)
            unknown = set(columns) - set(_MATCHES.c.keys())
            if unknown:
                raise ValueError(f"no column {sorted(unknown)[0]!r} in matches")
            mark = self._mark
            update_sql = (f"UPDATE matches SET {', '.join(f'{c} = {mark}' for c in columns)} "
                          f"WHERE id = {mark}")
            values = [match_update[c] for c in columns] + [match_id]
        if log_leaf is not None:
            return self._append_logged(match_id, expected_seq, rows, match_update, log_leaf)
        # the hot path talks to the driver directly: building SQLAlchemy statements costs more
        # than SQLite takes to run them
        dbapi = self.engine.dialect.dbapi
        assert dbapi is not None
        if self.dialect == "postgresql":
            self._append_in_one_statement(match_id, expected_seq, rows, update_sql, values)
            return None
        job = _Append(match_id, expected_seq, rows, update_sql, values)
        # group commit: one thread at a time leads, committing every append queued so far in
        # one transaction (one fsync at synchronous=FULL); the others wait for their batch to
        # be committed, or to be handed the lead of the next one
        with self._queue_lock:
            self._queue.append(job)
            job.leads = not self._leading
            self._leading = True
        if not job.leads:
            job.waiting.acquire()
        if job.leads:
            self._lead(dbapi)
        if job.error is not None:
            raise job.error
        return None

    def _lead(self, dbapi: Any) -> None:
        """Answer the ``outside_writes`` callers waiting, commit the queued appends, then
        hand the lead to the first append queued since (or, answering whoever asked
        meanwhile, give it up), and wake the threads of the batch. The waiting threads sleep
        on a lock of their own, so only the next leader and the batch wake, each once."""
        with self._queue_lock:
            batch, self._queue = self._queue, []
        try:
            with self._write_lock:
                self._answer_checks()
                self._commit_batch(batch, dbapi)
                while True:
                    with self._queue_lock:
                        if self._queue:
                            self._queue[0].leads = True
                            self._queue[0].waiting.release()
                            break
                        if not self._checks:
                            self._leading = False
                            break
                    self._answer_checks()
        finally:
            for job in batch:
                job.waiting.release()

    def _answer_checks(self) -> None:
        """One ``PRAGMA data_version`` for every ``outside_writes`` caller waiting (call with
        the write lock held): each asked before it ran, so its answer is fresh enough."""
        with self._queue_lock:
            checks, self._checks = self._checks, []
        if not checks:
            return
        try:
            count: int | None = self._count_outside_writes()
        except Exception:  # noqa: BLE001  no answer: each caller reads instead
            count = None
            self._drop_own_connection()
        for check in checks:
            check.count = count
            check.waiting.release()

    def _commit_batch(self, batch: list[_Append], dbapi: Any) -> None:
        """Each append in a savepoint of one transaction: a conflict undoes that append alone;
        any other failure (a full disk, a lost file) fails the whole batch, nothing stored."""
        connection = self._own_connection().connection
        cursor = connection.cursor()
        alone = len(batch) == 1  # the common case without contention: no savepoint
        failed = False
        try:
            if not alone:
                cursor.execute("BEGIN IMMEDIATE")
            for job in batch:
                if not alone:
                    cursor.execute("SAVEPOINT append")
                try:
                    cursor.executemany(_EVENT_INSERT, job.rows)
                    if job.update_sql is not None:
                        cursor.execute(job.update_sql, job.values)
                except dbapi.IntegrityError as e:
                    if alone:
                        connection.rollback()
                    else:
                        cursor.execute("ROLLBACK TO append")
                    job.error = self._conflict(job, e)
                if not alone:
                    cursor.execute("RELEASE append")
            connection.commit()
        except BaseException as e:
            # raised again in the thread of each append of the batch (this one included)
            failed = True
            for job in batch:
                job.error = e
            with contextlib.suppress(Exception):
                connection.rollback()
        finally:
            cursor.close()
        if failed:
            self._drop_own_connection()

    @staticmethod
    def _conflict(job: _Append, cause: BaseException) -> ConflictError:
        error = ConflictError(f"match {job.match_id}: position {job.expected_seq} was taken by "
                              "another writer", next_seq=None)
        error.__cause__ = cause
        return error

    def _append_logged(self, match_id: str, expected_seq: int,
                       rows: Sequence[tuple[Any, ...]], match_update: Mapping[str, Any] | None,
                       leaf: bytes) -> int:
        """The rare append that also logs a leaf (a seal): one ordinary transaction, the
        events and the match row written first so SQLite holds its write lock before the
        log's size is read."""
        names = ("match_id", "seq", "type", "body", "hash", "action_id")
        try:
            with self._transaction() as conn:
                conn.execute(insert(_EVENTS), [dict(zip(names, row, strict=True))
                                               for row in rows])
                if match_update:
                    conn.execute(update(_MATCHES).where(_MATCHES.c.id == match_id)
                                 .values(**match_update))
                return append_leaf(conn, "seal", match_id, leaf)
        except IntegrityError as e:
            raise ConflictError(
                f"match {match_id}: position {expected_seq} was taken by another writer",
                next_seq=None) from e

    def _append_in_one_statement(self, match_id: str, expected_seq: int,
                                 rows: Sequence[tuple[Any, ...]], update_sql: str | None,
                                 values: Sequence[Any]) -> None:
        """PostgreSQL: the INSERT and the match row's UPDATE as one statement (a data-modifying
        WITH), run in autocommit — one round trip instead of four (BEGIN, INSERT, UPDATE,
        COMMIT), and just as atomic: a statement is its own transaction."""
        dbapi = self.engine.dialect.dbapi
        assert dbapi is not None
        columns = "(match_id, seq, type, body, hash, action_id)"
        insert = (f"INSERT INTO events {columns} VALUES "
                  + ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows)))
        params = [item for row in rows for item in row]
        if update_sql is not None:
            # the UPDATE reads what the INSERT stored, so the INSERT runs first: PostgreSQL
            # may run a WITH's statement after the main one, and a transaction that locked the
            # match row before inserting deadlocked with a seal (which inserts, then updates)
            sql = (f"WITH stored AS ({insert} RETURNING seq) {update_sql} "
                   "AND EXISTS (SELECT FROM stored)")
            params.extend(values)
        else:
            sql = insert
        connection = self.engine.raw_connection()
        try:
            driver = connection.driver_connection
            assert driver is not None
            driver.autocommit = True
            try:
                with driver.cursor() as cursor:
                    cursor.execute(sql, params)
            except dbapi.IntegrityError as e:
                raise ConflictError(
                    f"match {match_id}: position {expected_seq} was taken by another writer",
                    next_seq=None,
                ) from e
            finally:
                if not driver.closed:
                    driver.autocommit = False
        finally:
            connection.close()

    def read(self, match_id: str, after: int = -1, limit: int | None = None) -> list[StoredEvent]:
        """The events of ``match_id`` with seq > ``after``, in order."""
        # every request on a live match runs this once (catching its cache up): driver direct
        mark = self._mark
        sql = ("SELECT seq, type, body, hash, action_id FROM events "
               f"WHERE match_id = {mark} AND seq > {mark} ORDER BY seq")
        params: tuple[Any, ...] = (match_id, after)
        if limit is not None:
            sql += f" LIMIT {mark}"
            params += (limit,)
        connection = self.engine.raw_connection()
        try:
            if self.dialect == "postgresql":
                # one SELECT in autocommit: no BEGIN and COMMIT round trips around it
                driver = connection.driver_connection
                assert driver is not None
                driver.autocommit = True
                try:
                    with driver.cursor() as cursor:
                        cursor.execute(sql, params)
                        rows = cursor.fetchall()
                finally:
                    if not driver.closed:
                        driver.autocommit = False
            else:
                cursor = connection.cursor()
                try:
                    cursor.execute(sql, params)
                    rows = cursor.fetchall()
                finally:
                    cursor.close()
                connection.commit()  # end the read transaction
        finally:
            connection.close()
        return [StoredEvent(*row) for row in rows]

    def head_seq(self, match_id: str) -> int:
        """The highest stored seq of a match (-1 when it has none)."""
        with self.engine.connect() as conn:
            value = conn.execute(select(func.max(_EVENTS.c.seq))
                                 .where(_EVENTS.c.match_id == match_id)).scalar()
        return -1 if value is None else int(value)

    def find_action(self, match_id: str, action_id: str) -> StoredEvent | None:
        """The stored event carrying ``action_id``, if a move with it was recorded."""
        query = (select(_EVENTS.c.seq, _EVENTS.c.type, _EVENTS.c.body, _EVENTS.c.hash,
                        _EVENTS.c.action_id)
                 .where(_EVENTS.c.match_id == match_id, _EVENTS.c.action_id == action_id))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else StoredEvent(*row)

    # --- matches ------------------------------------------------------------------------------

    def create_match(self, row: Mapping[str, Any], events: Sequence[StoredEvent],
                     log_leaf: bytes | None = None) -> int | None:
        """Insert a new match row and its first events; ConflictError if the id exists.
        With ``log_leaf`` (the genesis leaf) append it to the transparency log in the same
        transaction and return its index."""
        event_rows = [
            {"match_id": row["id"], "seq": stored.seq, "type": stored.type, "body": stored.body,
             "hash": stored.hash, "action_id": stored.action_id}
            for stored in events
        ]
        try:
            with self._transaction() as conn:
                conn.execute(insert(_MATCHES), [dict(row)])
                if event_rows:
                    conn.execute(insert(_EVENTS), event_rows)
                if log_leaf is not None:
                    return append_leaf(conn, "genesis", row["id"], log_leaf)
                return None
        except IntegrityError as e:
            if self.match(row["id"]) is None:
                with self.engine.connect() as conn:
                    used = genesis_index(conn, row["id"])
                if used is not None:  # the unique index refused a second genesis leaf
                    raise MatchIdUsed(row["id"], used) from e
                raise  # not a duplicate id: a bug in the caller, not a conflict
            raise ConflictError(f"a match with id {row['id']!r} already exists",
                                code="match-exists") from e

    def match(self, match_id: str) -> dict[str, Any] | None:
        """The match row as a dict, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(_MATCH, {"match_id": match_id}).mappings().first()
        return None if row is None else dict(row)

    def update_match(self, match_id: str, values: Mapping[str, Any]) -> None:
        """Change mutable match fields (never an event)."""
        with self._transaction() as conn:
            conn.execute(update(_MATCHES).where(_MATCHES.c.id == match_id).values(**values))

    def matches(self, limit: int = 50, offset: int = 0, game: str | None = None,
                status: Iterable[str] | None = None, sealed_by: str | None = None,
                sealed_by_other_than: str | None = None) -> list[dict[str, Any]]:
        """Match rows, newest first. ``sealed_by`` keeps the matches sealed under that public
        key (``ed25519:<hex>``), ``sealed_by_other_than`` those sealed under any other key;
        a match not sealed yet is in neither."""
        query = select(_MATCHES).order_by(_MATCHES.c.created_ms.desc(), _MATCHES.c.id)
        if game is not None:
            query = query.where(_MATCHES.c.game == game)
        if status is not None:
            query = query.where(_MATCHES.c.status.in_(list(status)))
        if sealed_by is not None:
            query = query.where(_MATCHES.c.seal_key == sealed_by)
        if sealed_by_other_than is not None:
            query = query.where(_MATCHES.c.seal_key.is_not(None),
                                _MATCHES.c.seal_key != sealed_by_other_than)
        if offset > MAX_OFFSET:  # past any table, and past what SQL's integers hold
            return []
        query = query.limit(limit).offset(offset)
        with self.engine.connect() as conn:
            return [dict(row) for row in conn.execute(query).mappings()]

    def matches_after(self, after: tuple[int, str] | None, limit: int,
                      status: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Match rows oldest first, from just after ``(created_ms, id)``: a keyset page, so a
        long read is not shifted by matches created while it runs."""
        query = select(_MATCHES).order_by(_MATCHES.c.created_ms, _MATCHES.c.id)
        if after is not None:
            query = query.where(tuple_(_MATCHES.c.created_ms, _MATCHES.c.id) > after)
        if status is not None:
            query = query.where(_MATCHES.c.status.in_(list(status)))
        with self.engine.connect() as conn:
            return [dict(row) for row in conn.execute(query.limit(limit)).mappings()]

    def has_player(self, name: str) -> bool:
        """Whether any match here has ``name`` at a seat: a look at the rows' seat names,
        never a bundle read, so the viewer answers an audit of a name no match has at once.
        ``seat_names`` is the JSON list of the names (``json.dumps``): the name's own JSON
        text, quotes included, narrows the rows in SQL (LIKE, its wildcards escaped), and the
        few it also admits (a name inside another, beside an escaped quote) are read exactly."""
        quoted = json.dumps(name)
        pattern = "%" + "".join("\\" + c if c in "\\%_" else c for c in quoted) + "%"
        query = select(_MATCHES.c.seat_names).where(
            _MATCHES.c.seat_names.like(pattern, escape="\\"))
        with self.engine.connect() as conn:
            return any(name in json.loads(row[0]) for row in conn.execute(query))

    def count_matches(self, game: str | None = None,
                      status: Iterable[str] | None = None) -> int:
        query = select(func.count()).select_from(_MATCHES)
        if game is not None:
            query = query.where(_MATCHES.c.game == game)
        if status is not None:
            query = query.where(_MATCHES.c.status.in_(list(status)))
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Ids of live matches whose deadline (the seating's, or the turn's) has passed."""
        query = (select(_MATCHES.c.id)
                 .where(_MATCHES.c.status.in_(("seating", "playing")),
                        _MATCHES.c.deadline_ms.is_not(None),
                        _MATCHES.c.deadline_ms <= now_ms)
                 .order_by(_MATCHES.c.deadline_ms).limit(limit))
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(query)]
