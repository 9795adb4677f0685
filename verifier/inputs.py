"""What the browser verifier takes beside a bundle, as ``fairdeal verify`` takes it: players'
seat keys to pin (``SEAT=ed25519:HEX``, what ``--seat-key`` takes) and a receipts file (what
``--receipts`` reads), handed to the same ``verify_bytes`` with the same meaning.

The visitor types or drops them into the page; they stay in the browser (the Web Worker calls
:func:`verify_with_inputs`), never sent to the server."""

from __future__ import annotations

import re

from .keys import InvalidKey, parse_public_key
from .receipts import InvalidReceipts, Receipt, parse_receipts
from .report import Report
from .verify import UnknownSeat, verify_bytes

__all__ = ["InvalidInput", "parse_seat_keys", "verify_with_inputs"]

#: what `fairdeal simulate --signed` prints before the keys ("  seat keys: A=… B=…")
_LABEL = re.compile(r"\s*seat keys\s*:", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,]+")


class InvalidInput(ValueError):
    """A seat key or a receipts file the visitor gave is not well-formed, or names a seat the
    match does not have: the visitor's mistake, not the bundle's (the command line's usage
    error, exit 2). The message names the input and the problem."""


def parse_seat_keys(text: str) -> dict[str, str]:
    """``SEAT=ed25519:HEX`` pins, separated by spaces, commas or lines, as a seat label → key
    mapping (the argument ``verify_bytes`` takes as ``seat_keys``). A ``#`` starts a comment;
    ``simulate``'s "seat keys:" label is allowed, so its line can be pasted as printed. Each pin
    is checked as ``--seat-key`` checks it; a later pin of the same seat replaces an earlier
    one, as repeating ``--seat-key`` does."""
    pins: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        label = _LABEL.match(line)
        if label:
            line = line[label.end():]
        for token in _SEPARATORS.split(line.strip()):
            if not token:
                continue
            seat, sep, key = token.partition("=")
            if not sep or not seat.strip():
                raise InvalidInput(f"seat keys: expected SEAT=ed25519:HEX, got {token!r}")
            try:
                parse_public_key(key.strip())
            except InvalidKey as e:
                raise InvalidInput(f"seat keys: {token!r}: {e}") from None
            pins[seat.strip()] = key.strip()
    return pins


def verify_with_inputs(data: bytes | str, trusted_key: str | None = None,
                       seat_keys: str | None = None,
                       receipts: bytes | str | None = None) -> Report:
    """``verify_bytes`` over a bundle's bytes with a visitor's inputs: ``trusted_key`` (the
    server key, ``--trusted-key``), ``seat_keys`` as text (``--seat-key``, see
    :func:`parse_seat_keys`) and a receipts file's bytes (``--receipts``), exactly as
    ``fairdeal verify`` passes them. Raises InvalidInput for an input that is not well-formed
    (never for a bundle: that is the report's failure)."""
    pins = parse_seat_keys(seat_keys) if seat_keys else {}
    parsed: list[Receipt] | None = None
    if receipts is not None:
        try:
            parsed = parse_receipts(receipts)
        except InvalidReceipts as e:
            words = str(e)
            raise InvalidInput(words if words.startswith("receipts file")
                               else f"receipts file: {words}") from None
    try:
        return verify_bytes(data, trusted_key or None, pins, parsed)
    except UnknownSeat as e:
        raise InvalidInput(f"seat keys: {e}") from None
