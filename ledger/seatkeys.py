"""The index from a seat key to the matches it signed (table ``seat_keys``, ledger.tables).

A seat's key is the identity nobody else can use: its name is free text, its key is not. The
events table holds each ``seat_key`` event, but only inside its JSON body; this index holds one
row per such event — the match, the seat, the key id (``verifier.keys.key_id``), the key, the
match's creation time, and whether the seat signed with it — so a key's matches are read newest
first from one index (``seat_keys_by_key``) on SQLite and PostgreSQL alike, however big the
store.

Registering a key proves nothing: anyone can register anyone's public key, and a seat that then
signs nothing (the server declines its seed at the deadline, times its turns out) would put a
match on that key's page that its holder never played. So a row counts only once the seat
signed an event with the key (``signed``): under fairdeal/2 its seed event, which a seat with a
key must sign; for an imported match any signed event. A live fairdeal/1 match (its seeds are
not signed) counts only once it is imported or the store is filled again.

The row is derived from the event alone and written in the same transaction (the write path
and ``EventStore.create_match``), so the index never says more or less than the events. A store
made before the index existed gets it when it opens (``fill_missing``, from ``create_schema``):
the rows are derived from the events already stored, and the index on the key id is created
last — its presence is what says the filling is done, so a process killed half-way fills again
on its next start.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    bindparam,
    func,
    insert,
    inspect,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from fairdeal.verifier.keys import InvalidKey, key_id, parse_public_key
from fairdeal.verifier.protocol import SEAT_SIGNED_TYPES

from .tables import MatchRow, SeatKeyRow

__all__ = ["KEY_INDEX", "SeatKeyReads", "fill_missing", "insert_seat_keys", "mark_signed",
           "page_query", "seat_key_rows", "signed_seats"]

_SEAT_KEYS = SeatKeyRow.__table__  # type: ignore[attr-defined]
_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]
#: the rows that count: the seat signed with its key (registering one proves nothing)
_SIGNED = _SEAT_KEYS.c.signed == true()
#: the index every listing by key reads; created after the table is filled (see the module doc)
KEY_INDEX = ("CREATE INDEX IF NOT EXISTS seat_keys_by_key ON seat_keys "
             "(key_id, signed, created_ms, match_id)")
#: a key id is this many hex digits (verifier.keys.key_id)
KEY_ID_DIGITS = 16
_SEED_TYPES = ("seed_commit", "client_seed", "seed_reveal")


def seat_key_rows(match_id: str, events: Iterable[tuple[int, str, str]]
                  ) -> tuple[list[dict[str, Any]], set[int]]:
    """The index rows of the ``seat_key`` events among ``events`` (``(seq, type, body)``,
    the body canonical JSON), and the seats that signed a seed event among them (what proves
    a key: ``signed``). A key that is not well-formed is no identity: no row (the recorder
    and the import's verifier refuse one before it is stored anyway).

    Only signed *seed* events are looked for on the write path: under fairdeal/2 a seat with
    a key must sign its seed event, once per match, so finding them costs the moves nothing.
    A whole match (an import, the filling of an older store) is read with ``proofs=all``
    through ``signed_seats``."""
    rows = []
    proven: set[int] = set()
    for seq, kind, body in events:
        if kind in _SEED_TYPES and '"sig":' in body:
            proven.add(int(json.loads(body)["seat"]))
        if kind != "seat_key":
            continue
        event = json.loads(body)
        try:
            raw = parse_public_key(event.get("public_key"))
        except InvalidKey:
            continue
        rows.append({"match_id": match_id, "seq": seq, "seat": int(event["seat"]),
                     "key_id": key_id(raw), "public_key": event["public_key"],
                     "signed": False})
    return rows, proven


def signed_seats(events: Iterable[tuple[int, str, str]]) -> set[int]:
    """The seats that signed any event among ``events`` (a whole match's)."""
    return {int(json.loads(body)["seat"]) for _, kind, body in events
            if kind in SEAT_SIGNED_TYPES and '"sig":' in body}


def mark_signed(conn: Connection, match_id: str, seats: Iterable[int]) -> None:
    """Record in the caller's transaction that these seats of the match signed with their
    key."""
    for seat in seats:
        conn.execute(update(_SEAT_KEYS).where(_SEAT_KEYS.c.match_id == match_id,
                                              _SEAT_KEYS.c.seat == seat)
                     .values(signed=True))


def insert_seat_keys(conn: Connection, rows: Sequence[dict[str, Any]], *,
                     skip_existing: bool = False) -> None:
    """Write index rows in the caller's transaction, each with its match's creation time.
    ``skip_existing``: a row already there is left as it is (two processes filling a store
    at once write the same rows)."""
    for row in rows:
        created = (select(_MATCHES.c.created_ms)
                   .where(_MATCHES.c.id == row["match_id"]).scalar_subquery())
        statement: Any = insert(_SEAT_KEYS)
        if skip_existing:
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            statement = dialect.insert(_SEAT_KEYS).on_conflict_do_nothing()
        conn.execute(statement.values(**row, created_ms=created))


def fill_missing(conn: Connection) -> int:
    """Derive the index from the stored events where the store has none yet (a store made
    before it): once, then the key-id index is created, which marks it done. Returns how many
    rows were written (0 when the index was there already)."""
    if any(index["name"] == "seat_keys_by_key"
           for index in inspect(conn).get_indexes("seat_keys")):
        return 0
    found = conn.execute(text(
        "SELECT e.match_id, e.seq, e.type, e.body FROM events e WHERE e.type = 'seat_key' "
        "AND NOT EXISTS (SELECT 1 FROM seat_keys k WHERE k.match_id = e.match_id "
        "AND k.seq = e.seq)")).all()
    rows = [row for match_id, seq, kind, body in found
            for row in seat_key_rows(match_id, [(seq, kind, body)])[0]]
    insert_seat_keys(conn, rows, skip_existing=True)
    # which of those seats signed: their matches' signed events, read once
    signed = conn.execute(text(
        "SELECT e.match_id, e.seq, e.type, e.body FROM events e WHERE e.body LIKE '%\"sig\":%' "
        "AND e.match_id IN (SELECT k.match_id FROM seat_keys k WHERE NOT k.signed)")).all()
    by_match: dict[str, list[tuple[int, str, str]]] = {}
    for match_id, seq, kind, body in signed:
        by_match.setdefault(match_id, []).append((seq, kind, body))
    for match_id, events in by_match.items():
        mark_signed(conn, match_id, signed_seats(events))
    conn.execute(text(KEY_INDEX))
    return len(rows)


def _hex_range(prefix: str) -> tuple[str, str]:
    """``[low, high)`` holding every lowercase hex text that starts with ``prefix``: a range
    an index answers in both dialects (LIKE would not use it on either)."""
    return prefix, prefix + "g"


def page_query(kid: str, limit: int, before: tuple[int, str] | None = None) -> Any:
    """The ids of one page of a key's matches, newest first: a range of the key's index,
    read in its order (no sort), from just before ``before``."""
    page = (select(_SEAT_KEYS.c.match_id, _SEAT_KEYS.c.created_ms).distinct()
            .where(_SEAT_KEYS.c.key_id == kid, _SIGNED))
    if before is not None:
        created, match_id = before
        page = page.where((_SEAT_KEYS.c.created_ms < created)
                          | ((_SEAT_KEYS.c.created_ms == created)
                             & (_SEAT_KEYS.c.match_id < match_id)))
    return (page.order_by(_SEAT_KEYS.c.created_ms.desc(), _SEAT_KEYS.c.match_id.desc())
            .limit(limit))


class SeatKeyReads:
    """The queries over the index: which key ids start with a prefix, a key's matches newest
    first (a keyset page), and the light columns its record is counted from."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def key_ids(self, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` distinct key ids starting with ``prefix`` (lowercase hex): one
        probe of the index each (a DISTINCT would read every row of a busy key)."""
        low, high = _hex_range(prefix)
        found: list[str] = []
        with self.engine.connect() as conn:
            while len(found) < limit:
                after = (_SEAT_KEYS.c.key_id > found[-1]) if found else \
                    (_SEAT_KEYS.c.key_id >= low)
                kid = conn.execute(select(_SEAT_KEYS.c.key_id)
                                   .where(after, _SEAT_KEYS.c.key_id < high, _SIGNED)
                                   .order_by(_SEAT_KEYS.c.key_id).limit(1)).scalar()
                if kid is None:
                    break
                found.append(kid)
        return found

    def public_keys(self, kid: str) -> list[str]:
        """The public keys under one key id (one, unless 64 bits of a hash collided)."""
        query = (select(_SEAT_KEYS.c.public_key).distinct()
                 .where(_SEAT_KEYS.c.key_id == kid, _SIGNED)
                 .order_by(_SEAT_KEYS.c.public_key))
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(query)]

    def matches(self, kid: str, limit: int,
                before: tuple[int, str] | None = None) -> list[dict[str, Any]]:
        """The match rows ``kid`` signed a seat of, newest first (``created_ms``, then id,
        descending), from just before ``before``; each with ``key_seats``, the seats it held."""
        page = page_query(kid, limit, before).subquery()
        query = (select(_MATCHES).join(page, page.c.match_id == _MATCHES.c.id)
                 .order_by(_MATCHES.c.created_ms.desc(), _MATCHES.c.id.desc()))
        with self.engine.connect() as conn:
            rows = [dict(row) for row in conn.execute(query).mappings()]
            seats = self._seats(conn, kid, [row["id"] for row in rows])
        for row in rows:
            row["key_seats"] = seats.get(row["id"], [])
        return rows

    @staticmethod
    def _seats(conn: Connection, kid: str, match_ids: list[str]) -> dict[str, list[int]]:
        if not match_ids:
            return {}
        # by the primary key (the page's few matches), the key compared here: a filter on
        # the key id would lead the planner to read every row of a busy key
        query = (select(_SEAT_KEYS.c.match_id, _SEAT_KEYS.c.seat, _SEAT_KEYS.c.key_id,
                        _SEAT_KEYS.c.signed)
                 .where(_SEAT_KEYS.c.match_id.in_(bindparam("ids", expanding=True)))
                 .order_by(_SEAT_KEYS.c.seat))
        seats: dict[str, list[int]] = {}
        for match_id, seat, found, signed in conn.execute(query, {"ids": match_ids}):
            if found == kid and signed:
                seats.setdefault(match_id, []).append(seat)
        return seats

    def record_counts(self, kid: str) -> dict[str, Any]:
        """What a key's record is counted from, grouped in SQL so that it costs a few small
        answers however many matches the key played: ``by_result`` (game, seat, result JSON,
        seat names JSON, how many), and ``both_seats`` (game, result JSON) of each match the
        key held more than one seat of."""
        joined = _SEAT_KEYS.join(_MATCHES, _MATCHES.c.id == _SEAT_KEYS.c.match_id)
        columns = (_MATCHES.c.game, _SEAT_KEYS.c.seat, _MATCHES.c.result, _MATCHES.c.seat_names)
        by_result = (select(*columns, func.count()).select_from(joined)
                     .where(_SEAT_KEYS.c.key_id == kid, _SIGNED).group_by(*columns))
        # from the key's index alone (no join): the matches it holds two seats of
        twice = (select(_SEAT_KEYS.c.match_id)
                 .where(_SEAT_KEYS.c.key_id == kid, _SIGNED)
                 .group_by(_SEAT_KEYS.c.match_id).having(func.count() > 1))
        with self.engine.connect() as conn:
            grouped = [tuple(row) for row in conn.execute(by_result)]
            doubled = [row[0] for row in conn.execute(twice)]
            both = [tuple(row) for row in conn.execute(
                select(_MATCHES.c.game, _MATCHES.c.result)
                .where(_MATCHES.c.id.in_(bindparam("ids", expanding=True))),
                {"ids": doubled})] if doubled else []
        return {"by_result": grouped, "both_seats": both}

    def keys_of(self, match_ids: Sequence[str]) -> dict[str, dict[int, str]]:
        """The key id at each seat that registered one, by match (seats without a key are
        absent)."""
        if not match_ids:
            return {}
        query = (select(_SEAT_KEYS.c.match_id, _SEAT_KEYS.c.seat, _SEAT_KEYS.c.key_id)
                 .where(_SEAT_KEYS.c.match_id.in_(bindparam("ids", expanding=True)), _SIGNED))
        found: dict[str, dict[int, str]] = {}
        with self.engine.connect() as conn:
            for match_id, seat, kid in conn.execute(query, {"ids": list(match_ids)}):
                found.setdefault(match_id, {})[seat] = kid
        return found

    def seat_counts(self) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """Over the matches created here (not imported): by key id, ``[created, unsealed]``
        (a match counted once per key); and by name, the same for the seats that signed with
        a key (what the log's counts by name also hold, ``ReadSide.player_counts``)."""
        query = (select(_SEAT_KEYS.c.key_id, _SEAT_KEYS.c.match_id, _SEAT_KEYS.c.seat,
                        _MATCHES.c.seat_names, _MATCHES.c.status)
                 .join(_MATCHES, _MATCHES.c.id == _SEAT_KEYS.c.match_id)
                 .where(_MATCHES.c.status != "imported", _SIGNED))
        by_key: dict[str, list[int]] = {}
        by_name: dict[str, list[int]] = {}
        seen: set[tuple[str, str]] = set()
        with self.engine.connect() as conn:
            for kid, match_id, seat, seat_names, status in conn.execute(query):
                unsealed = int(status != "ended")
                names = json.loads(seat_names)
                if 0 <= seat < len(names):
                    counts = by_name.setdefault(names[seat], [0, 0])
                    counts[0] += 1
                    counts[1] += unsealed
                if (kid, match_id) not in seen:
                    seen.add((kid, match_id))
                    counts = by_key.setdefault(kid, [0, 0])
                    counts[0] += 1
                    counts[1] += unsealed
        return by_key, by_name
