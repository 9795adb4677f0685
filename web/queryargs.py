"""Integer query parameters, read one way for every route: a decimal within 64 bits (every
database column and any client's integer type holds it) and within the parameter's own range.

A number past 64 bits used to reach the database and come back as a 500 (SQLite and
PostgreSQL both refuse to bind it); here it is a 400 naming the parameter, before any work.
"""

from __future__ import annotations

import re
from typing import overload

from flask import request

from fairdeal.ledger.errors import BadRequest
from fairdeal.verifier.bundle import MAX_INT

__all__ = ["INT64_MAX", "INT64_MIN", "int_query", "parse_int"]

INT64_MAX = MAX_INT
INT64_MIN = -MAX_INT - 1
#: ASCII digits only (str.isdigit takes "²" and "٣", which int() then refuses or reads), no
#: leading zeros, an optional minus; longer than 20 characters is refused before int() runs
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_MAX_CHARS = 20
#: error messages quote at most this much of the value given
_SHOWN = 40


def parse_int(name: str, text: str, minimum: int = INT64_MIN, maximum: int = INT64_MAX) -> int:
    """``text`` as an integer from ``minimum`` to ``maximum`` (both clipped to 64 bits), or
    BadRequest (code ``invalid-query``) naming the parameter ``name`` and its range."""
    minimum, maximum = max(minimum, INT64_MIN), min(maximum, INT64_MAX)
    if len(text) <= _MAX_CHARS and _DECIMAL.match(text):
        value = int(text)
        if minimum <= value <= maximum:
            return value
    raise BadRequest(f"query parameter {name!r} must be a decimal integer from {minimum} to "
                     f"{maximum}, got {text[:_SHOWN]!r}", code="invalid-query")


@overload
def int_query(name: str, default: int, *, minimum: int = ..., maximum: int = ...,
              required: bool = ...) -> int: ...
@overload
def int_query(name: str, default: None = None, *, minimum: int = ..., maximum: int = ...,
              required: bool = ...) -> int | None: ...
def int_query(name: str, default: int | None = None, *, minimum: int = INT64_MIN,
              maximum: int = INT64_MAX, required: bool = False) -> int | None:
    """The request's query parameter ``name`` as a bounded integer (parse_int); ``default``
    when it is absent, or BadRequest when it is ``required``."""
    text = request.args.get(name)
    if text is None:
        if required:
            raise BadRequest(f"query parameter {name!r} is required", code="invalid-query")
        return default
    return parse_int(name, text, minimum, maximum)
