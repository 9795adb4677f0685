"""What the viewer shows of the transparency log: per match, its leaves' indices and whether
their inclusion proofs check against the latest checkpoint; for /log, the latest checkpoint.

Only a real ledger has a log (``source.log``); the viewer's in-memory store has none, and the
panel then says so instead of claiming anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fairdeal.ledger.tlog import LogError
from fairdeal.verifier.checkpoint import Checkpoint, CheckpointError, b64
from fairdeal.verifier.merkle import ProofError, leaf_hash, verify_inclusion
from fairdeal.verifier.note import Note, NoteError, verify_note

__all__ = ["LeafRow", "LogPanel", "log_of", "match_log", "recent_leaves"]


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


def recent_leaves(source: Any, count: int = 20) -> tuple[LogPanel, list[tuple[int, Any]]]:
    """The /log page: the latest checkpoint and the newest leaves."""
    log = log_of(source)
    if log is None:
        return LogPanel(False), []
    panel, _ = _latest(log)
    return panel, list(reversed(log.leaves(max(panel.size - count, 0) - 1, count)))
