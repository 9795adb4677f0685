"""(13) the log check: the tournament's creation, every round and its end are leaves of the
server's transparency log (docs/tournaments.md §3), as a match's genesis and seal are
(verifier/logcheck.py, whose steps these follow):

1. every proof is against one checkpoint, a note signed by the server key that sealed the
   tournament under the log's name;
2. each leaf is rebuilt from the tournament's own events (the header, each round event, the
   final event) and its inclusion proof leads from the leaf hash to the checkpoint's root;
3. with a checkpoint the user trusts: the very same tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..checkpoint import Checkpoint, CheckpointError, TlogProof
from ..keys import key_id
from ..logcheck import read_checkpoint
from ..logleaf import tournament_leaf
from ..merkle import ProofError, leaf_hash, verify_inclusion
from ..report import VerificationError, counted
from .bundle import TournamentBundle
from .report import TournamentCheckFailed

__all__ = ["check_tournament_log"]


def check_tournament_log(bundle: TournamentBundle, hashes: Sequence[str],
                         server_public: bytes, trusted: str | None = None) -> str:
    """Check the bundle's log proofs; return the report's detail line. Raises
    TournamentCheckFailed("log")."""
    assert bundle.log is not None
    leaves = _leaves(bundle, hashes)
    proofs = _proofs(bundle.log, len(leaves))
    notes = {proof.note for _, proof in proofs}
    if len(notes) != 1:
        raise TournamentCheckFailed("log", "the tournament's log proofs are against "
                                    "different checkpoints")
    try:
        checkpoint = read_checkpoint(notes.pop(), server_public)
        mine = None if trusted is None else read_checkpoint(trusted, server_public,
                                                            checkpoint.origin)
    except VerificationError as e:
        raise TournamentCheckFailed("log", e.reason) from None
    for (what, proof), leaf in zip(proofs, leaves, strict=True):
        try:
            verify_inclusion(leaf_hash(leaf), proof.index, checkpoint.size, proof.hashes,
                             checkpoint.root)
        except ProofError as e:
            raise TournamentCheckFailed("log", f"the {what} leaf (index {proof.index}) is "
                                        f"not in the checkpointed tree: {e}") from None
    detail = (f"{counted(len(leaves), 'leaf', 'leaves')} (created, each round, final) in "
              f"{checkpoint.describe()}, signed by key {key_id(server_public)}")
    if mine is not None:
        _same_tree(checkpoint, mine)
        detail += "; the trusted checkpoint is the same tree"
    return detail


def _leaves(bundle: TournamentBundle, hashes: Sequence[str]) -> list[bytes]:
    """The leaves the events make: created, each round in order, final."""
    tid = bundle.tournament_id
    events = bundle.events
    leaves = [tournament_leaf("tournament-created", tid, hashes[0], events[0]["ts"])]
    leaves += [tournament_leaf("tournament-round", tid, hashes[e["seq"]], e["round"])
               for e in events if e["type"] == "round"]
    leaves.append(tournament_leaf("tournament-final", tid, hashes[-1], events[-1]["seq"]))
    return leaves


def _proofs(log: dict[str, Any], count: int) -> list[tuple[str, TlogProof]]:
    texts = [("created", log.get("created"))]
    texts += [(f"round {n + 1}", text) for n, text in enumerate(log["rounds"])]
    texts.append(("final", log.get("final")))
    if len(texts) != count or any(text is None for _, text in texts):
        missing = next((what for what, text in texts if text is None), "a round")
        raise TournamentCheckFailed("log", f"the tournament carries no inclusion proof of "
                                    f"its {missing} leaf ({count - 2} rounds were played, "
                                    f"{len(log['rounds'])} round proofs given)")
    proofs = []
    for what, text in texts:
        try:
            proofs.append((what, TlogProof.from_text(str(text))))
        except CheckpointError as e:
            raise TournamentCheckFailed("log", f"the {what} proof: {e}") from None
    return proofs


def _same_tree(checkpoint: Checkpoint, mine: Checkpoint) -> None:
    if (checkpoint.size, checkpoint.root) != (mine.size, mine.root):
        raise TournamentCheckFailed("log", f"the proofs are against {checkpoint.describe()}, "
                                    f"not the trusted checkpoint's {mine.describe()}")
