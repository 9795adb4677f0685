"""The ledger's two tables. ``events`` is append-only (the database refuses UPDATE and DELETE,
see ledger.store); ``matches`` holds what changes: status, the next position, the deadline, and
the secrets that must never leave the server before the reveal (the server seed, the hashes of
the seat tokens).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Integer, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = ["EventRow", "LogCheckpointRow", "LogCosignatureRow", "LogLeafRow", "LogNodeRow",
           "MatchRow", "SeatKeyRow", "TournamentEventRow", "TournamentPlayerRow",
           "TournamentRow"]


class MatchRow(SQLModel, table=True):
    """One match: live (``seating``, ``playing``), ``ended`` (sealed here) or ``imported``."""

    __tablename__ = "matches"

    id: str = Field(primary_key=True, max_length=64)
    game: str = Field(max_length=40, index=True)
    #: canonical JSON of the normalized parameters
    params: str = Field(sa_column=Column(Text, nullable=False))
    turn_limit_ms: int | None = Field(default=None, sa_column=Column(BigInteger))
    created_ms: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    status: str = Field(max_length=16, index=True)
    #: JSON list of the seat names
    seat_names: str = Field(sa_column=Column(Text, nullable=False))
    #: JSON list of SHA-256 hex digests of the seat tokens (the tokens themselves are not kept)
    token_hashes: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    #: hex; secret until the reveal. None for imported matches (the reveal event carries it)
    server_seed: str | None = Field(default=None, max_length=64)
    commitment: str = Field(max_length=64)
    next_seq: int = 1
    #: when the current turn runs out (ms); None when no deadline runs
    deadline_ms: int | None = Field(default=None, sa_column=Column(BigInteger, index=True))
    #: JSON {"winner", "reason"} once the match is over
    result: str | None = Field(default=None, sa_column=Column(Text))
    seal_key: str | None = Field(default=None, max_length=80)
    seal_sig: str | None = Field(default=None, max_length=128)
    verified: bool = False


class EventRow(SQLModel, table=True):
    """One event of one match, exactly as hashed: ``body`` is its canonical JSON."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("match_id", "action_id", name="uq_events_action"),)

    match_id: str = Field(primary_key=True, max_length=64, foreign_key="matches.id")
    seq: int = Field(primary_key=True)
    type: str = Field(max_length=16)
    body: str = Field(sa_column=Column(Text, nullable=False))
    hash: str = Field(max_length=64)
    action_id: str | None = Field(default=None, max_length=100)


class SeatKeyRow(SQLModel, table=True):
    """An index from a seat key to the matches it signed: one row per ``seat_key`` event,
    written in the same transaction as the event (ledger.storewrites) and derived from the
    events alone, so a store made before this table is filled from its events when it opens
    (ledger.database). ``signed`` is set by the seat's first signed event. ``created_ms`` is
    the match's, copied so that a key's matches are read newest first from the index
    (``seat_keys_by_key``) without sorting them."""

    __tablename__ = "seat_keys"

    match_id: str = Field(primary_key=True, max_length=64, foreign_key="matches.id")
    #: the position of the ``seat_key`` event
    seq: int = Field(primary_key=True)
    seat: int
    #: ``verifier.keys.key_id`` of the key: 16 hex digits
    key_id: str = Field(max_length=16)
    #: ``ed25519:<64 hex>``, as the event holds it
    public_key: str = Field(max_length=80)
    created_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    #: the seat signed an event with the key (registering one proves nothing: anyone can
    #: register anyone's public key); only such rows are the key's matches
    signed: bool = False


class LogLeafRow(SQLModel, table=True):
    """One leaf of the transparency log: its position, its bytes (canonical JSON, see
    ``verifier.logleaf``), and the match it names. Append-only like ``events``."""

    __tablename__ = "log_leaves"

    idx: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    #: ``genesis``, ``seal`` or a tournament's (``tournament-created`` is 18 characters: a
    #: PostgreSQL column made at 16 is widened when the store opens, ledger.database)
    kind: str = Field(max_length=24)
    match_id: str = Field(max_length=64, index=True)
    body: str = Field(sa_column=Column(Text, nullable=False))


class LogNodeRow(SQLModel, table=True):
    """A complete subtree of the log: level k, index i covers leaves [i·2^k, (i+1)·2^k).
    Written once, when its last leaf arrives; never changed (``verifier.merkle``)."""

    __tablename__ = "log_nodes"

    level: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    idx: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    #: hex of the 32-byte RFC 9162 hash
    hash: str = Field(max_length=64)


class LogCheckpointRow(SQLModel, table=True):
    """A checkpoint the server signed: one per tree size, so two roots for one size cannot
    both be stored."""

    __tablename__ = "log_checkpoints"

    size: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    root: str = Field(max_length=64)
    #: the signed note, as served
    note: str = Field(sa_column=Column(Text, nullable=False))


class LogCosignatureRow(SQLModel, table=True):
    """A witness's cosignature line (c2sp.org/tlog-cosignature) on a checkpoint, checked
    against the witness keys the server was told to accept; served with that checkpoint."""

    __tablename__ = "log_cosignatures"

    size: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    name: str = Field(primary_key=True, max_length=200)
    key_id: str = Field(primary_key=True, max_length=8)
    #: the signature line as it is appended to the note
    line: str = Field(sa_column=Column(Text, nullable=False))


class TournamentRow(SQLModel, table=True):
    """One tournament (docs/tournaments.md): what changes (status, the next position and the
    head) and the secrets that never leave the server — the seed until ``reveal``, the hash of
    the organiser token always. Its events are in ``tournament_events``."""

    __tablename__ = "tournaments"

    id: str = Field(primary_key=True, max_length=64)
    name: str = Field(max_length=200)
    game: str = Field(max_length=40)
    system: str = Field(max_length=16)
    #: ``registering``, ``running`` or ``finished``
    status: str = Field(max_length=16, index=True)
    created_ms: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    #: hex; secret until the reveal event carries it
    seed: str = Field(max_length=64)
    organiser_hash: str = Field(max_length=64)
    #: the server pairs each round when the last is complete, and finishes after the last
    auto: bool = False
    next_seq: int = 1
    head: str = Field(max_length=64)
    #: the server's head signature (hex) once the tournament is final
    head_sig: str | None = Field(default=None, max_length=128)


class TournamentEventRow(SQLModel, table=True):
    """One event of one tournament, exactly as hashed: ``body`` is its canonical JSON.
    Append-only, as ``events`` is (the database's triggers refuse UPDATE and DELETE)."""

    __tablename__ = "tournament_events"

    tournament_id: str = Field(primary_key=True, max_length=64, foreign_key="tournaments.id")
    seq: int = Field(primary_key=True)
    type: str = Field(max_length=16)
    body: str = Field(sa_column=Column(Text, nullable=False))
    hash: str = Field(max_length=64)


class TournamentPlayerRow(SQLModel, table=True):
    """A registered player's token hash (the token itself is given out once, never kept): the
    seat token of each of its matches, and what opens ``/me``, withdrawals and disputes. The
    index ``tournament_players_by_player`` (player, tournament_id) finds a key's tournaments;
    it is made by ledger.database where missing, so a store made before it gets it too."""

    __tablename__ = "tournament_players"

    tournament_id: str = Field(primary_key=True, max_length=64, foreign_key="tournaments.id")
    #: the player's key id (16 hex)
    player: str = Field(primary_key=True, max_length=16)
    token_hash: str = Field(max_length=64, index=True)
