"""The event store: a small, game-agnostic interface over the two tables.

    store = EventStore(open_engine("sqlite:////tmp/ledger.db"))
    store.append(match_id, expected_seq=5, events=[event5], match_update={"next_seq": 6})
    store.read(match_id, after=4)          # [event5]

Append-only for real: SQLite and PostgreSQL triggers refuse every UPDATE or DELETE on
``events`` (and TRUNCATE on PostgreSQL). Optimistic concurrency: ``append`` names the position
it expects to write; the primary key (match_id, seq) lets exactly one writer take a slot, and
the loser gets a ConflictError translated from the driver's IntegrityError. A unique
(match_id, action_id) makes a retried move detectable (``find_action``).

The store is composed of parts: opening the database (ledger.database: the engine's settings,
the tables, the triggers), the write path (ledger.storewrites: group commit, whose writes) and
the queries (ledger.storereads). ``EventStore`` is its edge: each of its calls raises the
store's own errors (ledger.storeerrors: ``StoreUnavailable`` when the database is away),
never a driver's.

SQLite runs in WAL mode with a busy timeout and ``synchronous=NORMAL``: an acknowledged append
survives a killed process (the WAL is in the OS cache); only a power cut may lose the last
transactions. PostgreSQL keeps its own durability settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, insert
from sqlalchemy.exc import IntegrityError

from .database import DB_FILE, database_url, open_engine
from .errors import ConflictError
from .ratelimits import SharedBuckets
from .seatkeys import SeatKeyReads, insert_seat_keys, seat_key_rows, signed_seats
from .storeerrors import translated
from .storereads import StoredEvent, StoreReads
from .storewrites import WritePath
from .tables import EventRow, MatchRow
from .tlog import MatchIdUsed, append_leaf, genesis_index

__all__ = [
    "DB_FILE",
    "EventStore",
    "StoredEvent",
    "database_url",
    "open_engine",
]

_EVENTS = EventRow.__table__  # type: ignore[attr-defined]
_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]
#: built once (building a statement costs more than SQLite takes to run it)
_MATCH_INSERT = insert(_MATCHES)
_EVENTS_INSERT = insert(_EVENTS)


class EventStore:
    """Append with an expected position, read after a position; plus the match rows.

    On SQLite, concurrent appends share a commit (group commit, ``WritePath``): each append
    still returns only once its batch is committed. Every write of the store goes through one
    connection of its own, which is how ``outside_writes`` tells its own writes from everyone
    else's: serve one cache of matches (one ``LiveMatches``) per store. Every call raises the
    store's errors (``StoreUnavailable``, ``StoreError``), ``ConflictError`` when another
    writer took the position, never the database driver's.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: the write path: appends, transactions, whose writes
        self.writes = WritePath(engine)
        #: the queries
        self.reads = StoreReads(engine)
        #: the queries of the seat-key index (ledger.seatkeys)
        self.key_reads = SeatKeyReads(engine)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def rate_buckets(self) -> SharedBuckets:
        """The rate limits' buckets beside this store's database (ledger.ratelimits), shared
        by every process serving it; StoreError when they cannot be set up."""
        return SharedBuckets(self.engine)

    @translated
    def outside_writes(self) -> int | None:
        """A count that grows whenever the database is found changed by anyone but this store
        since the last call; None on PostgreSQL, which cannot tell (``WritePath``)."""
        return self.writes.outside_writes()

    # --- events -------------------------------------------------------------------------------

    @translated
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
        keys, proven = seat_key_rows(match_id, ((e.seq, e.type, e.body) for e in events))
        for key in keys:
            key["signed"] = key["seat"] in proven
        return self.writes.append(match_id, expected_seq, rows, match_update, log_leaf, keys,
                                  proven - {key["seat"] for key in keys})

    @translated
    def read(self, match_id: str, after: int = -1, limit: int | None = None) -> list[StoredEvent]:
        """The events of ``match_id`` with seq > ``after``, in order."""
        return self.reads.read(match_id, after, limit)

    @translated
    def head_seq(self, match_id: str) -> int:
        """The highest stored seq of a match (-1 when it has none)."""
        return self.reads.head_seq(match_id)

    @translated
    def find_action(self, match_id: str, action_id: str) -> StoredEvent | None:
        """The stored event carrying ``action_id``, if a move with it was recorded."""
        return self.reads.find_action(match_id, action_id)

    # --- matches ------------------------------------------------------------------------------

    @translated
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
            with self.writes.transaction() as conn:
                conn.execute(_MATCH_INSERT, [dict(row)])
                if event_rows:
                    conn.execute(_EVENTS_INSERT, event_rows)
                    stored = [(e.seq, e.type, e.body) for e in events]
                    keys, _ = seat_key_rows(row["id"], stored)
                    signed = signed_seats(stored)  # a whole match: any signed event
                    insert_seat_keys(conn, [{**key, "signed": key["seat"] in signed}
                                            for key in keys])
                if log_leaf is not None:
                    return append_leaf(conn, "genesis", row["id"], log_leaf)
                return None
        except IntegrityError as e:
            if self.reads.match(row["id"]) is None:
                with self.engine.connect() as conn:
                    used = genesis_index(conn, row["id"])
                if used is not None:  # the unique index refused a second genesis leaf
                    raise MatchIdUsed(row["id"], used) from e
                raise  # not a duplicate id: a bug in the caller, not a conflict
            raise ConflictError(f"a match with id {row['id']!r} already exists",
                                code="match-exists") from e

    @translated
    def match(self, match_id: str) -> dict[str, Any] | None:
        """The match row as a dict, or None."""
        return self.reads.match(match_id)

    @translated
    def update_match(self, match_id: str, values: Mapping[str, Any]) -> None:
        """Change mutable match fields (never an event)."""
        self.writes.update_match(match_id, values)

    @translated
    def matches(self, limit: int = 50, offset: int = 0, game: str | None = None,
                status: Iterable[str] | None = None, sealed_by: str | None = None,
                sealed_by_other_than: str | None = None) -> list[dict[str, Any]]:
        """Match rows, newest first. ``sealed_by`` keeps the matches sealed under that public
        key (``ed25519:<hex>``), ``sealed_by_other_than`` those sealed under any other key;
        a match not sealed yet is in neither."""
        return self.reads.matches(limit, offset, game, status, sealed_by, sealed_by_other_than)

    @translated
    def matches_after(self, after: tuple[int, str] | None, limit: int,
                      status: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Match rows oldest first, from just after ``(created_ms, id)``: a keyset page, so a
        long read is not shifted by matches created while it runs."""
        return self.reads.matches_after(after, limit, status)

    @translated
    def has_player(self, name: str) -> bool:
        """Whether any match here has ``name`` at a seat (a look at the rows' seat names,
        never a bundle read)."""
        return self.reads.has_player(name)

    @translated
    def matches_with_player(self, name: str, limit: int, offset: int = 0
                            ) -> list[dict[str, Any]]:
        """Match rows with ``name`` at a seat (exactly), newest first."""
        return self.reads.matches_with_player(name, limit, offset)

    @translated
    def matches_with_id_prefix(self, prefix: str, limit: int) -> list[dict[str, Any]]:
        """Match rows whose id starts with ``prefix``, by id."""
        return self.reads.matches_with_id_prefix(prefix, limit)

    # --- the seat-key index (ledger.seatkeys) --------------------------------------------------

    @translated
    def key_ids(self, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` key ids that signed a seat here and start with ``prefix``."""
        return self.key_reads.key_ids(prefix, limit)

    @translated
    def key_public_keys(self, kid: str) -> list[str]:
        """The public keys (``ed25519:<hex>``) registered under key id ``kid``."""
        return self.key_reads.public_keys(kid)

    @translated
    def key_matches(self, kid: str, limit: int,
                    before: tuple[int, str] | None = None) -> list[dict[str, Any]]:
        """Match rows ``kid`` signed a seat of, newest first, from just before ``before``
        (``(created_ms, id)``), each with ``key_seats``."""
        return self.key_reads.matches(kid, limit, before)

    @translated
    def key_record_counts(self, kid: str) -> dict[str, Any]:
        """A key's record and names, grouped (``SeatKeyReads.record_counts``)."""
        return self.key_reads.record_counts(kid)

    @translated
    def key_seat_counts(self) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """By key id and by the names of keyed seats: ``[created, unsealed]`` of the matches
        created here (``SeatKeyReads.seat_counts``)."""
        return self.key_reads.seat_counts()

    @translated
    def keys_of(self, match_ids: Sequence[str]) -> dict[str, dict[int, str]]:
        """By match, the key id of each seat that registered a key."""
        return self.key_reads.keys_of(match_ids)

    @translated
    def count_matches(self, game: str | None = None,
                      status: Iterable[str] | None = None) -> int:
        """How many match rows, of ``game`` and in ``status`` when given."""
        return self.reads.count_matches(game, status)

    @translated
    def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Ids of live matches whose deadline (the seating's, or the turn's) has passed."""
        return self.reads.due(now_ms, limit)
