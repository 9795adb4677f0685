"""C2SP signed notes (c2sp.org/signed-note) with Ed25519, and Ed25519 tlog cosignatures
(c2sp.org/tlog-cosignature). Pure: text in, a typed error or nothing out.

A note is a text ending in a newline, a blank line, then signature lines::

    — <key name> base64(4-byte key id ‖ signature)

    key id (Ed25519, type 0x01)      = SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key)[:4]
    key id (cosignature, type 0x04)  = SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4]

A verifier key (vkey) is ``name+hex(key id)+base64(type ‖ public key)``. A cosignature signs
``cosignature/v1\\ntime <T>\\n`` followed by the note text, and its signature bytes are the
8-byte big-endian timestamp then the 64-byte Ed25519 signature.

Ed25519 itself goes through ``verifier.keys`` (one place for the primitive).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import FairdealError
from .keys import SigningKey, verify_signature

__all__ = [
    "COSIGNATURE",
    "ED25519",
    "MAX_NOTE_BYTES",
    "MAX_SIGNATURES",
    "Note",
    "NoteError",
    "NoteSignature",
    "VerifierKey",
    "cosign_note",
    "cosignature_message",
    "cosigners",
    "note_key_id",
    "sign_note",
    "verify_note",
]

#: the signature type bytes this module speaks
ED25519 = 0x01
COSIGNATURE = 0x04
#: a note larger than this is refused before parsing
MAX_NOTE_BYTES = 64 * 1024
#: the spec asks verifiers to accept at least 16
MAX_SIGNATURES = 64
_DASH = "\u2014 "


class NoteError(FairdealError):
    """A note, signature or key that is malformed, or a signature that does not verify."""


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise NoteError(f"{what} is not standard base64: {text[:40]!r}") from None


def _check_name(name: str) -> None:
    if not name or any(c.isspace() or c == "+" for c in name):
        raise NoteError(f"a key name is non-empty, without spaces or '+', got {name!r}")


def note_key_id(name: str, kind: int, public_raw: bytes) -> bytes:
    """The standard 4-byte key id of a key of signature type ``kind``."""
    _check_name(name)
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([kind]) + public_raw).digest()[:4]


@dataclass(frozen=True)
class NoteSignature:
    """One signature line: the key's name, its 4-byte id, and the signature bytes after it."""

    name: str
    key_id: bytes
    signature: bytes

    def line(self) -> str:
        body = base64.b64encode(self.key_id + self.signature).decode("ascii")
        return f"{_DASH}{self.name} {body}\n"


@dataclass(frozen=True)
class Note:
    """A parsed signed note: its text (with the final newline) and its signature lines."""

    text: str
    signatures: tuple[NoteSignature, ...]

    @classmethod
    def parse(cls, data: bytes | str) -> Note:
        """Parse strictly: UTF-8, no control characters but newline, text ending in a newline,
        a blank line, then at least one well-formed signature line."""
        if len(data) > MAX_NOTE_BYTES:
            raise NoteError(f"a note of {len(data)} bytes is larger than {MAX_NOTE_BYTES}")
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise NoteError(f"a note is UTF-8 text (byte {e.start} is not)") from None
        for position, char in enumerate(data):
            if char < " " and char != "\n":
                raise NoteError(f"control character {char!r} at offset {position} in the note")
        split = data.rfind("\n\n")
        if split < 0:
            raise NoteError("a note needs a blank line between its text and its signatures")
        text, block = data[: split + 1], data[split + 2 :]
        if not block.endswith("\n"):
            raise NoteError("the note's last signature line does not end in a newline")
        lines = block[:-1].split("\n")
        if len(lines) > MAX_SIGNATURES:
            raise NoteError(f"the note has {len(lines)} signatures, more than {MAX_SIGNATURES}")
        signatures = []
        for number, line in enumerate(lines, 1):
            if not line.startswith(_DASH):
                raise NoteError(f"signature line {number} does not start with '\u2014 ': "
                                f"{line[:40]!r}")
            name, sep, body = line[len(_DASH):].partition(" ")
            if not sep or " " in body:
                raise NoteError(f"signature line {number} is not '\u2014 <name> <base64>'")
            _check_name(name)
            raw = _b64decode(body, f"signature line {number}")
            if len(raw) < 5:
                raise NoteError(f"signature line {number} is too short to hold a key id and a "
                                "signature")
            signatures.append(NoteSignature(name, raw[:4], raw[4:]))
        return cls(text, tuple(signatures))

    def render(self) -> str:
        """The note's text form (what ``parse`` reads back)."""
        return self.text + "\n" + "".join(sig.line() for sig in self.signatures)

    def with_signatures(self, extra: Iterable[NoteSignature]) -> Note:
        """The same note with more signature lines (a witness's cosignature), none twice."""
        known = set(self.signatures)
        added = [sig for sig in extra if sig not in known]
        return Note(self.text, self.signatures + tuple(added))


