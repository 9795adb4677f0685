"""The fast path of ``bundle.parse_json``: orjson's parser, trusted only where it provably
gives what the pure parser gives, so every refusal and every message stays the pure one's.

orjson parses a bundle about five times faster than ``json.loads`` with fairdeal's hooks, but
it refuses less: it keeps the last of two equal keys, takes floats, and integers up to 2**64-1.
So its value is kept only when the file is *orjson's own encoding of that value* (JSON
whitespace around it aside), and holds no float and, when bounded, no integer of 19 digits:

- ``orjson.dumps(value) == file`` means every object of the file is a dict of ``value``, so no
  key is repeated; it also means the nesting is within orjson's encoding limit (254 levels,
  far inside the pure parser's recursion limit), the text is valid UTF-8 with no lone
  surrogate (orjson refuses both) and no NaN, Infinity or BOM (orjson writes none).
- In that form a float is a number with a ``.`` or an ``e+``/``e-`` after a digit, and an
  integer past +-MAX_INT is a run of 19 digits after ``[``, ``,``, ``:`` or ``-``: both are
  found by a few searches for a literal mark. (A string holding such a mark, "v1.2" say, only
  sends the file to the pure parser.)

Anything else -- an error from orjson, another spacing or escaping, a possible float -- is
UNPROVEN, and the caller runs the pure parser, which decides and names the problem. Under
Pyodide (the browser verifier), without orjson, or with ``FAIRDEAL_PURE=1`` set, ENABLED is
False and only the pure parser runs. tests/verifier/test_jsonfast.py holds the two to the same
value or the same error over every fixture and the fuzzer's mutants.
"""

from __future__ import annotations

import sys
from typing import Any, Final

from fairdeal.games.compiled import pure_requested

__all__ = ["ENABLED", "UNPROVEN", "loads", "may_hold_float"]

try:
    import orjson
    _IMPORTED = True
except ImportError:  # the browser's archive packs fairdeal alone; an install without it
    _IMPORTED = False

#: whether parse_json tries orjson first (tests turn it off to run the pure parser alone)
ENABLED: bool = _IMPORTED and sys.platform != "emscripten" and not pure_requested()

#: what ``loads`` returns when it cannot prove its value is the pure parser's
UNPROVEN: Final = object()

#: JSON's whitespace (not bytes.strip()'s, which also takes \v and \f)
_WHITESPACE: Final = b" \t\n\r"
#: in orjson's encoding a float is a digit then "." or "e+" or "e-": each mark is found by
#: bytes.find (a memchr-class scan, several times faster than re's search for the same literal),
#: and only where one is found is the byte before it read (a pattern that began with the digit
#: would try every digit of every hash)
_FLOAT_MARKS: Final = (b".", b"e+", b"e-")
#: every digit written as 0, and "[", ",", ":" and "-" (what may stand before a number) as "[",
#: so that one substring search finds an integer of 19 digits or more in any place
_NUMBER_SHAPE: Final = bytes.maketrans(b"123456789,:-", b"000000000[[[")
_LONG_INTEGER: Final = b"0" * 19


def loads(data: bytes | str, bounded: bool) -> Any:
    """The value of ``data`` as the pure parser would give it, or UNPROVEN. ``bounded``: the
    caller refuses integers past +-MAX_INT (parse_json), so a file that may hold one is
    UNPROVEN too.

    >>> loads(b'{"seq":1}', bounded=True)
    {'seq': 1}
    >>> loads(b'{"seq":1,"seq":2}', bounded=True) is UNPROVEN
    True
    """
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the pure parser names it
            return UNPROVEN
    try:
        value = orjson.loads(data)
        encoded = orjson.dumps(value)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return UNPROVEN
    if encoded != data.strip(_WHITESPACE):
        return UNPROVEN
    if may_hold_float(encoded):
        return UNPROVEN
    if bounded:
        shape = encoded.translate(_NUMBER_SHAPE)
        if shape.startswith(_LONG_INTEGER) or b"[" + _LONG_INTEGER in shape:
            return UNPROVEN
    return value


def may_hold_float(encoded: bytes) -> bool:
    """Whether orjson's encoding ``encoded`` may hold a float (a digit then ".", "e+" or
    "e-"; a string holding such a mark answers True too): where orjson and the json module
    may write other bytes for the same value.

    >>> may_hold_float(b'{"seq":1,"ts":"v1"}'), may_hold_float(b'[1.5]')
    (False, True)
    """
    for mark in _FLOAT_MARKS:
        at = encoded.find(mark, 1)  # a mark at 0 has no digit before it
        while at > 0:
            if 0x30 <= encoded[at - 1] <= 0x39:  # the byte before it is a digit
                return True
            at = encoded.find(mark, at + 1)
    return False
