"""Receipts: what the server signs for every write it accepts, and what a player keeps.

A receipt names the match, the position, the hash of the accepted event and the server's time,
signed with the server key::

    {"match_id": "…", "seq": 7, "event": "<64 hex>", "ts": 1767225600123,
     "key": "ed25519:<64 hex>", "sig": "<128 hex>"}

A player's receipts checked against a bundle: a genuine receipt whose event is missing from the
bundle, or different in it, is the server's own signature on an event it later dropped or
changed — proof of tampering that needs no trust in the player. A file of receipts is either a
list of receipts or ``{"format": "fairdeal.receipts/1", "match_id": "…", "server_key": …,
"seat_keys": [...], "receipts": [...]}`` (what ``fairdeal play --receipts`` writes): the file
names its match, and every receipt in it must be for that match; ``seat_keys`` (by seat index,
null for a seat the player does not hold) are the keys the player itself registered, which
``fairdeal verify --receipts`` pins.

Receipts are bound to their match: checked against a bundle, a receipt (or a file) for another
match id is a failure of ``receipts`` naming both ids, never "nothing to check" — a server
that hands a player the bundle of another match must not earn a quiet pass.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bundle import Bundle, InvalidBundle, parse_json
from .errors import FairdealError
from .keys import InvalidKey, key_id, parse_public_key, verify_signature
from .protocol import receipt_message, seat_index, utc_time
from .report import VerificationError

__all__ = ["PIN_FROM_OPTION", "PIN_FROM_RECEIPTS", "RECEIPTS_FORMAT", "InvalidReceipts",
           "Receipt", "ReceiptsFile", "check_receipts", "parse_receipts", "parse_receipts_file",
           "receipt_json", "receipt_pins"]

RECEIPTS_FORMAT = "fairdeal.receipts/1"
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_HEX128 = re.compile(r"[0-9a-f]{128}\Z")
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_FIELDS = {"match_id", "seq", "event", "ts", "key", "sig"}
_FILE_FIELDS = {"format", "match_id", "server_key", "seat_keys", "receipts"}
#: at most this many seats in a receipts file's ``seat_keys`` (no game has more than two; the
#: bound keeps a hostile file from naming a million)
_MAX_SEATS = 16
#: where a pinned seat key came from, as the report says it
PIN_FROM_OPTION = "pinned by --seat-key"
PIN_FROM_RECEIPTS = "pinned from the receipts file"


class InvalidReceipts(FairdealError):
    """A receipts file that is not well-formed; the message names the receipt and field."""


@dataclass(frozen=True)
class Receipt:
    match_id: str
    seq: int
    event: str
    ts: int
    key: str
    sig: str

    #: the answer of signature_valid, once asked (not a field of the receipt)
    _valid: bool | None = field(default=None, compare=False, repr=False)

    def signature_valid(self) -> bool:
        """The signature is the named key's over this receipt's fields (checked once per
        receipt: a player's client checks each on arrival and all of them again against the
        sealed bundle). Kept in a field rather than a functools.cached_property, whose lock
        (Python 3.11) is one for every receipt: the bots' sixteen threads queued on it."""
        if self._valid is None:
            try:
                public = parse_public_key(self.key)
            except InvalidKey:
                valid = False
            else:
                message = receipt_message(self.match_id, self.seq, self.event, self.ts)
                valid = verify_signature(public, bytes.fromhex(self.sig), message)
            object.__setattr__(self, "_valid", valid)  # frozen: set once, here only
        return bool(self._valid)

    def to_json(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "seq": self.seq, "event": self.event,
                "ts": self.ts, "key": self.key, "sig": self.sig}


def receipt_json(match_id: str, seq: int, event_hash: str, ts: int, key: Any) -> dict[str, Any]:
    """A signed receipt (``key`` is a verifier.keys.SigningKey: the ledger's server key)."""
    sig = key.sign(receipt_message(match_id, seq, event_hash, ts)).hex()
    return {"match_id": match_id, "seq": seq, "event": event_hash, "ts": ts,
            "key": key.public_text, "sig": sig}


