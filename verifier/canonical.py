"""Canonical JSON: the one encoding that feeds every hash and signature.

UTF-8, keys sorted by code point, no insignificant whitespace, integers only. Floats, NaN,
non-string keys and any other type are refused, so any language can reproduce the bytes.

The bytes are the standard library's encoder's (SPEC.md section 1 defines them so). Where orjson
is installed (not in the browser, not under ``FAIRDEAL_PURE=1``) its sorted-keys encoding is
used instead, about three times faster, because for every value it accepts its bytes are those
bytes: every code point (escapes for ``"``, ``\\`` and the control characters only, the rest as
UTF-8, U+2028 and DEL included), keys in code point order (UTF-8 byte order is code point
order), integers in decimal. What it refuses falls back to the standard library's encoder,
which decides and words it as before: an integer past 64 bits (the json encoder writes it), a
lone surrogate (CanonicalError), nesting past orjson's 254 levels, and every subclass of str,
int, dict or list (``OPT_PASSTHROUGH_SUBCLASS``: the json encoder's treatment of them is its
own). tests/verifier/test_canonical.py holds the two to the same bytes over the protocol
vectors, every event of every fixture and generated values of every kind JSON has.

>>> canonical_bytes({"b": 1, "a": [True, None, "é"]})
b'{"a":[true,null,"\\xc3\\xa9"],"b":1}'
"""

from __future__ import annotations

import json
import sys
from typing import Any, Final

from fairdeal.games.compiled import pure_requested

from .errors import FairdealError

try:
    import orjson
    _IMPORTED = True
except ImportError:  # the browser's archive packs fairdeal alone; an install without it
    _IMPORTED = False

__all__ = ["ENABLED", "CanonicalError", "canonical_bytes", "canonical_bytes_trusted",
           "check_canonical"]

_encoder = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
)


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not a JSON value")


# The same C encoder JSONEncoder.encode builds on every call (with the settings above), built
# once: hashing every event of every match pays that set-up each time otherwise. No circular
# check (markers None): the values hashed are trees parsed from JSON or built by the protocol.
_c_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)
_c_encode: Any = (
    _c_make_encoder(None, _refuse, json.encoder.encode_basestring, None, ":", ",", True, False,
                    False)
    if _c_make_encoder is not None else None
)


def _encode(value: Any) -> str:
    if _c_encode is None or isinstance(value, str):
        return _encoder.encode(value)
    return "".join(_c_encode(value, 0))


#: whether the encoders try orjson first (tests turn it off to hold the two to the same bytes)
ENABLED: bool = _IMPORTED and sys.platform != "emscripten" and not pure_requested()
#: keys sorted, and every subclass of a JSON type left to the json encoder
_ORJSON_OPTIONS: Final = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS
                          if _IMPORTED else 0)


def _orjson_bytes(value: Any) -> bytes | None:
    """orjson's canonical bytes of ``value``, or None where it refuses (the caller falls back)."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:  # past 64 bits, a lone surrogate, too deep, a subclass
        return None


class CanonicalError(FairdealError):
    """A value that has no canonical JSON form (a float, a non-string key, ...)."""


_SCALARS: Final = (bool, int, str)


def check_canonical(value: Any, where: str = "$") -> None:
    """Raise CanonicalError naming the first value that canonical JSON does not allow."""
    # scalars are checked in place: only a nested value pays for naming where it sits
    if value is None or isinstance(value, _SCALARS):
        return
    if isinstance(value, float):
        raise CanonicalError(f"{where}: floats are not allowed in canonical JSON ({value!r})")
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            if item is not None and not isinstance(item, _SCALARS):
                check_canonical(item, f"{where}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalError(f"{where}: object key {key!r} is not a string")
            if item is not None and not isinstance(item, _SCALARS):
                check_canonical(item, f"{where}.{key}")
        return
    raise CanonicalError(f"{where}: {type(value).__name__} is not a JSON value")


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate ("\ud800") has no UTF-8 form
        raise CanonicalError(f"a string holds the lone surrogate \\u{ord(text[e.start]):04x}, "
                             "which has no UTF-8 form") from None


def canonical_bytes(value: Any) -> bytes:
    """The canonical UTF-8 bytes of ``value``; raise CanonicalError if it has none."""
    check_canonical(value)
    if ENABLED:
        fast = _orjson_bytes(value)
        if fast is not None:
            return fast
    return _utf8(_encode(value))


def canonical_bytes_trusted(value: Any) -> bytes:
    """Canonical bytes of a value already known to hold only JSON types without floats
    (what ``bundle.parse_json`` returns): the check is skipped on this hot path. (So orjson
    may meet a float here, which the check would have refused: the caller's promise.)"""
    if ENABLED:
        fast = _orjson_bytes(value)
        if fast is not None:
            return fast
    if _c_encode is not None and type(value) is dict:  # an event: straight to the C encoder
        return _utf8("".join(_c_encode(value, 0)))
    return _utf8(_encode(value))