@dataclass(frozen=True)
class VerifierKey:
    """A public key as a note verifier: its name, signature type and raw key."""

    name: str
    kind: int
    public_raw: bytes

    @property
    def key_id(self) -> bytes:
        return note_key_id(self.name, self.kind, self.public_raw)

    @classmethod
    def parse(cls, text: str) -> VerifierKey:
        """Read ``name+hex(id)+base64(type ‖ key)``; the id must be the standard one."""
        parts = text.strip().split("+", 2)  # the base64 part may hold "+" itself
        if len(parts) != 3:
            raise NoteError(f"a verifier key is name+keyid+base64key, got {text!r}")
        name, hex_id, body = parts
        _check_name(name)
        raw = _b64decode(body, "the verifier key")
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE):
            raise NoteError(f"verifier key {text!r} is not an Ed25519 (type 1) or cosignature "
                            "(type 4) key of 32 bytes")
        key = cls(name, raw[0], raw[1:])
        if hex_id != key.key_id.hex():
            raise NoteError(f"verifier key {text!r} names key id {hex_id}, but the key's id "
                            f"is {key.key_id.hex()}")
        return key

    def text(self) -> str:
        body = base64.b64encode(bytes([self.kind]) + self.public_raw).decode("ascii")
        return f"{self.name}+{self.key_id.hex()}+{body}"

    def matches(self, signature: NoteSignature) -> bool:
        """True when a signature line claims to be by this key (name and id both)."""
        return signature.name == self.name and signature.key_id == self.key_id

    def check(self, note: Note, signature: NoteSignature) -> int | None:
        """Verify a signature line this key ``matches``; raise NoteError if it is bad. Returns
        the cosignature's timestamp, or None for a plain Ed25519 signature."""
        if self.kind == ED25519:
            if not verify_signature(self.public_raw, signature.signature,
                                    note.text.encode("utf-8")):
                raise NoteError(f"the signature of {self.name} ({self.key_id.hex()}) does not "
                                "verify: the note was changed or signed by another key")
            return None
        if len(signature.signature) != 8 + 64:
            raise NoteError(f"the cosignature of {self.name} is not 8 + 64 bytes")
        timestamp = int.from_bytes(signature.signature[:8], "big")
        if timestamp >= 1 << 63:
            raise NoteError(f"the cosignature of {self.name} has a timestamp past 2^63 - 1")
        message = cosignature_message(note.text, timestamp)
        if not verify_signature(self.public_raw, signature.signature[8:], message):
            raise NoteError(f"the cosignature of {self.name} ({self.key_id.hex()}) does not "
                            "verify")
        return timestamp


def sign_note(text: str, name: str, key: SigningKey) -> Note:
    """A note of ``text`` (ending in a newline) signed by ``key`` under ``name``."""
    if not text.endswith("\n"):
        raise NoteError("a note's text ends in a newline")
    signature = key.sign(text.encode("utf-8"))
    return Note(text, (NoteSignature(name, note_key_id(name, ED25519, key.public_raw),
                                     signature),))


def cosignature_message(text: str, timestamp: int) -> bytes:
    """What an Ed25519 tlog cosignature signs: the header, the time, the checkpoint text."""
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def cosign_note(note: Note, name: str, key: SigningKey, timestamp: int) -> NoteSignature:
    """A witness's cosignature line over ``note``'s text at POSIX time ``timestamp``."""
    if not 0 <= timestamp < 1 << 63:
        raise NoteError(f"a cosignature timestamp is from 0 to 2^63 - 1, got {timestamp}")
    signature = key.sign(cosignature_message(note.text, timestamp))
    return NoteSignature(name, note_key_id(name, COSIGNATURE, key.public_raw),
                         timestamp.to_bytes(8, "big") + signature)


def verify_note(note: Note, keys: Sequence[VerifierKey]) -> list[VerifierKey]:
    """The known keys whose signatures on ``note`` verify, in the order given.

    Signature lines of unknown keys are ignored (the spec says so); a line that claims a
    known key and does not verify raises NoteError, and so does a note no known key signed.
    """
    verified = []
    for key in keys:
        for signature in note.signatures:
            if key.matches(signature):
                key.check(note, signature)
                if key not in verified:
                    verified.append(key)
    if not verified:
        names = ", ".join(f"{key.name}+{key.key_id.hex()}" for key in keys) or "none"
        raise NoteError(f"no known key signed the note (known: {names})")
    return verified


def cosigners(note: Note, witnesses: Sequence[VerifierKey]) -> list[tuple[VerifierKey, int]]:
    """The witnesses (cosignature keys) whose cosignatures on ``note`` verify, each with its
    timestamp, in the order given; an empty list when none cosigned.

    As c2sp.org/tlog-cosignature says, lines whose name and key id match no given witness are
    ignored; a line that claims a given witness and does not verify raises NoteError (someone
    forged or changed it: that is not the same as a witness that did not sign).
    """
    signed: list[tuple[VerifierKey, int]] = []
    for witness in witnesses:
        if witness.kind != COSIGNATURE:
            raise NoteError(f"{witness.name}+{witness.key_id.hex()} is not a cosignature "
                            "(type 4) key")
        for signature in note.signatures:
            if witness.matches(signature):
                stamp = witness.check(note, signature)
                assert stamp is not None  # a cosignature key's check returns its time
                if all(known != witness for known, _ in signed):
                    signed.append((witness, stamp))
    return signed
