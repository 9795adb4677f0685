"""What the viewer shows of the transparency log: per match, its leaves' indices and whether
their inclusion proofs check against the latest checkpoint; for /log, the latest checkpoint
and the newest leaves in words, each linking to the match or the tournament it names.

Only a real ledger has a log (``source.log``); the viewer's in-memory store has none, and the
panel then says so instead of claiming anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fairdeal.ledger.tlog import LogError
from fairdeal.verifier.checkpoint import Checkpoint, CheckpointError, b64
from fairdeal.verifier.logleaf import TOURNAMENT_KINDS
from fairdeal.verifier.merkle import ProofError, leaf_hash, verify_inclusion
from fairdeal.verifier.note import Note, NoteError, verify_note

__all__ = ["LeafLine", "LeafRow", "LogPanel", "leaf_line", "log_of", "match_log",
           "recent_leaves"]


@dataclass(frozen=True)
class LeafRow:
    kind: str
    index: int
    ok: bool
    detail: str


@dataclass
class LogPanel:
    """The log's part of a page: ``available`` False when the source keeps no log."""

    available: bool
    origin: str = ""
    size: int = 0
    root: str = ""
    note: str = ""
    log_key: str = ""
    leaves: list[LeafRow] = field(default_factory=list)
    problem: str | None = None


def log_of(source: Any) -> Any:
    """The source's TransparencyLog, or None."""
    return getattr(source, "log", None)


def _latest(log: Any) -> tuple[LogPanel, Checkpoint | None]:
    panel = LogPanel(True, origin=log.origin, log_key=log.verifier_key.text())
    try:
        note = log.cosigned(log.checkpoint())
    except LogError as e:  # the signer refused: say so, never a 500
        panel.problem = e.message
        return panel, None
    panel.note = note
    try:
        checkpoint, parsed = Checkpoint.from_note(note)
        verify_note(Note(parsed.text, parsed.signatures), [log.verifier_key])
    except (CheckpointError, NoteError) as e:
        panel.problem = f"the latest checkpoint does not verify: {e}"
        return panel, None
    panel.size, panel.root = checkpoint.size, b64(checkpoint.root)
    return panel, checkpoint


def match_log(source: Any, match_id: str | None) -> LogPanel:
    """A match's leaves, each checked against the latest checkpoint here and now."""
    log = log_of(source)
    if log is None or match_id is None:
        return LogPanel(False)
    panel, checkpoint = _latest(log)
    if checkpoint is None:
        return panel
    for kind, (index, body) in log.leaves_of(match_id).items():
        if index >= checkpoint.size:
            panel.leaves.append(LeafRow(kind, index, False, "newer than the latest checkpoint"))
            continue
        try:
            verify_inclusion(leaf_hash(body), index, checkpoint.size,
                             log.inclusion_proof(index, checkpoint.size), checkpoint.root)
        except ProofError as e:
            panel.leaves.append(LeafRow(kind, index, False, str(e)))
        else:
            panel.leaves.append(LeafRow(kind, index, True,
                                        f"included in tree size {checkpoint.size}"))
    return panel


@dataclass(frozen=True)
class LeafLine:
    """One leaf of /log as a visitor reads it: what it records, in words, and what it names —
    a match (``/m/<id>``) or a tournament (``/t/<id>``)."""

    index: int
    kind: str
    words: str
    match_id: str | None = None
    tournament_id: str | None = None


def leaf_line(index: int, leaf: Any) -> LeafLine:
    """A parsed leaf (``verifier.logleaf.LogLeaf``) in words. A tournament's leaves open or
    close no match: they name the tournament, and a round leaf its round (from the leaf's own
    bytes, which the log proves)."""
    if leaf.kind in TOURNAMENT_KINDS:
        if leaf.kind == "tournament-round":
            number = json.loads(leaf.body).get("round")
            words = f"round {number} paired"
        else:
            words = {"tournament-created": "tournament created",
                     "tournament-final": "tournament final"}[leaf.kind]
        return LeafLine(index, leaf.kind, words, tournament_id=leaf.match_id)
    words = {"genesis": "match created", "seal": "match sealed"}.get(leaf.kind, leaf.kind)
    return LeafLine(index, leaf.kind, words, match_id=leaf.match_id)


def recent_leaves(source: Any, count: int = 20) -> tuple[LogPanel, list[LeafLine]]:
    """The /log page: the latest checkpoint and the newest leaves, newest first."""
    log = log_of(source)
    if log is None:
        return LogPanel(False), []
    panel, _ = _latest(log)
    return panel, [leaf_line(index, leaf) for index, leaf in
                   reversed(log.leaves(max(panel.size - count, 0) - 1, count))]
