"""C2SP tlog checkpoints (c2sp.org/tlog-checkpoint) and tlog proofs (c2sp.org/tlog-proof).

A checkpoint is the text of a signed note::

    <origin>
    <tree size, decimal, no leading zeroes>
    <root hash, standard base64>
    [extension lines]

A tlog proof is an offline-checkable inclusion proof with its checkpoint::

    c2sp.org/tlog-proof@v1
    [extra <base64>]
    index <n>
    <base64 proof hash, leaf side first>...
    <empty line>
    <the signed checkpoint, verbatim>

Both are parsed strictly: what the specs say a verifier must reject raises CheckpointError.

A witness policy (``WitnessPolicy``) is what a reader asks of a checkpoint before trusting it
against a split view: valid Ed25519 tlog-cosignatures (c2sp.org/tlog-cosignature) of at least
N of the witnesses it names. A witness cosigns only a checkpoint consistent with every one it
cosigned before, so a log that shows two readers two different trees needs a witness that
signed both — which an honest one never does.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from .errors import FairdealError
from .merkle import HASH_SIZE
from .note import COSIGNATURE, Note, NoteError, VerifierKey, cosigners
from .report import counted

__all__ = ["PROOF_HEADER", "Checkpoint", "CheckpointError", "TlogProof", "WitnessError",
           "WitnessPolicy"]

PROOF_HEADER = "c2sp.org/tlog-proof@v1"
_DECIMAL = re.compile(r"(0|[1-9][0-9]{0,18})\Z")
#: a log holds at most this many leaves (a signed 64-bit count)
MAX_SIZE = (1 << 63) - 1


class CheckpointError(FairdealError):
    """A checkpoint or tlog proof that is not in the C2SP form."""


def _decimal(text: str, what: str) -> int:
    if not _DECIMAL.match(text) or int(text) > MAX_SIZE:
        raise CheckpointError(f"{what} is a decimal without leading zeroes, got {text!r}")
    return int(text)


def _hash(text: str, what: str) -> bytes:
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise CheckpointError(f"{what} is not standard base64: {text[:60]!r}") from None
    if len(raw) != HASH_SIZE or base64.b64encode(raw).decode("ascii") != text:
        raise CheckpointError(f"{what} is not the base64 of a {HASH_SIZE}-byte hash: "
                              f"{text[:60]!r}")
    return raw


def b64(raw: bytes) -> str:
    """Standard base64, as every hash in these formats is written."""
    return base64.b64encode(raw).decode("ascii")


@dataclass(frozen=True)
class Checkpoint:
    """A log's tree head: who (origin), how many leaves (size), and the root hash."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        """The note text: three lines, the extension lines, each ending in a newline."""
        lines = [self.origin, str(self.size), b64(self.root), *self.extensions]
        return "".join(line + "\n" for line in lines)

    @classmethod
    def from_text(cls, text: str) -> Checkpoint:
        """Parse a checkpoint's note text (not its signatures)."""
        if not text.endswith("\n"):
            raise CheckpointError("a checkpoint's text ends in a newline")
        lines = text[:-1].split("\n")
        if len(lines) < 3:
            raise CheckpointError(f"a checkpoint has at least 3 lines, this one {len(lines)}")
        origin, size, root, *extensions = lines
        if not origin:
            raise CheckpointError("the checkpoint's origin line is empty")
        if any(not line for line in extensions):
            raise CheckpointError("a checkpoint's extension lines are non-empty")
        return cls(origin, _decimal(size, "the tree size"), _hash(root, "the root hash"),
                   tuple(extensions))

    @classmethod
    def from_note(cls, data: bytes | str) -> tuple[Checkpoint, Note]:
        """Parse a signed checkpoint: the note (signatures unchecked) and its checkpoint."""
        try:
            note = Note.parse(data)
        except NoteError as e:
            raise CheckpointError(f"the checkpoint is not a signed note: {e}") from None
        return cls.from_text(note.text), note

    def describe(self) -> str:
        """One line for people: origin, size and the root's start."""
        return f"{self.origin} size {self.size} root {b64(self.root)[:16]}…"


