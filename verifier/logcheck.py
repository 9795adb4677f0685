"""The bundle's "log" check: the match is in the server's transparency log.

A bundle may carry ``log``: the tlog proofs (c2sp.org/tlog-proof) of its genesis leaf and its
seal leaf. Checking them, offline (docs/SPEC.md, "The transparency log"):

1. each proof's checkpoint is a signed note whose origin line names the log, signed under
   that name by the key that sealed the bundle (the same server key);
2. both proofs are against one checkpoint;
3. the leaves are rebuilt from the bundle's own events, and each inclusion proof leads from
   its leaf hash to the checkpoint's root. The seal leaf names the index of the genesis leaf it
   closes (format ``fairdeal.log/2``): it is rebuilt with the genesis proof's index, so a seal
   that closes another genesis leaf is not in the tree; a seal leaf of format 1 (logged before
   seals named their genesis) is accepted as it was, and the report says so;
4. with a checkpoint the user trusts: same origin, signed by the same key, and either the
   very same tree (size and root) as the proofs' checkpoint, or the proofs are against it;
5. with a witness policy: the proofs' checkpoint carries valid cosignatures of enough of the
   witnesses the user named (c2sp.org/tlog-cosignature) — the export embeds the ones the
   server holds. A split view then needs a witness that cosigned two trees.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bundle import Bundle
from .checkpoint import Checkpoint, CheckpointError, TlogProof, WitnessError, WitnessPolicy
from .errors import FairdealError
from .keys import key_id
from .logleaf import genesis_leaf, seal_leaf
from .merkle import ProofError, leaf_hash, verify_consistency, verify_inclusion
from .note import ED25519, Note, NoteError, VerifierKey, verify_note
from .report import VerificationError

__all__ = ["LogForked", "check_growth", "check_log", "log_verifier_key", "read_checkpoint"]


def log_verifier_key(origin: str, server_public: bytes) -> VerifierKey:
    """The note verifier of a log named ``origin`` run by the server with this key."""
    return VerifierKey(origin, ED25519, server_public)


def read_checkpoint(note_text: str, server_public: bytes,
                    origin: str | None = None) -> Checkpoint:
    """A signed checkpoint, its signature by ``server_public`` under its origin checked (and
    the origin, when given). Raises VerificationError("log")."""
    try:
        checkpoint, note = Checkpoint.from_note(note_text)
        if origin is not None and checkpoint.origin != origin:
            raise VerificationError("log", f"the checkpoint is of log {checkpoint.origin!r}, "
                                    f"not {origin!r}")
        verify_note(note, [log_verifier_key(checkpoint.origin, server_public)])
    except (CheckpointError, NoteError) as e:
        raise VerificationError("log", f"checkpoint: {e}") from None
    return checkpoint


def check_log(bundle: Bundle, hashes: list[str], server_public: bytes,
              trusted: str | None = None, witnesses: WitnessPolicy | None = None) -> str:
    """Check the bundle's log proofs; return the detail line for the report.

    ``hashes`` are the bundle's event hashes (from the chain check); ``trusted`` is the text of
    a checkpoint the user already trusts; ``witnesses`` the cosignatures the proofs'
    checkpoint must carry. Raises VerificationError("log").
    """
    assert bundle.log is not None
    # (1), (2) one checkpoint, signed by the key that sealed the match
    proofs, note_text = _proofs(bundle)
    checkpoint = read_checkpoint(note_text, server_public)
    # (3) each leaf, rebuilt from the events, is in the tree
    formats = _check_leaves(bundle, hashes, proofs, checkpoint)
    detail = (f"genesis leaf {proofs['genesis'].index} and seal leaf {proofs['seal'].index}"
              f"{formats} in {checkpoint.describe()}, signed by key {key_id(server_public)}")
    # (4) against the checkpoint the user trusts
    if trusted is not None:
        _check_trusted(bundle, checkpoint, read_checkpoint(trusted, server_public,
                                                           checkpoint.origin))
        detail += "; the trusted checkpoint is the same tree"
    # (5) the witnesses the user named cosigned that very checkpoint
    if witnesses is not None:
        detail += "; " + _check_witnesses(bundle, note_text, witnesses)
    return detail


def _proofs(bundle: Bundle) -> tuple[dict[str, TlogProof], str]:
    """The genesis and seal proofs, parsed, and the one checkpoint note they are against."""
    assert bundle.log is not None
    missing = [kind for kind in _LEAVES if kind not in bundle.log]
    if missing:
        raise VerificationError("log", f"the bundle carries no inclusion proof of its "
                                f"{missing[0]} leaf")
    proofs = {}
    for kind in _LEAVES:
        try:
            proofs[kind] = TlogProof.from_text(bundle.log[kind])
        except CheckpointError as e:
            raise VerificationError("log", f"the {kind} proof: {e}") from None
    notes = {proof.note for proof in proofs.values()}
    if len(notes) != 1:
        raise VerificationError("log", "the genesis and seal proofs are against different "
                                "checkpoints")
    return proofs, notes.pop()


def _check_leaves(bundle: Bundle, hashes: list[str], proofs: dict[str, TlogProof],
                  checkpoint: Checkpoint) -> str:
    """(3): each leaf, rebuilt from the events, is in the checkpointed tree, the genesis
    first. The seal names the genesis leaf the genesis proof is of (format 2), or names none
    (format 1, the older seals): returns the report's words for a format-1 seal, else ""."""
    last = len(bundle.events) - 1
    first = proofs["genesis"].index
    leaves = {"genesis": genesis_leaf(bundle.genesis),
              "seal": seal_leaf(bundle.match_id, last, hashes[-1], first)}
    old_seal = seal_leaf(bundle.match_id, last, hashes[-1])
    formats = ""
    for kind, proof in proofs.items():
        try:
            verify_inclusion(leaf_hash(leaves[kind]), proof.index, checkpoint.size,
                             proof.hashes, checkpoint.root)
        except ProofError as e:
            if kind == "seal":
                try:
                    verify_inclusion(leaf_hash(old_seal), proof.index, checkpoint.size,
                                     proof.hashes, checkpoint.root)
                    formats = " (a seal leaf of format 1, which names no genesis leaf)"
                    continue
                except ProofError:
                    pass
                raise VerificationError(
                    "log", f"the seal leaf (index {proof.index}) is not in the checkpointed "
                    f"tree as the seal of this match closing its genesis leaf {first}: "
                    f"{e}") from None
            raise VerificationError("log", f"the {kind} leaf (index {proof.index}) is not in "
                                    f"the checkpointed tree: {e}") from None
    if proofs["genesis"].index >= proofs["seal"].index:
        raise VerificationError("log", "the seal leaf comes before the genesis leaf")
    return formats


