"""Tournaments' storage (docs/tournaments.md): the ``tournaments`` row, the append-only
``tournament_events`` and the players' token hashes (ledger.tables).

    store = TournamentStore(engine, writes)
    store.append(tid, expected_seq=3, events=[event3], update={"status": "running"})

An append names the position it expects (``next_seq``); the row is updated only where it still
holds that position, and the events' primary key (tournament, seq) lets one writer take a slot,
so two writers racing (two syncs, a sync and a player) cannot both append: the loser gets a
ConflictError and nothing it wrote is kept. Whatever else the append must do in the same
transaction (a round's matches, a leaf of the transparency log, a player's token hash) is
``extra``, run on the transaction's connection.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.tournament.primitives import event_hash

from .errors import ConflictError, MatchNotFound
from .storeerrors import translated
from .storewrites import WritePath
from .tables import MatchRow, TournamentEventRow, TournamentPlayerRow, TournamentRow
from .tlog import append_leaf

__all__ = ["TournamentNotFound", "TournamentStore"]

_ROWS = TournamentRow.__table__  # type: ignore[attr-defined]
_EVENTS = TournamentEventRow.__table__  # type: ignore[attr-defined]
_PLAYERS = TournamentPlayerRow.__table__  # type: ignore[attr-defined]
_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]

#: what runs inside an append's transaction, on its connection
Extra = Callable[[Connection], None]


class TournamentNotFound(MatchNotFound):
    """No tournament under that id (answered as any unknown id: 404 ``not-found``)."""


def _event_rows(tournament_id: str, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"tournament_id": tournament_id, "seq": event["seq"], "type": event["type"],
             "body": canonical_bytes(event).decode(), "hash": event_hash(event)}
            for event in events]


class TournamentStore:
    """Tournament rows and events over the ledger's database, through the store's write path
    (on SQLite: its one writer connection and lock)."""

    def __init__(self, engine: Engine, writes: WritePath) -> None:
        self.engine = engine
        self.writes = writes

    @translated
    def create(self, row: Mapping[str, Any], header: Mapping[str, Any], leaf: bytes) -> None:
        """The row, the header event and its ``tournament-created`` leaf, together."""
        try:
            with self.writes.transaction() as conn:
                conn.execute(insert(_ROWS), [dict(row)])
                conn.execute(insert(_EVENTS), _event_rows(row["id"], [header]))
                append_leaf(conn, "tournament-created", row["id"], leaf)
        except IntegrityError as e:
            raise ConflictError(f"a tournament with id {row['id']!r} already exists",
                                code="tournament-exists") from e

    @translated
    def append(self, tournament_id: str, expected_seq: int,
               events: Sequence[Mapping[str, Any]], update_row: Mapping[str, Any] | None = None,
               extra: Extra | None = None, leaf: tuple[str, bytes] | None = None) -> None:
        """Store ``events`` at ``expected_seq``… with the row's new head, ``update_row``,
        ``extra`` and the leaf ``(kind, bytes)`` in one transaction; ConflictError
        (``stale-seq``) when another writer took the position first."""
        values = {"next_seq": expected_seq + len(events), "head": event_hash(events[-1]),
                  **(update_row or {})}
        try:
            with self.writes.transaction() as conn:
                moved = conn.execute(update(_ROWS).where(
                    _ROWS.c.id == tournament_id, _ROWS.c.next_seq == expected_seq)
                    .values(**values)).rowcount
                if moved == 1:  # else nothing was written: the transaction ends clean
                    conn.execute(insert(_EVENTS), _event_rows(tournament_id, events))
                    if extra is not None:
                        extra(conn)
                    if leaf is not None:
                        append_leaf(conn, leaf[0], tournament_id, leaf[1])
        except IntegrityError as e:
            raise _stale(tournament_id, expected_seq) from e
        if moved != 1:
            raise _stale(tournament_id, expected_seq)

    @translated
    def set_fields(self, tournament_id: str, values: Mapping[str, Any]) -> None:
        """Change the row's mutable fields (the head signature), never an event."""
        with self.writes.transaction() as conn:
            conn.execute(update(_ROWS).where(_ROWS.c.id == tournament_id).values(**values))

    @translated
    def row(self, tournament_id: str) -> dict[str, Any]:
        """The tournament's row; TournamentNotFound when there is none."""
        with self.engine.connect() as conn:
            found = conn.execute(select(_ROWS).where(_ROWS.c.id == tournament_id)
                                 ).mappings().first()
        if found is None:
            raise TournamentNotFound(f"no tournament {tournament_id!r}")
        return dict(found)

    @translated
    def events(self, tournament_id: str, after: int = -1) -> list[dict[str, Any]]:
        """The events with seq > ``after``, in order, as stored."""
        with self.engine.connect() as conn:
            bodies = conn.execute(select(_EVENTS.c.body).where(
                _EVENTS.c.tournament_id == tournament_id, _EVENTS.c.seq > after)
                .order_by(_EVENTS.c.seq)).scalars().all()
        return [json.loads(body) for body in bodies]

    @translated
    def rows(self, limit: int, before: tuple[int, str] | None) -> list[dict[str, Any]]:
        """Tournament rows newest first, from just before ``(created_ms, id)``."""
        query = select(_ROWS).order_by(_ROWS.c.created_ms.desc(), _ROWS.c.id.desc())
        if before is not None:
            query = query.where((_ROWS.c.created_ms < before[0]) | (
                (_ROWS.c.created_ms == before[0]) & (_ROWS.c.id < before[1])))
        with self.engine.connect() as conn:
            return [dict(row) for row in conn.execute(query.limit(limit)).mappings()]

    @translated
    def rows_of_player(self, player: str, limit: int,
                       before: tuple[int, str] | None) -> list[dict[str, Any]]:
        """The rows of the tournaments ``player`` (a key id) registered in, newest first, from
        just before ``(created_ms, id)`` (over the index of the players by key)."""
        query = (select(_ROWS).join(_PLAYERS, _PLAYERS.c.tournament_id == _ROWS.c.id)
                 .where(_PLAYERS.c.player == player)
                 .order_by(_ROWS.c.created_ms.desc(), _ROWS.c.id.desc()))
        if before is not None:
            query = query.where((_ROWS.c.created_ms < before[0]) | (
                (_ROWS.c.created_ms == before[0]) & (_ROWS.c.id < before[1])))
        with self.engine.connect() as conn:
            return [dict(row) for row in conn.execute(query.limit(limit)).mappings()]

    @translated
    def unfinished(self) -> list[str]:
        """The ids of the tournaments started and not finished (what a sync looks at)."""
        with self.engine.connect() as conn:
            return [str(value) for value in conn.execute(
                select(_ROWS.c.id).where(_ROWS.c.status == "running")).scalars()]

    @translated
    def ended(self, match_ids: Sequence[str]) -> set[str]:
        """Which of ``match_ids`` are sealed: one query for a round's tables, so the sweeper's
        sync costs one read per running tournament while its matches are played."""
        found: set[str] = set()
        with self.engine.connect() as conn:
            for start in range(0, len(match_ids), 500):
                found.update(str(value) for value in conn.execute(
                    select(_MATCHES.c.id).where(_MATCHES.c.id.in_(match_ids[start:start + 500]),
                                                _MATCHES.c.status == "ended")).scalars())
        return found

    @translated
    def player_by_token(self, tournament_id: str, token_hash: str) -> str | None:
        """The key id of the player whose token hashes to ``token_hash``, if any."""
        with self.engine.connect() as conn:
            value = conn.execute(select(_PLAYERS.c.player).where(
                _PLAYERS.c.tournament_id == tournament_id,
                _PLAYERS.c.token_hash == token_hash)).scalar()
        return None if value is None else str(value)

    @translated
    def token_hashes(self, tournament_id: str) -> dict[str, str]:
        """Every player's token hash, by key id (the seat tokens of its matches)."""
        with self.engine.connect() as conn:
            return {str(player): str(digest) for player, digest in conn.execute(
                select(_PLAYERS.c.player, _PLAYERS.c.token_hash)
                .where(_PLAYERS.c.tournament_id == tournament_id))}


def insert_player(tournament_id: str, player: str, token_hash: str) -> Extra:
    """The ``extra`` of a registration: the player's token hash, beside its event."""
    def run(conn: Connection) -> None:
        conn.execute(insert(_PLAYERS), [{"tournament_id": tournament_id, "player": player,
                                         "token_hash": token_hash}])
    return run


def _stale(tournament_id: str, expected_seq: int) -> ConflictError:
    return ConflictError(f"tournament {tournament_id!r} has moved on: position {expected_seq} "
                         "is taken (read the tournament again, and sign at its next_seq)",
                         code="stale-seq")
