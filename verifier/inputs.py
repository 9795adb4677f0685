"""What the browser verifier takes beside a bundle, as ``fairdeal verify`` takes it: players'
seat keys to pin (``SEAT=ed25519:HEX``, what ``--seat-key`` takes) and a receipts file (what
``--receipts`` reads), handed to the same ``verify_bytes`` with the same meaning.

The visitor types or drops them into the page; they stay in the browser (the Web Worker calls
:func:`verify_with_inputs`), never sent to the server."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fairdeal.games import RulesError, get_rules

from .bundle import Bundle, InvalidBundle
from .errors import FairdealError
from .keys import InvalidKey, parse_public_key
from .receipts import InvalidReceipts, Receipt, ReceiptsFile, parse_receipts_file, receipt_pins
from .report import Report
from .verify import UnknownSeat, verify_bytes

__all__ = ["InvalidInput", "Resolved", "parse_seat_keys", "resolve_inputs", "seat_pin",
           "verify_with_inputs"]

#: what `fairdeal simulate --signed` prints before the keys ("  seat keys: A=… B=…")
_LABEL = re.compile(r"\s*seat keys\s*:", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,]+")


class InvalidInput(FairdealError):
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
            try:
                seat, key = seat_pin(token)
            except InvalidInput as e:
                raise InvalidInput(f"seat keys: {e}") from None
            except InvalidKey as bad_key:
                raise InvalidInput(f"seat keys: {token!r}: {bad_key}") from None
            pins[seat] = key
    return pins


def seat_pin(text: str) -> tuple[str, str]:
    """One ``SEAT=ed25519:HEX`` pin (what ``--seat-key`` takes) as ``(seat label, key)``, both
    stripped. Raises InvalidInput when it is not of that shape, InvalidKey when the key is not
    an Ed25519 public key (whether the match has that seat is verify_bytes's to say)."""
    seat, sep, key = text.partition("=")
    if not sep or not seat.strip():
        raise InvalidInput(f"expected SEAT=ed25519:HEX, got {text!r}")
    parse_public_key(key.strip())
    return seat.strip(), key.strip()


@dataclass(frozen=True)
class Resolved:
    """What one bundle is verified with: the seat pins (as ``verify_bytes`` takes them), where
    each pin came from (seat name → PIN_FROM_OPTION or PIN_FROM_RECEIPTS), the receipts to
    check (None: none given) and the match id they are for (``receipts_for``)."""

    pins: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    receipts: list[Receipt] | None = None
    receipts_for: str | None = None


def resolve_inputs(data: bytes | str, option_pins: Mapping[str, str],
                   files: Sequence[ReceiptsFile]) -> Resolved:
    """The pins and receipts one bundle is verified with, as ``fairdeal verify`` and the
    browser both resolve them.

    A bundle is checked against the receipts files of its own match (and any bare list of
    receipts, which names no match); when every file given is for another match, the bundle is
    checked against the first of them and so fails ``receipts``, naming both ids — a receipts
    file never passes quietly for a bundle it is not about. The own files' seat keys are
    pinned, except for a seat ``option_pins`` (``--seat-key``) pins itself. Raises
    InvalidInput when two files of the match disagree on a seat's key, or a file names a seat
    the match does not have."""
    pins = dict(option_pins)
    if not files and not pins:  # nothing to resolve: no second parse of the bundle
        return Resolved(pins)
    try:
        bundle = Bundle.from_bytes(data)
    except InvalidBundle:  # verify_bytes says so, as a failure of `format`
        return Resolved(pins)
    match_id = bundle.match_id
    try:
        genesis = bundle.events[0]
        seat_names = get_rules(genesis["game"], genesis["rules_version"]).seat_names
    except RulesError:  # the `rules` check fails on it; pins are resolved by verify_bytes
        return Resolved(pins, receipts=[] if files else None)
    if not files:
        return Resolved(pins, receipt_pins(seat_names, (), pins)[1])
    own = [file for file in files if file.match_id == match_id]
    bare = [file for file in files if file.match_id is None]
    foreign = [file for file in files if file.match_id not in (None, match_id)]
    receipts = [receipt for file in own + bare for receipt in file.receipts]
    receipts_for = match_id if own else foreign[0].match_id if foreign and not bare else None
    keys: list[str | None] = []
    for file in own:
        for seat, key in enumerate(file.seat_keys):
            keys.extend([None] * (seat + 1 - len(keys)))
            if key is not None and keys[seat] not in (None, key):
                raise InvalidInput(f"two receipts files of match {match_id} record different "
                                   f"keys for seat {seat}: {keys[seat]} and {key}")
            keys[seat] = keys[seat] or key
    try:
        resolved, sources = receipt_pins(seat_names, keys, pins)
    except InvalidReceipts as e:
        raise InvalidInput(str(e)) from None
    return Resolved(resolved, sources, receipts, receipts_for)


def verify_with_inputs(data: bytes | str, trusted_key: str | None = None,
                       seat_keys: str | None = None,
                       receipts: bytes | str | None = None) -> Report:
    """``verify_bytes`` over a bundle's bytes with a visitor's inputs: ``trusted_key`` (the
    server key, ``--trusted-key``), ``seat_keys`` as text (``--seat-key``, see
    :func:`parse_seat_keys`) and a receipts file's bytes (``--receipts``), resolved exactly as
    ``fairdeal verify`` resolves them (:func:`resolve_inputs`: the file's seat keys pinned
    unless a seat key given overrides them, the receipts bound to their match). Raises
    InvalidInput for an input that is not well-formed (never for a bundle: that is the
    report's failure)."""
    pins = parse_seat_keys(seat_keys) if seat_keys else {}
    files: list[ReceiptsFile] = []
    if receipts is not None:
        try:
            files.append(parse_receipts_file(receipts))
        except InvalidReceipts as e:
            words = str(e)
            raise InvalidInput(words if words.startswith("receipts file")
                               else f"receipts file: {words}") from None
    use = resolve_inputs(data, pins, files)
    try:
        report = verify_bytes(data, trusted_key or None, use.pins, use.receipts,
                              receipts_for=use.receipts_for)
    except UnknownSeat as unknown:
        raise InvalidInput(f"seat keys: {unknown}") from None
    if use.sources:
        report.facts["pin_sources"] = use.sources
    return report
