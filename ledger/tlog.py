"""The transparency log's storage and its checkpoint signer (docs/ledger.md, "The log").

Every match's genesis and every seal is a leaf of one RFC 9162 Merkle tree kept in three
append-only tables: ``log_leaves`` (the leaf bytes), ``log_nodes`` (every complete subtree,
written once when its last leaf arrives) and ``log_checkpoints`` (one signed checkpoint per
tree size). ``append_leaf`` runs inside the transaction that writes the genesis or the seal,
so a match's event and its leaf are stored together or not at all.

Sequencing: the next index is read under a lock — PostgreSQL's transaction-scoped advisory
lock, SQLite's single writer (the caller has written first, so it holds the write lock) — and
the leaf index is a primary key, so even a writer that skipped the lock could not fork the tree;
indices come from ``MAX(idx) + 1`` under that lock, so there is no gap either.

One genesis per match id: ``append_leaf`` refuses a genesis leaf for a match id the log already
holds a genesis leaf of (checked under the same lock, and again by the partial unique index
``log_leaves_one_genesis`` the store creates), so an operator who deleted a match from its own
tables cannot deal it again under its id through this code; a log that holds two anyway is what
``fairdeal log monitor`` raises an alarm for (``verifier.logscan``).

Checkpoints: ``TransparencyLog.checkpoint()`` signs the current size once, after proving it
consistent with the last checkpoint signed (from the stored nodes, with the verifier's own
consistency check): the server never signs two inconsistent checkpoints, even if its tables
were edited behind its back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, Select, and_, bindparam, func, insert, or_, select, text
from sqlalchemy.exc import IntegrityError

from fairdeal.verifier.checkpoint import Checkpoint, CheckpointError, TlogProof
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logleaf import LogLeaf, unsealed
from fairdeal.verifier.merkle import (
    EMPTY_ROOT,
    Node,
    ProofError,
    completed_nodes,
    consistency_nodes,
    fold,
    inclusion_nodes,
    leaf_hash,
    new_nodes,
    root_nodes,
    verify_consistency,
)
from fairdeal.verifier.note import (
    COSIGNATURE,
    ED25519,
    Note,
    NoteError,
    VerifierKey,
    note_key_id,
    sign_note,
)

from .errors import BadRequest, ConflictError, LedgerError
from .storeerrors import translated
from .tables import LogCheckpointRow, LogCosignatureRow, LogLeafRow, LogNodeRow

__all__ = [
    "LOG_TABLES",
    "LogError",
    "LogSummary",
    "MatchIdUsed",
    "TransparencyLog",
    "append_leaf",
    "default_origin",
    "witness_keys",
]

_LEAVES = LogLeafRow.__table__  # type: ignore[attr-defined]
_NODES = LogNodeRow.__table__  # type: ignore[attr-defined]
_CHECKPOINTS = LogCheckpointRow.__table__  # type: ignore[attr-defined]
_COSIGNATURES = LogCosignatureRow.__table__  # type: ignore[attr-defined]
LOG_TABLES = (_LEAVES, _NODES, _CHECKPOINTS, _COSIGNATURES)
_PG_NODES = text("SELECT n.level, n.idx, n.hash FROM log_nodes n JOIN unnest("
                 "CAST(:levels AS integer[]), CAST(:indices AS bigint[])) AS w(level, idx) "
                 "ON n.level = w.level AND n.idx = w.idx")
#: the advisory lock that sequences the log on PostgreSQL (any fixed number of our own)
LOG_LOCK = 7365840213
# the statements every genesis and seal runs, built once: building one costs more than
# SQLite takes to run it
_SIZE = select(func.max(_LEAVES.c.idx))
_GENESIS_INDEX = select(func.max(_LEAVES.c.idx)).where(
    _LEAVES.c.match_id == bindparam("match_id"), _LEAVES.c.kind == "genesis")
_LEAF_INSERT = insert(_LEAVES)
_NODES_INSERT = insert(_NODES)
#: SQLite's query of ``count`` nodes (an OR of ANDs), by count, made on first use
_SQLITE_NODES: dict[int, Select[tuple[int, int, str]]] = {}


class LogError(LedgerError):
    """The log refuses: a checkpoint that would be inconsistent, or a tree it cannot prove."""

    code = "log-refused"


class MatchIdUsed(ConflictError):
    """A match id the log already holds a genesis leaf of: every match id is dealt once."""

    code = "match-id-used"

    def __init__(self, match_id: str, index: int) -> None:
        super().__init__(f"match id {match_id!r} was dealt before (the log holds its genesis "
                         f"leaf {index}): a match id is never dealt twice", code=self.code)
        self.match_id = match_id
        self.index = index


def genesis_index(conn: Connection, match_id: str) -> int | None:
    """The index of the genesis leaf of ``match_id``, if the log holds one (the latest, if a
    damaged log holds several: the one the match's current row was created with)."""
    value = conn.execute(_GENESIS_INDEX, {"match_id": match_id}).scalar()
    return None if value is None else int(value)


def default_origin(key_id: str) -> str:
    """The origin (and note key name) of a server's log when none is configured."""
    return f"fairdeal.log/{key_id}"


def witness_keys(text: str | None) -> list[VerifierKey]:
    """The witnesses a server accepts, from FAIRDEAL_LOG_WITNESSES: cosigner verifier keys
    (type 4), separated by spaces or commas."""
    keys = []
    for item in (text or "").replace(",", " ").split():
        try:
            key = VerifierKey.parse(item)
        except NoteError as e:
            raise ValueError(f"FAIRDEAL_LOG_WITNESSES: {e}") from None
        if key.kind != COSIGNATURE:
            raise ValueError(f"FAIRDEAL_LOG_WITNESSES: {item!r} is not a cosignature (type 4) "
                             "key")
        keys.append(key)
    return keys


def _size(conn: Connection) -> int:
    value = conn.execute(_SIZE).scalar()
    return 0 if value is None else int(value) + 1


def _nodes(conn: Connection, wanted: Iterable[Node]) -> dict[Node, bytes]:
    wanted = sorted(set(wanted))
    found: dict[Node, bytes] = {}
    # a proof needs at most ~2 log2(n) nodes: one statement fetches them. Measured at 10^5
    # leaves: PostgreSQL plans a join on unnest() in 0.75 ms, an OR of ANDs in 5.5 ms; SQLite
    # uses the primary key for the OR of ANDs and scans the table for a row-value IN
    for start in range(0, len(wanted), 100):
        batch = wanted[start:start + 100]
        if conn.dialect.name == "postgresql":
            rows = conn.execute(_PG_NODES, {"levels": [level for level, _ in batch],
                                            "indices": [idx for _, idx in batch]})
        else:
            values = {}
            for n, (level, idx) in enumerate(batch):
                values[f"level{n}"] = level
                values[f"idx{n}"] = idx
            rows = conn.execute(_sqlite_nodes(len(batch)), values)
        for level, idx, digest in rows:
            found[(int(level), int(idx))] = bytes.fromhex(digest)
    missing = [node for node in wanted if node not in found]
    if missing:
        raise LogError(f"the log is missing node {missing[0]} (its tables are damaged)")
    return found


def _sqlite_nodes(count: int) -> Select[tuple[int, int, str]]:
    """The query of ``count`` nodes by level and index (bound as ``level0``, ``idx0`` ...)."""
    query = _SQLITE_NODES.get(count)
    if query is None:
        clause = or_(*(and_(_NODES.c.level == bindparam(f"level{n}"),
                            _NODES.c.idx == bindparam(f"idx{n}")) for n in range(count)))
        query = _SQLITE_NODES[count] = select(_NODES.c.level, _NODES.c.idx,
                                              _NODES.c.hash).where(clause)
    return query


def _fold(conn: Connection, groups: Sequence[Sequence[Node]]) -> list[bytes]:
    nodes = _nodes(conn, (node for group in groups for node in group))
    return [fold([nodes[node] for node in group]) for group in groups]


def _root(conn: Connection, size: int) -> bytes:
    return EMPTY_ROOT if size == 0 else _fold(conn, [root_nodes(size)])[0]


def append_leaf(conn: Connection, kind: str, match_id: str, body: bytes) -> int:
    """Append one leaf inside the caller's transaction; return its index.

    Call it after the transaction's first write (SQLite then holds the write lock, so the
    size read here is the latest); on PostgreSQL it takes the log's advisory lock itself.
    A genesis leaf for a match id the log already holds a genesis of raises MatchIdUsed.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOG_LOCK})
    if kind == "genesis":
        # under the lock: two writers of one id cannot both find none (the unique index
        # log_leaves_one_genesis refuses the second even if one skipped this)
        used = genesis_index(conn, match_id)
        if used is not None:
            raise MatchIdUsed(match_id, used)
    index = _size(conn)
    needs, _ = new_nodes(index)
    nodes = completed_nodes(index, leaf_hash(body), _nodes(conn, needs))
    conn.execute(_LEAF_INSERT, [{"idx": index, "kind": kind, "match_id": match_id,
                                 "body": body.decode("utf-8")}])
    conn.execute(_NODES_INSERT, [{"level": level, "idx": idx, "hash": digest.hex()}
                                 for (level, idx), digest in nodes])
    return index


@dataclass(frozen=True)
class LogSummary:
    """What the /log page shows: the latest checkpoint and its parts."""

    note: str
    checkpoint: Checkpoint
    leaves: int


class TransparencyLog:
    """Proofs and checkpoints over the stored tree, signed with the server key. Like the event
    store's, each call that reads or writes the tables raises the store's errors
    (ledger.storeerrors), never the database driver's."""

    def __init__(self, engine: Engine, key: SigningKey, origin: str,
                 witnesses: Sequence[VerifierKey] = ()) -> None:
        try:  # the origin is the note key's name: no spaces, no '+' (checked at start-up)
            note_key_id(origin, ED25519, key.public_raw)
        except NoteError as e:
            raise ValueError(f"the log origin {origin!r} cannot name a note key: {e}") from None
        self.engine = engine
        self.key = key
        self.origin = origin
        #: the witnesses whose cosignatures this log accepts and serves
        self.witnesses = tuple(witnesses)

    @property
    def verifier_key(self) -> VerifierKey:
        """The key that verifies this log's checkpoints, as a signed-note verifier."""
        return VerifierKey(self.origin, ED25519, self.key.public_raw)

    @translated
    def size(self) -> int:
        with self.engine.connect() as conn:
            return _size(conn)

    # --- checkpoints ----------------------------------------------------------------------

    @translated
    def checkpoint(self) -> str:
        """The signed checkpoint of the current tree (signed now if this size has none)."""
        with self.engine.connect() as conn:
            # the latest checkpoint first, then the size: another worker may sign a newer
            # size in between, never a larger one than the size read after it
            latest = conn.execute(select(_CHECKPOINTS).order_by(_CHECKPOINTS.c.size.desc())
                                  .limit(1)).mappings().first()
            size = _size(conn)
            if latest is not None and latest["size"] >= size:
                return str(latest["note"])
            root = _root(conn, size)
            if latest is not None:
                old_size, old_root = int(latest["size"]), bytes.fromhex(latest["root"])
                try:
                    proof = _fold(conn, consistency_nodes(old_size, size))
                    verify_consistency(old_size, size, old_root, root, proof)
                except (ProofError, ValueError) as e:
                    raise LogError(f"refusing to sign a checkpoint of size {size}: it is not "
                                   f"consistent with the signed checkpoint of size {old_size} "
                                   f"({e})") from None
        body = Checkpoint(self.origin, size, root).text()
        note = sign_note(body, self.origin, self.key).render()
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(_CHECKPOINTS), [{"size": size, "root": root.hex(),
                                                     "note": note}])
        except IntegrityError:
            # another worker signed this size meanwhile: Ed25519 is deterministic, so its note
            # is this one unless the two saw different trees, which must never pass
            stored = self.stored_checkpoint(size)
            if stored is None or Checkpoint.from_note(stored)[0].root != root:
                raise LogError(f"two different roots for tree size {size}: refusing to sign "
                               "the second") from None
            return stored
        return note

    @translated
    def stored_checkpoint(self, size: int) -> str | None:
        """The checkpoint signed at ``size``, if one was."""
        with self.engine.connect() as conn:
            value = conn.execute(select(_CHECKPOINTS.c.note)
                                 .where(_CHECKPOINTS.c.size == size)).scalar()
        return None if value is None else str(value)

    @translated
    def cosigned(self, note: str) -> str:
        """``note`` with the witnesses' cosignature lines stored for its size appended."""
        size = Checkpoint.from_text(Note.parse(note).text).size
        with self.engine.connect() as conn:
            lines = [str(line) for line in conn.execute(
                select(_COSIGNATURES.c.line).where(_COSIGNATURES.c.size == size)
                .order_by(_COSIGNATURES.c.name, _COSIGNATURES.c.key_id)).scalars()]
        return note + "".join(lines)

    @translated
    def newest_cosigned(self, min_size: int) -> str | None:
        """The newest signed checkpoint of at least ``min_size`` leaves that a witness cosigned
        (without its cosignatures: ``cosigned`` adds them), or None when there is none."""
        with self.engine.connect() as conn:
            size = conn.execute(select(func.max(_COSIGNATURES.c.size))
                                .where(_COSIGNATURES.c.size >= min_size)).scalar()
        return None if size is None else self.stored_checkpoint(int(size))

    @translated
    def add_cosignatures(self, cosigned: str) -> int:
        """Keep the cosignatures on one of this log's checkpoints by the witnesses it accepts
        (each checked); return how many were new. Anything else is a BadRequest."""
        try:
            checkpoint, note = Checkpoint.from_note(cosigned)
        except CheckpointError as e:
            raise BadRequest(str(e), code="invalid-checkpoint") from None
        stored = self.stored_checkpoint(checkpoint.size)
        if stored is None or Note.parse(stored).text != note.text:
            raise BadRequest(f"this log signed no such checkpoint of size {checkpoint.size}",
                             code="unknown-checkpoint")
        if not self.witnesses:
            raise BadRequest("this log accepts no witness's cosignatures (the server names "
                             "them in FAIRDEAL_LOG_WITNESSES)", code="no-witnesses")
        rows = []
        for witness in self.witnesses:
            for signature in note.signatures:
                if witness.matches(signature):
                    try:
                        witness.check(note, signature)
                    except NoteError as e:
                        raise BadRequest(str(e), code="bad-cosignature") from None
                    rows.append({"size": checkpoint.size, "name": signature.name,
                                 "key_id": signature.key_id.hex(), "line": signature.line()})
        if not rows:
            raise BadRequest("the note carries no cosignature of a witness this log accepts",
                             code="bad-cosignature")
        added = 0
        for row in rows:
            try:
                with self.engine.begin() as conn:
                    conn.execute(insert(_COSIGNATURES), [row])
                added += 1
            except IntegrityError:
                pass  # this witness cosigned this size already: the first one stays
        return added

    def summary(self) -> LogSummary:
        note = self.checkpoint()
        checkpoint = Checkpoint.from_text(Note.parse(note).text)
        return LogSummary(note, checkpoint, checkpoint.size)

    # --- proofs ---------------------------------------------------------------------------

    def _check_size(self, conn: Connection, size: int, what: str) -> None:
        current = _size(conn)
        if size > current:
            raise BadRequest(f"{what} {size} is larger than the log ({current} leaves)",
                             code="invalid-size")

    @translated
    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """The hashes proving leaf ``index`` in the tree of ``size`` leaves."""
        if not 0 <= index < size:
            raise BadRequest(f"leaf {index} is not in a tree of {size} leaves",
                             code="invalid-index")
        with self.engine.connect() as conn:
            self._check_size(conn, size, "size")
            return _fold(conn, inclusion_nodes(index, size))

    @translated
    def consistency_proof(self, old: int, new: int) -> list[bytes]:
        """The hashes proving the tree of ``old`` leaves a prefix of the one of ``new``."""
        if not 0 <= old <= new:
            raise BadRequest(f"old ({old}) must be from 0 to new ({new})", code="invalid-size")
        with self.engine.connect() as conn:
            self._check_size(conn, new, "new")
            return _fold(conn, consistency_nodes(old, new))

    @translated
    def leaf(self, index: int) -> bytes:
        """The bytes of leaf ``index``."""
        with self.engine.connect() as conn:
            value = conn.execute(select(_LEAVES.c.body).where(_LEAVES.c.idx == index)).scalar()
        if value is None:
            raise BadRequest(f"the log has no leaf {index}", code="invalid-index")
        return str(value).encode("utf-8")

    @translated
    def genesis_index(self, match_id: str) -> int | None:
        """The index of the match's genesis leaf (what its seal leaf names), if logged."""
        with self.engine.connect() as conn:
            return genesis_index(conn, match_id)

    @translated
    def leaves_of(self, match_id: str) -> dict[str, tuple[int, bytes]]:
        """A match's leaves by kind: ``{"genesis": (index, bytes), "seal": ...}`` (in a
        damaged log that holds two of one kind for the id, the latest)."""
        query = (select(_LEAVES.c.idx, _LEAVES.c.kind, _LEAVES.c.body)
                 .where(_LEAVES.c.match_id == match_id).order_by(_LEAVES.c.idx))
        with self.engine.connect() as conn:
            return {kind: (int(idx), body.encode("utf-8"))
                    for idx, kind, body in conn.execute(query)}

    def tlog_proofs(self, match_id: str, note: str | None = None) -> dict[str, str]:
        """A match's leaves' tlog proofs (c2sp.org/tlog-proof) against ``note`` (the latest
        checkpoint by default); empty for a match the log does not hold. The checkpoint in
        them carries the witnesses' cosignatures stored for its size, so that a reader who
        asks for witnesses (`verify --witness`) finds them in the bundle, offline. By default
        that checkpoint is the newest one a witness cosigned that holds the match, else the
        latest: witnesses cosign now and then, so the latest tree is often not cosigned yet."""
        leaves = self.leaves_of(match_id)
        if not leaves:
            return {}
        if note is None:
            note = self.newest_cosigned(max(index for index, _ in leaves.values()) + 1)
        note = self.cosigned(note or self.checkpoint())
        size = Checkpoint.from_text(Note.parse(note).text).size
        proofs = {}
        for kind, (index, _) in leaves.items():
            if index < size:
                hashes = self.inclusion_proof(index, size)
                proofs[kind] = TlogProof(index, tuple(hashes), note).text()
        return proofs

    @translated
    def leaves(self, after: int = -1, limit: int = 1000) -> list[tuple[int, LogLeaf]]:
        """Leaves in log order after index ``after``, parsed."""
        query = (select(_LEAVES.c.idx, _LEAVES.c.body).where(_LEAVES.c.idx > after)
                 .order_by(_LEAVES.c.idx).limit(limit))
        with self.engine.connect() as conn:
            return [(int(idx), LogLeaf.parse(body.encode("utf-8")))
                    for idx, body in conn.execute(query)]

    def every_leaf(self, page: int = 10_000) -> Iterator[tuple[int, LogLeaf]]:
        """Every leaf in log order, read in pages."""
        after = -1
        while rows := self.leaves(after, page):
            yield from rows
            after = rows[-1][0]

    def unsealed(self) -> list[tuple[int, LogLeaf]]:
        """The genesis leaves no seal leaf closes, per leaf (``verifier.logleaf.pair``):
        matches created and never finished, a match id dealt twice and sealed once included
        (the audit counts them per player). Reads the whole log, in pages."""
        return unsealed(self.every_leaf())
