"""Receipts: what the server signs for every write it accepts, and what a player keeps.

A receipt names the match, the position, the hash of the accepted event and the server's time,
signed with the server key::

    {"match_id": "…", "seq": 7, "event": "<64 hex>", "ts": 1767225600123,
     "key": "ed25519:<64 hex>", "sig": "<128 hex>"}

A player's receipts checked against a bundle: a genuine receipt whose event is missing from the
bundle, or different in it, is the server's own signature on an event it later dropped or
changed — proof of tampering that needs no trust in the player. A file of receipts is either a
list of receipts or ``{"format": "fairdeal.receipts/1", "receipts": [...], ...}`` (what
``fairdeal play --receipts`` writes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .bundle import Bundle, InvalidBundle, parse_json
from .keys import InvalidKey, key_id, parse_public_key, verify_signature
from .protocol import receipt_message
from .report import VerificationError

__all__ = ["RECEIPTS_FORMAT", "InvalidReceipts", "Receipt", "check_receipts", "parse_receipts",
           "receipt_json"]

RECEIPTS_FORMAT = "fairdeal.receipts/1"
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_HEX128 = re.compile(r"[0-9a-f]{128}\Z")
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_FIELDS = {"match_id", "seq", "event", "ts", "key", "sig"}


class InvalidReceipts(ValueError):
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


def parse_receipts(data: bytes | str) -> list[Receipt]:
    """Parse a receipts file; InvalidReceipts names what is wrong."""
    try:
        value = parse_json(data, max_bytes=64 * 1024 * 1024)
    except InvalidBundle as e:
        raise InvalidReceipts(f"receipts file: {e}") from None
    if isinstance(value, dict):
        if value.get("format") != RECEIPTS_FORMAT:
            raise InvalidReceipts(f"receipts file: format: expected {RECEIPTS_FORMAT!r}, "
                                  f"got {value.get('format')!r}")
        value = value.get("receipts")
    if not isinstance(value, list):
        raise InvalidReceipts("receipts file: expected a list of receipts")
    return [_receipt(item, f"receipts[{index}]") for index, item in enumerate(value)]


def check_receipts(bundle: Bundle, hashes: Sequence[str],
                   receipts: Sequence[Receipt]) -> tuple[int, int]:
    """Check a player's receipts against a bundle whose event hashes are ``hashes``.

    Returns (receipts checked, receipts for other matches); raises VerificationError("receipts")
    at the first receipt the bundle contradicts. A receipt with a bad signature is no evidence
    of anything and is refused as such."""
    match_id = bundle.match_id
    mine = [receipt for receipt in receipts if receipt.match_id == match_id]
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
                f"{receipt.ts} ms), but this bundle ends at event {len(hashes) - 1}: an event "
                "the server accepted is missing (server-signed proof of tampering)",
                len(hashes) - 1)
        if hashes[receipt.seq] != receipt.event:
            raise VerificationError(
                "receipts", f"the server signed a receipt for event {receipt.seq} with hash "
                f"{receipt.event[:16]}… (at {receipt.ts} ms), but in this bundle event "
                f"{receipt.seq} hashes to {hashes[receipt.seq][:16]}…: the event the server "
                "accepted was changed or replaced (server-signed proof of tampering)",
                receipt.seq)
    return len(mine), len(receipts) - len(mine)
