"""The store's read side: the stored event, and every query of the events and match rows.

``read`` is on every request's path (catching a live match's cache up), so it talks to the
driver directly; the other queries are SQLAlchemy statements. Like the write path, this module
raises the database's errors as they are: the store translates them at its edge
(ledger.storeerrors).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, bindparam, func, select, tuple_

from fairdeal.verifier.canonical import canonical_bytes, canonical_bytes_trusted
from fairdeal.verifier.hashing import Tag, tag_prefix

from .database import autocommit_cursor
from .tables import EventRow, MatchRow

__all__ = ["MAX_OFFSET", "StoreReads", "StoredEvent"]

#: a listing offset past this names no row of any table (and an SQL integer overflows soon after)
MAX_OFFSET = 2**62
_EVENT_PREFIX = tag_prefix(Tag.EVENT)
_EVENTS = EventRow.__table__  # type: ignore[attr-defined]
_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]

# statements built once: building a statement costs more than SQLite running it
_MATCH = select(_MATCHES).where(_MATCHES.c.id == bindparam("match_id"))


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


def _name_pattern(name: str) -> str:
    """The LIKE pattern of a name's JSON text (quotes included, wildcards escaped) inside the
    JSON list of the seat names: it admits every row with that name, and a few more."""
    quoted = json.dumps(name)
    return "%" + "".join("\\" + c if c in "\\%_" else c for c in quoted) + "%"


class StoreReads:
    """The queries: a match's events after a position, one event by action id, the match
    rows (one, a page newest first, a keyset page oldest first, a count, the ones due)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"

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
        if self.dialect == "postgresql":
            # one SELECT in autocommit: no BEGIN and COMMIT round trips around it
            with autocommit_cursor(self.engine) as cursor:
                cursor.execute(sql, params)
                rows = cursor.fetchall()
            return [StoredEvent(*row) for row in rows]
        connection = self.engine.raw_connection()
        try:
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

    def match(self, match_id: str) -> dict[str, Any] | None:
        """The match row as a dict, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(_MATCH, {"match_id": match_id}).mappings().first()
        return None if row is None else dict(row)


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
        query = select(_MATCHES.c.seat_names).where(
            _MATCHES.c.seat_names.like(_name_pattern(name), escape="\\"))
        with self.engine.connect() as conn:
            return any(name in json.loads(row[0]) for row in conn.execute(query))

    def matches_with_player(self, name: str, limit: int, offset: int = 0
                            ) -> list[dict[str, Any]]:
        """Match rows with ``name`` at a seat, newest first: narrowed in SQL as ``has_player``
        does, then read exactly (a name inside another is not it)."""
        query = (select(_MATCHES).where(_MATCHES.c.seat_names.like(_name_pattern(name),
                                                                   escape="\\"))
                 .order_by(_MATCHES.c.created_ms.desc(), _MATCHES.c.id))
        found: list[dict[str, Any]] = []
        with self.engine.connect() as conn:
            for row in conn.execute(query).mappings():
                if name in json.loads(row["seat_names"]):
                    found.append(dict(row))
                    if len(found) >= offset + limit:
                        break
        return found[offset:]

    def matches_with_id_prefix(self, prefix: str, limit: int) -> list[dict[str, Any]]:
        """Match rows whose id starts with ``prefix``: a range of the primary key, each row
        checked exactly (a collation may order punctuation otherwise)."""
        query = (select(_MATCHES).where(_MATCHES.c.id >= prefix,
                                        _MATCHES.c.id < prefix + "\x7f")
                 .order_by(_MATCHES.c.id).limit(limit))
        with self.engine.connect() as conn:
            return [dict(row) for row in conn.execute(query).mappings()
                    if row["id"].startswith(prefix)]

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