def _receipt(value: Any, where: str) -> Receipt:
    if not isinstance(value, dict):
        raise InvalidReceipts(f"{where}: expected a receipt object, got {type(value).__name__}")
    missing = _FIELDS - set(value)
    if missing:
        raise InvalidReceipts(f"{where}: missing field {sorted(missing)[0]!r}")
    extra = set(value) - _FIELDS
    if extra:
        raise InvalidReceipts(f"{where}: unexpected field {sorted(extra)[0]!r}")
    for name in ("seq", "ts"):
        number = value[name]
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise InvalidReceipts(f"{where}.{name}: expected an integer >= 0, got {number!r}")
    checks = (("match_id", _MATCH_ID, "a match id"), ("event", _HEX64, "64 hex digits"),
              ("sig", _HEX128, "128 hex digits"))
    for name, pattern, what in checks:
        if not isinstance(value[name], str) or not pattern.match(value[name]):
            raise InvalidReceipts(f"{where}.{name}: expected {what}, got {value[name]!r}")
    try:
        parse_public_key(value["key"])
    except InvalidKey as e:
        raise InvalidReceipts(f"{where}.key: {e}") from None
    return Receipt(value["match_id"], value["seq"], value["event"], value["ts"],
                   value["key"], value["sig"])


@dataclass(frozen=True)
class ReceiptsFile:
    """A parsed receipts file: its receipts and what the file says of itself.

    ``match_id`` is the match the file is for (None for a bare list of receipts, which names
    none); ``server_key`` the key its receipts were checked against on arrival (None if the
    file does not say); ``seat_keys`` the keys the player registered, by seat index (None for a
    seat it does not hold; empty when it signed nothing)."""

    receipts: tuple[Receipt, ...]
    match_id: str | None = None
    server_key: str | None = None
    seat_keys: tuple[str | None, ...] = ()


