"""Rate-limit buckets in the ledger's database, so every server process on it counts together.

Under ``gunicorn -w 4`` each worker kept its own buckets, and a client got four times the
limit; a fleet of servers on one PostgreSQL database multiplied it again. Here a bucket is a
row, ``rate_buckets(kind, client, tokens, stamp, spent)``, and taking a token is one
statement — an upsert that refills the bucket for the time since its stamp, takes a token when
there is one, and returns what it did — so two processes taking at once cannot both spend the
last token (SQLite has one writer; PostgreSQL locks the row for the conflict update).

Where: on PostgreSQL, the ledger's own database (a take locks one bucket row, nothing else).
On SQLite, a file of their own beside the ledger's (``ledger-ratelimits.db``): a take is a
write, and in the ledger's file it would queue for the ledger's one write lock and, being
another connection's commit, make every process read its cached matches again (the ledger
notices other writers through ``PRAGMA data_version``).

The clock is the wall clock (``time.time``), the one all processes share; a clock set back
refills nothing rather than draining the bucket. A bucket left alone for as long as the
longest limit's period is full again, exactly as if it had never been used: such rows are
deleted now and then, which bounds the table by the clients of the last period.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Boolean, Column, Float, MetaData, String, Table, text
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateTable

from .database import SCHEMA_LOCK, open_engine
from .storeerrors import translated

__all__ = ["RATE_BUCKETS", "SharedBuckets", "buckets_engine"]

_METADATA = MetaData()
RATE_BUCKETS = Table(
    "rate_buckets", _METADATA,
    Column("kind", String(16), primary_key=True),
    Column("client", String(200), primary_key=True),
    Column("tokens", Float, nullable=False),
    Column("stamp", Float, nullable=False),
    #: whether the last take got a token
    Column("spent", Boolean, nullable=False),
)
#: takes between two sweeps of the rows that are full again (per process)
_SWEEP_EVERY = 500
#: a client address is cut to this (the column's width): an address is far shorter
_CLIENT_CHARS = 200

# :count, :rate and :now bind the limit and the moment; the refill is the bucket's tokens plus
# what the time since its stamp earned, at most :count; a token is taken when the refill holds
# one; ``spent`` says whether it did (RETURNING reports the row after the update). The stamp
# never moves back: a clock set back refills nothing.
_TAKE = """
INSERT INTO rate_buckets (kind, client, tokens, stamp, spent)
VALUES (:kind, :client, :count - 1, :now, TRUE)
ON CONFLICT (kind, client) DO UPDATE SET
    tokens = CASE WHEN {refill} >= 1 THEN {refill} - 1 ELSE {refill} END,
    spent = ({refill} >= 1),
    stamp = CASE WHEN :now > rate_buckets.stamp THEN :now ELSE rate_buckets.stamp END
RETURNING tokens, spent
"""
_REFILL = {
    "sqlite": "MIN(:count, rate_buckets.tokens + MAX(0, :now - rate_buckets.stamp) * :rate)",
    "postgresql": ("LEAST(CAST(:count AS double precision), rate_buckets.tokens"
                   " + GREATEST(0, CAST(:now AS double precision) - rate_buckets.stamp)"
                   " * CAST(:rate AS double precision))"),
}


def buckets_engine(ledger_engine: Engine) -> Engine:
    """Where the buckets of the ledger on ``ledger_engine`` live (see the module's text): the
    same engine on PostgreSQL; on SQLite an engine on ``<ledger>-ratelimits.db`` beside it."""
    if ledger_engine.dialect.name != "sqlite":
        return ledger_engine
    database = ledger_engine.url.database
    if not database:
        raise ValueError("the ledger's SQLite database has no file")
    ledger_file = Path(database)
    path = ledger_file.with_name(f"{ledger_file.stem}-ratelimits.db")
    # the ledger's own engine settings (WAL, the busy timeout, its synchronous level), without
    # the ledger's tables
    return open_engine(f"sqlite:///{path}", create=False)


class SharedBuckets:
    """Token buckets per (kind, client) beside the ledger on ``ledger_engine`` (the table is
    created when missing). ``take`` answers None when allowed, else the seconds until a token
    is back. Both raise the store's errors (ledger.storeerrors), never the driver's."""

    @translated
    def __init__(self, ledger_engine: Engine, clock: Callable[[], float] = time.time) -> None:
        dialect = ledger_engine.dialect.name
        if dialect not in _REFILL:
            raise ValueError(f"no shared rate limits on {dialect}")
        self.engine = buckets_engine(ledger_engine)
        self.clock = clock
        refill = _REFILL[dialect]
        self._take = text(_TAKE.format(refill=refill))
        self._takes = 0
        self._lock = threading.Lock()
        # every worker of a server makes one of these as it starts, often at the same moment:
        # "create unless there" must be one statement (SQLite) or taken in turns (PostgreSQL),
        # not a look followed by a CREATE another worker may win
        with self.engine.begin() as conn:
            if self.engine.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": SCHEMA_LOCK})
            conn.execute(CreateTable(RATE_BUCKETS, if_not_exists=True))

    @translated
    def take(self, kind: str, client: str, count: int, seconds: float,
             longest_s: float | None = None) -> float | None:
        """Take a token from (kind, client)'s bucket of ``count`` refilled over ``seconds``.
        ``longest_s`` (the longest period of any limit) lets the sweep know which buckets
        are full again."""
        rate = count / seconds
        now = self.clock()
        with self.engine.begin() as conn:
            tokens, spent = conn.execute(self._take, {
                "kind": kind, "client": client[:_CLIENT_CHARS], "count": count,
                "rate": rate, "now": now}).one()
        self._maybe_sweep(now, longest_s or seconds)
        if spent:
            return None
        return (1 - float(tokens)) / rate

    def _maybe_sweep(self, now: float, longest_s: float) -> None:
        with self._lock:
            self._takes += 1
            if self._takes % _SWEEP_EVERY:
                return
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM rate_buckets WHERE stamp < :cutoff"),
                         {"cutoff": now - longest_s})
