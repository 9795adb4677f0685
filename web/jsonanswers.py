"""Flask's JSON answers, written by orjson where its bytes are provably Flask's own.

Every ``jsonify`` of the app (a move's answer, a seat's view: two a move under load) went
through ``json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=...)`` and a
newline, about a tenth of the server's CPU a move. orjson writes the same value about five
times faster, and for the values it accepts its bytes are those bytes wherever its output is
plain ASCII without DEL and holds no float:

- the escapes of ``"``, ``\\`` and the control characters are the json encoder's (the
  canonical encoder relies on the same equality, and tests/verifier/test_canonical.py holds it
  over every code point); every other ASCII character but DEL is written as itself by both;
- a character past ASCII (json writes ``\\uXXXX``) or DEL (json writes ``\\u007f``) makes the
  output non-ASCII or holds byte 0x7f: found by ``bytes.isascii`` and one search;
- a float is written another way (``1e-07`` against ``1e-7``): in orjson's output a float is a
  digit then ``.``, ``e+`` or ``e-`` (``verifier.jsonfast``'s marks), so any possible one goes
  to the json encoder (a string holding such a mark, "v1.2" say, only costs the fast path);
- what orjson refuses goes to the json encoder too, which decides and words it as before: an
  integer past 64 bits, a lone surrogate, a key that is not a string (json writes ``1`` as
  ``"1"``), nesting past 254 levels, every subclass of str, int, dict or list, and the types
  Flask's ``default`` turns into JSON (dates, dataclasses; orjson's own forms of them differ).

Two differences stay, for values no answer holds: a NaN or an infinity, which json writes as
``NaN`` (not JSON: a client's strict parser refuses the answer) and orjson as ``null``, and a
plain ``Enum`` member, which json refuses (a 500) and orjson writes as its value. No answer
holds either:
the ledger's values are integers, canonical JSON has no floats, and the games' views are their
states' JSON. Under ``FAIRDEAL_PURE=1`` or without orjson, Flask's provider alone answers.
tests/web/test_jsonanswers.py holds the two to the same bytes over every answer of played
matches and generated values of every kind.
"""

from __future__ import annotations

from typing import Any, Final

from flask import Response
from flask.json.provider import DefaultJSONProvider

from fairdeal.verifier import jsonfast

try:
    import orjson
    _IMPORTED = True
except ImportError:  # an install without it: Flask's encoder alone
    _IMPORTED = False

__all__ = ["ENABLED", "FastJSONProvider", "fast_bytes"]

#: whether answers try orjson first (the test turns it off to compare the two)
ENABLED: bool = _IMPORTED and jsonfast.ENABLED
#: subclasses, dataclasses and dates are refused, so json's treatment of them decides
_OPTIONS: Final = (orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                   | orjson.OPT_PASSTHROUGH_DATETIME if _IMPORTED else 0)


def fast_bytes(value: Any) -> bytes | None:
    """orjson's compact bytes of ``value`` where they are ``json.dumps(value,
    separators=(",", ":"))``'s (ASCII escapes, keys in their order), else None."""
    try:
        data = orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return None
    if not data.isascii() or b"\x7f" in data:
        return None
    if jsonfast.may_hold_float(data):
        return None
    return data


class FastJSONProvider(DefaultJSONProvider):
    """Flask's provider, its ``response`` (what ``jsonify`` calls) written by ``fast_bytes``
    where those are its own bytes: compact output, keys in their order, ASCII escapes —
    the app's settings; any other setting, or a value the fast path cannot prove, is Flask's."""

    sort_keys = False

    def fast(self) -> bool:
        """Whether this provider's settings are the ones ``fast_bytes`` writes."""
        return ENABLED and not self.sort_keys and self.ensure_ascii and bool(
            self.compact or (self.compact is None and not self._app.debug))

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self.fast():
            data = fast_bytes(self._prepare_response_obj(args, kwargs))
            if data is not None:
                return self._app.response_class(data + b"\n", mimetype=self.mimetype)
        return super().response(*args, **kwargs)