def _key_or_none(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidReceipts(f"{where}: expected a key ed25519:<64 hex> or null, got "
                              f"{type(value).__name__}")
    try:
        parse_public_key(value)
    except InvalidKey as e:
        raise InvalidReceipts(f"{where}: {e}") from None
    return value


def parse_receipts_file(data: bytes | str) -> ReceiptsFile:
    """Parse a receipts file, every field of it checked (it is hostile input: a player's file
    may have been edited by anyone); InvalidReceipts names the field that is wrong.

    In the ``fairdeal.receipts/1`` object form ``match_id`` is required and every receipt must
    be for it: a file whose receipts name another match was put together from two matches."""
    try:
        value = parse_json(data, max_bytes=64 * 1024 * 1024)
    except InvalidBundle as e:
        raise InvalidReceipts(f"receipts file: {e}") from None
    if isinstance(value, list):
        return ReceiptsFile(tuple(_receipt(item, f"receipts[{index}]")
                                  for index, item in enumerate(value)))
    if not isinstance(value, dict):
        raise InvalidReceipts("receipts file: expected a list of receipts, or an object of "
                              f"format {RECEIPTS_FORMAT!r}")
    if value.get("format") != RECEIPTS_FORMAT:
        raise InvalidReceipts(f"receipts file: format: expected {RECEIPTS_FORMAT!r}, "
                              f"got {value.get('format')!r}")
    extra = set(value) - _FILE_FIELDS
    if extra:
        raise InvalidReceipts(f"receipts file: unexpected field {sorted(extra)[0]!r}")
    match_id = value.get("match_id")
    if not isinstance(match_id, str) or not _MATCH_ID.match(match_id):
        raise InvalidReceipts(f"receipts file: match_id: expected a match id (letters, digits, "
                              f"'-' or '_', 1 to 64), got {match_id!r}")
    server_key = _key_or_none(value.get("server_key"), "receipts file: server_key")
    seat_keys = value.get("seat_keys", [])
    if not isinstance(seat_keys, list) or len(seat_keys) > _MAX_SEATS:
        raise InvalidReceipts(f"receipts file: seat_keys: expected a list of at most "
                              f"{_MAX_SEATS} keys (null for a seat not held), got "
                              f"{type(seat_keys).__name__}"
                              + (f" of {len(seat_keys)}" if isinstance(seat_keys, list) else ""))
    keys = tuple(_key_or_none(key, f"receipts file: seat_keys[{seat}]")
                 for seat, key in enumerate(seat_keys))
    items = value.get("receipts")
    if not isinstance(items, list):
        raise InvalidReceipts("receipts file: receipts: expected a list of receipts")
    receipts = tuple(_receipt(item, f"receipts[{index}]") for index, item in enumerate(items))
    for index, receipt in enumerate(receipts):
        if receipt.match_id != match_id:
            raise InvalidReceipts(
                f"receipts[{index}].match_id: the file is for match {match_id!r}, but this "
                f"receipt is for match {receipt.match_id!r} (receipts of two matches mixed)")
    return ReceiptsFile(receipts, match_id, server_key, keys)


def parse_receipts(data: bytes | str) -> list[Receipt]:
    """Parse a receipts file's receipts (``parse_receipts_file`` keeps what the file says of
    itself too); InvalidReceipts names what is wrong."""
    return list(parse_receipts_file(data).receipts)


def receipt_pins(seat_names: Sequence[str], file_keys: Sequence[str | None],
                 overrides: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The seat keys to pin for one bundle: a receipts file's keys (``file_keys``, by seat
    index), except for a seat that ``overrides`` (``--seat-key``, by seat label) pins itself.

    Returns ``(pins, sources)``: ``pins`` as verify_bytes takes them (the overrides under their
    own labels, so that a label the match lacks is still refused as UnknownSeat there), and
    ``sources``, seat name to where its pin came from (PIN_FROM_OPTION or PIN_FROM_RECEIPTS).
    A file key for a seat the match does not have is the file's error: InvalidReceipts."""
    pins: dict[str, str] = dict(overrides)
    sources: dict[str, str] = {}
    overridden: set[int] = set()
    for label in overrides:
        seat = seat_index(seat_names, label)
        if seat is not None:
            overridden.add(seat)
            sources[seat_names[seat]] = PIN_FROM_OPTION
    for seat, key in enumerate(file_keys):
        if key is None:
            continue
        if seat >= len(seat_names):
            raise InvalidReceipts(f"receipts file: seat_keys[{seat}]: this match's seats are "
                                  f"{', '.join(seat_names)}: there is no seat {seat}")
        if seat not in overridden:
            pins[str(seat)] = key
            sources[seat_names[seat]] = PIN_FROM_RECEIPTS
    order = {name: index for index, name in enumerate(seat_names)}
    return pins, dict(sorted(sources.items(), key=lambda item: order[item[0]]))


def check_receipts(bundle: Bundle, hashes: Sequence[str], receipts: Sequence[Receipt],
                   receipts_for: str | None = None) -> int:
    """Check a player's receipts against a bundle whose event hashes are ``hashes``.

    Returns how many receipts were checked; raises VerificationError("receipts") at the first
    receipt the bundle contradicts. Receipts are bound to their match: a file for another match
    (``receipts_for``, what the file says it is for) or a receipt naming another match id is a
    failure naming both ids — a server handing out another match's bundle for this one gets no
    pass. A receipt with a bad signature is no evidence of anything and is refused as such."""
    match_id = bundle.match_id
    if receipts_for is not None and receipts_for != match_id:
        raise VerificationError(
            "receipts", f"the receipts are for match {receipts_for}, but this bundle is match "
            f"{match_id}: it is not the match these receipts were given for (a server that "
            "hands out another match's bundle, or the wrong file)")
    for receipt in receipts:
        if receipt.match_id != match_id:
            raise VerificationError(
                "receipts", f"a receipt (event {receipt.seq}) is for match {receipt.match_id}, "
                f"but this bundle is match {match_id}: it is not the match these receipts "
                "were given for (a server that hands out another match's bundle, or the wrong "
                "file)")
    mine = list(receipts)
    sealer = parse_public_key(bundle.server_key)
    for receipt in sorted(mine, key=lambda r: r.seq):
        if not receipt.signature_valid():
            raise VerificationError(
                "receipts", f"the receipt for event {receipt.seq} does not carry a valid "
                "signature of the key it names: it is not a receipt the server signed, and "
                "proves nothing (the receipts file was altered)", receipt.seq)
        signer = parse_public_key(receipt.key)
        if signer != sealer:
            raise VerificationError(
                "receipts", f"the server's receipt for event {receipt.seq} is signed by key "
                f"{key_id(signer)}, but this bundle is sealed by key {key_id(sealer)}: the "
                "match was re-forged under another key (server-signed proof of tampering)",
                receipt.seq)
        if receipt.seq >= len(hashes):
            raise VerificationError(
                "receipts", f"the server signed a receipt for event {receipt.seq} (at "
                f"{utc_time(receipt.ts)}), but this bundle ends at event {len(hashes) - 1}: "
                "an event the server accepted is missing (server-signed proof of tampering)",
                len(hashes) - 1)
        if hashes[receipt.seq] != receipt.event:
            raise VerificationError(
                "receipts", f"the server signed a receipt for event {receipt.seq} with hash "
                f"{receipt.event[:16]}… (at {utc_time(receipt.ts)}), but in this bundle event "
                f"{receipt.seq} hashes to {hashes[receipt.seq][:16]}…: the event the server "
                "accepted was changed or replaced (server-signed proof of tampering)",
                receipt.seq)
    return len(mine)
