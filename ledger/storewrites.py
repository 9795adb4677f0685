"""The store's write path: every write of an ``EventStore`` goes through one ``WritePath``.

On SQLite, concurrent appends share a commit (group commit): at ``synchronous=FULL`` one fsync
makes a whole batch durable, and each append still returns only once its batch is committed,
so an acknowledged move is as durable as before. Every write goes through one connection of
the write path's own, which is how ``outside_writes`` tells its own writes from everyone
else's. On PostgreSQL an append is one statement in autocommit.

The hot path talks to the driver directly (building SQLAlchemy statements costs more than
SQLite takes to run them), so this module raises the driver's errors as they are: the store
translates them at its edge (ledger.storeerrors). A position already taken is a
``ConflictError`` from here.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, insert, update
from sqlalchemy.exc import IntegrityError

from .database import autocommit_cursor
from .errors import ConflictError
from .seatkeys import insert_seat_keys, mark_signed
from .tables import EventRow, MatchRow
from .tlog import append_leaf

__all__ = ["WritePath"]

_EVENTS = EventRow.__table__  # type: ignore[attr-defined]
_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]
_EVENT_INSERT = ("INSERT INTO events (match_id, seq, type, body, hash, action_id) "
                 "VALUES (?, ?, ?, ?, ?, ?)")
_EVENT_COLUMNS = ("match_id", "seq", "type", "body", "hash", "action_id")
_MATCH_COLUMNS = frozenset(_MATCHES.c.keys())
# the statements of the rare appends, built once: building one costs more than SQLite takes
# to run it (the columns an UPDATE sets are the keys of the parameters it is given)
_EVENTS_STATEMENT = insert(_EVENTS)
_MATCH_UPDATE = update(_MATCHES).where(_MATCHES.c.id == bindparam("match_row_id"))


def _taken(match_id: str, expected_seq: int) -> ConflictError:
    """Another writer stored at the position an append expected (or used its action id)."""
    return ConflictError(f"match {match_id}: position {expected_seq} was taken by another "
                         "writer", next_seq=None)


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


class WritePath:
    """Appends (group-committed on SQLite), write transactions, and whose writes the database
    holds (``outside_writes``): serve one cache of matches (one ``LiveMatches``) per store."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
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
        #: the match row's UPDATE statements by the columns they set (``_update_sql``)
        self._updates: dict[tuple[str, ...], str] = {}

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
    def transaction(self) -> Iterator[Connection]:
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

    # --- appends ------------------------------------------------------------------------------

    def append(self, match_id: str, expected_seq: int, rows: list[tuple[Any, ...]],
               match_update: Mapping[str, Any] | None, log_leaf: bytes | None,
               seat_keys: Sequence[dict[str, Any]] = (),
               proven: Collection[int] = ()) -> int | None:
        """Store ``rows`` (one per event, in the events table's column order) and apply
        ``match_update`` in one transaction; with ``log_leaf`` append it to the transparency
        log too and return its index; with ``seat_keys`` (ledger.seatkeys rows of the
        ``seat_key`` events among them) write those index rows too, and mark the seats in
        ``proven`` (they signed a seed event) as signed. ConflictError when a position is
        taken."""
        update_sql = None
        values: list[Any] = []
        if match_update:
            columns = tuple(sorted(match_update))
            update_sql = self._updates.get(columns)
            if update_sql is None:
                update_sql = self._update_sql(columns)
            values = [match_update[c] for c in columns]
            values.append(match_id)
        if log_leaf is not None or seat_keys or proven:
            # rare (a seal, a key registered, its first signature): an ordinary transaction,
            # not the fast paths
            return self._append_logged(match_id, expected_seq, rows, match_update, log_leaf,
                                       seat_keys, proven)
        if self.dialect == "postgresql":
            self._append_in_one_statement(match_id, expected_seq, rows, update_sql, values)
            return None
        self._group_commit(_Append(match_id, expected_seq, rows, update_sql, values))
        return None

    def _update_sql(self, columns: tuple[str, ...]) -> str:
        """The UPDATE of the match row setting ``columns`` (sorted), made once per set of
        columns: a move sets the same two or three every time."""
        unknown = set(columns) - _MATCH_COLUMNS
        if unknown:
            raise ValueError(f"no column {sorted(unknown)[0]!r} in matches")
        mark = self._mark
        sql = (f"UPDATE matches SET {', '.join(f'{c} = {mark}' for c in columns)} "
               f"WHERE id = {mark}")
        self._updates[columns] = sql
        return sql

    def _group_commit(self, job: _Append) -> None:
        """One thread at a time leads, committing every append queued so far in one
        transaction (one fsync at synchronous=FULL); the others wait for their batch to be
        committed, or to be handed the lead of the next one."""
        dbapi = self.engine.dialect.dbapi
        assert dbapi is not None
        with self._queue_lock:
            self._queue.append(job)
            # whether to wait is decided here, under the lock: the leader may hand this job
            # the lead (``leads`` set, ``waiting`` released) before it reaches the wait, and
            # a job that then skipped the wait released its lock twice -- a RuntimeError once
            # its batch was committed (a 500 for a stored move), the rest of the batch left
            # waiting for good
            job.leads = not self._leading
            waits = not job.leads
            self._leading = True
        if waits:
            job.waiting.acquire()
        if job.leads:
            self._lead(dbapi)
        if job.error is not None:
            raise job.error

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
        try:
            connection = self._own_connection().connection
            cursor = connection.cursor()
        except BaseException as e:  # no connection: the whole batch fails, nothing stored
            for job in batch:
                job.error = e
            self._drop_own_connection()
            return
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
                    job.error = _taken(job.match_id, job.expected_seq)
                    job.error.__cause__ = e
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

    def _append_logged(self, match_id: str, expected_seq: int,
                       rows: Sequence[tuple[Any, ...]], match_update: Mapping[str, Any] | None,
                       leaf: bytes | None, seat_keys: Sequence[dict[str, Any]],
                       proven: Collection[int]) -> int | None:
        """The rare append that also logs a leaf (a seal) or indexes a seat key: one ordinary
        transaction, the events and the match row written first so SQLite holds its write
        lock before the log's size is read."""
        try:
            with self.transaction() as conn:
                conn.execute(_EVENTS_STATEMENT, [dict(zip(_EVENT_COLUMNS, row, strict=True))
                                                 for row in rows])
                insert_seat_keys(conn, seat_keys)
                mark_signed(conn, match_id, proven)
                if match_update:
                    conn.execute(_MATCH_UPDATE, {**match_update, "match_row_id": match_id})
                return None if leaf is None else append_leaf(conn, "seal", match_id, leaf)
        except IntegrityError as e:
            raise _taken(match_id, expected_seq) from e

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
        try:
            with autocommit_cursor(self.engine) as cursor:
                cursor.execute(sql, params)
        except dbapi.IntegrityError as e:
            raise _taken(match_id, expected_seq) from e


    def update_match(self, match_id: str, values: Mapping[str, Any]) -> None:
        """Change mutable match fields (never an event), in a write transaction."""
        with self.transaction() as conn:
            conn.execute(update(_MATCHES).where(_MATCHES.c.id == match_id).values(**values))