@dataclass(frozen=True)
class TlogProof:
    """An inclusion proof of leaf ``index`` bundled with the signed checkpoint it proves
    against (the checkpoint's note, verbatim)."""

    index: int
    hashes: tuple[bytes, ...]
    note: str
    extra: bytes | None = None

    def text(self) -> str:
        lines = [PROOF_HEADER]
        if self.extra is not None:
            lines.append(f"extra {b64(self.extra)}")
        lines.append(f"index {self.index}")
        lines.extend(b64(item) for item in self.hashes)
        return "\n".join(lines) + "\n\n" + self.note

    @classmethod
    def from_text(cls, text: str) -> TlogProof:
        if not isinstance(text, str):
            raise CheckpointError(f"a tlog proof is text, got {type(text).__name__}")
        head, sep, note = text.partition("\n\n")
        if not sep:
            raise CheckpointError("a tlog proof needs an empty line before its checkpoint")
        lines = head.split("\n")
        if lines[0] != PROOF_HEADER:
            raise CheckpointError(f"a tlog proof starts with {PROOF_HEADER!r}, got "
                                  f"{lines[0][:40]!r}")
        rest = lines[1:]
        extra = None
        if rest and rest[0].startswith("extra "):
            try:
                extra = base64.b64decode(rest[0][6:].encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError):
                raise CheckpointError("the tlog proof's extra line is not base64") from None
            rest = rest[1:]
        if not rest or not rest[0].startswith("index "):
            raise CheckpointError("a tlog proof names its leaf on an 'index <n>' line")
        index = _decimal(rest[0][6:], "the proof's index")
        hashes = tuple(_hash(line, f"proof hash {number}")
                       for number, line in enumerate(rest[1:]))
        if len(hashes) > 64:
            raise CheckpointError(f"an inclusion proof has at most 64 hashes, this one "
                                  f"{len(hashes)}")
        return cls(index, hashes, note, extra)


class WitnessError(FairdealError):
    """A checkpoint without the cosignatures a witness policy asks for (``forged`` False), or
    with a cosignature line of a named witness that does not verify (``forged`` True)."""

    def __init__(self, message: str, forged: bool = False) -> None:
        super().__init__(message)
        self.forged = forged


def _witness_words(witness: VerifierKey) -> str:
    return f"{witness.name} (key {witness.key_id.hex()})"


def _when(timestamp: int) -> str:
    try:
        return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, ValueError, OSError):
        return f"POSIX time {timestamp}"


@dataclass(frozen=True)
class WitnessPolicy:
    """At least ``quorum`` of ``witnesses`` must have cosigned a checkpoint.

    The witnesses are cosignature (type 4) verifier keys, ``name+hex(key id)+base64(0x04 ‖
    public key)`` as ``fairdeal log witness-key`` prints them. One public key counts once: the
    Ed25519 cosignature does not sign the witness's name, so one key under two names is one
    witness. Raises ValueError for a policy no checkpoint could meet.
    """

    witnesses: tuple[VerifierKey, ...]
    quorum: int = 1

    def __post_init__(self) -> None:
        if not self.witnesses:
            raise ValueError("a witness policy names at least one witness")
        publics = set()
        for witness in self.witnesses:
            if witness.kind != COSIGNATURE:
                raise ValueError(f"{witness.text()} is not a witness's cosignature (type 4) "
                                 "key")
            if witness.public_raw in publics:
                raise ValueError(f"the witness key of {witness.name} is given twice (one key "
                                 "is one witness, whatever its name)")
            publics.add(witness.public_raw)
        if not 1 <= self.quorum <= len(self.witnesses):
            wanted = counted(self.quorum, "witness", "witnesses")
            raise ValueError(f"at least {wanted} cannot sign when "
                             f"{len(self.witnesses)} are named: the number is from 1 to "
                             f"{len(self.witnesses)}")

    def asked(self) -> str:
        """Who is asked for, in words."""
        names = ", ".join(_witness_words(witness) for witness in self.witnesses)
        return (f"at least {self.quorum} of "
                f"{counted(len(self.witnesses), 'witness', 'witnesses')}: {names}")

    def check(self, note: Note) -> str:
        """Check the cosignatures on a checkpoint's note; return the line for people, which
        names who signed and when. Raises WitnessError naming who was asked and who signed."""
        try:
            signed = cosigners(note, self.witnesses)
        except NoteError as e:
            raise WitnessError(f"a witness's cosignature is forged or the checkpoint was "
                               f"changed after it was cosigned: {e}", forged=True) from None
        who = ", ".join(f"{_witness_words(witness)} at {_when(stamp)}"
                        for witness, stamp in signed) or "none of them"
        if len(signed) < self.quorum:
            raise WitnessError(f"the checkpoint is cosigned by {len(signed)} of the witnesses "
                               f"asked for, {self.quorum} needed; asked for {self.asked()}; "
                               f"signed: {who}")
        return f"cosigned by {len(signed)} of " \
               f"{counted(len(self.witnesses), 'witness', 'witnesses')} " \
               f"({self.quorum} needed): {who}"