def _check_trusted(bundle: Bundle, checkpoint: Checkpoint, mine: Checkpoint) -> None:
    """(4): the proofs' checkpoint is the very tree of the one the user trusts."""
    if mine.size != checkpoint.size:
        raise VerificationError(
            "log", f"the bundle's proofs are against tree size {checkpoint.size}, the "
            f"trusted checkpoint has size {mine.size}: re-export the bundle against it "
            f"(fairdeal export {bundle.match_id} --log-size {mine.size}, or GET "
            f"/api/v1/matches/{bundle.match_id}/bundle?log_size={mine.size}) or check it "
            "online with `fairdeal log monitor`")
    if mine.root != checkpoint.root:
        raise VerificationError(
            "log", f"the log forked: the trusted checkpoint ({mine.describe()}) and the "
            f"bundle's ({checkpoint.describe()}) have one size and different roots")


def _check_witnesses(bundle: Bundle, note_text: str, witnesses: WitnessPolicy) -> str:
    """(5): the witnesses' cosignatures on the proofs' checkpoint; their detail words."""
    try:
        return witnesses.check(Note.parse(note_text))
    except WitnessError as e:
        hint = "" if e.forged else (
            f" (re-export the bundle against a checkpoint they cosigned: fairdeal export "
            f"{bundle.match_id} --log-size N, or ?log_size=N)")
        raise VerificationError("log", f"{e}{hint}") from None


#: the two leaves a bundle's log proves, in the order they are checked
_LEAVES = ("genesis", "seal")


class LogForked(FairdealError):
    """Two checkpoints of one log that no append-only log could have signed both of."""


def check_growth(old: Checkpoint, new: Checkpoint, proof: Sequence[bytes]) -> None:
    """Check that ``new`` extends ``old`` (``proof``: the consistency proof between their
    sizes). Raises LogForked naming both checkpoints."""
    if old.origin != new.origin:
        raise LogForked(f"a different log: {old.describe()} was seen before, now "
                        f"{new.describe()}")
    if new.size < old.size:
        raise LogForked(f"the log shrank: it showed {old.describe()} before and now shows "
                        f"{new.describe()}")
    if new.size == old.size and new.root != old.root:
        raise LogForked(f"the log forked: {old.describe()} and {new.describe()} have one size "
                        "and different roots")
    try:
        verify_consistency(old.size, new.size, old.root, new.root, proof)
    except ProofError as e:
        raise LogForked(f"the log forked: {new.describe()} does not extend {old.describe()} "
                        f"({e})") from None
