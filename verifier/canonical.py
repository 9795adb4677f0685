"""Canonical JSON: the one encoding that feeds every hash and signature.

UTF-8, keys sorted by code point, no insignificant whitespace, integers only. Floats, NaN,
non-string keys and any other type are refused, so any language can reproduce the bytes.

>>> canonical_bytes({"b": 1, "a": [True, None, "é"]})
b'{"a":[true,null,"\\xc3\\xa9"],"b":1}'
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["CanonicalError", "canonical_bytes", "canonical_bytes_trusted", "check_canonical"]

_encoder = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
)


class CanonicalError(ValueError):
    """A value that has no canonical JSON form (a float, a non-string key, ...)."""


def check_canonical(value: Any, where: str = "$") -> None:
    """Raise CanonicalError naming the first value that canonical JSON does not allow."""
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        raise CanonicalError(f"{where}: floats are not allowed in canonical JSON ({value!r})")
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_canonical(item, f"{where}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalError(f"{where}: object key {key!r} is not a string")
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
    return _utf8(_encoder.encode(value))


def canonical_bytes_trusted(value: Any) -> bytes:
    """Canonical bytes of a value already known to hold only JSON types without floats
    (what ``bundle.parse_json`` returns): the check is skipped on this hot path."""
    return _utf8(_encoder.encode(value))
