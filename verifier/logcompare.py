"""Two observers compare their views of one transparency log (``fairdeal log compare``).

Each observer (a monitor, a witness, a player's verifier) remembers the last checkpoint it
accepted. Alone, an observer can only tell that the log never forked *for it*; a server that
shows each observer its own tree (a split view) passes for both. Comparing two views closes
that for the two of them:

1. both checkpoints are signed by the log key, under its origin (a view that is not the log's
   own signed word proves nothing against it);
2. the same size: the roots must be equal — two signed roots for one size is proof that the
   log forked;
3. different sizes: the bigger tree must extend the smaller, shown by a consistency proof
   (RFC 9162, section 2.1.4) between the two sizes. The proof comes from the log itself (the
   caller fetches it): it is checked against both signed roots, so a lying server cannot make
   a forked pair pass — and a server that gives no valid proof is treated as one that forked.

Pure: texts and hashes in, words or a typed error out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .checkpoint import Checkpoint, CheckpointError
from .errors import FairdealError
from .logcheck import LogForked, check_growth
from .note import ED25519, NoteError, VerifierKey, verify_note

__all__ = ["LogForked", "ProofNeeded", "View", "ViewError", "compare_views", "read_view"]


class ViewError(FairdealError):
    """A view that cannot be compared: not a checkpoint, or not signed by the log key."""


class ProofNeeded(FairdealError):
    """The two views have different sizes: only a consistency proof can tell whether the bigger
    extends the smaller (``old`` and ``new`` are the sizes to prove)."""

    def __init__(self, old: int, new: int) -> None:
        super().__init__(f"the views have sizes {old} and {new}: whether the bigger tree extends "
                         "the smaller needs the log's consistency proof between them")
        self.old = old
        self.new = new


@dataclass(frozen=True)
class View:
    """One observer's view: the checkpoint it last accepted, verbatim and parsed."""

    name: str
    note: str
    checkpoint: Checkpoint


def read_view(name: str, note_text: str, log_key: VerifierKey) -> View:
    """An observer's checkpoint, its signature by the log key under the log's origin checked.
    Raises ViewError naming the observer (``name``)."""
    if log_key.kind != ED25519:
        raise ViewError(f"{log_key.text()} is not a log's (type 1) key")
    try:
        checkpoint, note = Checkpoint.from_note(note_text)
        if checkpoint.origin != log_key.name:
            raise ViewError(f"{name}: the checkpoint is of log {checkpoint.origin!r}, the log "
                            f"key is {log_key.name!r}'s")
        verify_note(note, [log_key])
    except (CheckpointError, NoteError) as e:
        raise ViewError(f"{name}: the checkpoint is not the log's signed word: {e}") from None
    return View(name, note_text, checkpoint)


def compare_views(first: View, second: View, proof: Sequence[bytes] | None = None) -> str:
    """Whether two views of one log are consistent; the line to print when they are.

    ``proof`` is the consistency proof from the smaller view's size to the bigger's, needed
    only when the sizes differ (ProofNeeded without it). Raises LogForked when the views
    cannot both be true of one append-only log.
    """
    small, big = sorted((first, second), key=lambda view: view.checkpoint.size)
    if small.checkpoint.size == big.checkpoint.size:
        check_growth(small.checkpoint, big.checkpoint, [])
        return (f"consistent: {first.name} and {second.name} see the same tree, "
                f"{first.checkpoint.describe()}")
    if proof is None:
        raise ProofNeeded(small.checkpoint.size, big.checkpoint.size)
    check_growth(small.checkpoint, big.checkpoint, proof)
    return (f"consistent: {big.name}'s tree ({big.checkpoint.describe()}) extends "
            f"{small.name}'s ({small.checkpoint.describe()})")
