"""Reading requests: bounded JSON bodies and bearer tokens."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from flask import request

from fairdeal.ledger.errors import BadRequest, LedgerError, Unauthorized
from fairdeal.verifier.bundle import InvalidBundle, parse_json

#: requests other than a bundle import are small
MAX_BODY_BYTES = 64 * 1024
#: a bundle import may be large (a long match is well under 1 MiB)
MAX_BUNDLE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 16


class BodyTooLarge(LedgerError):
    """The request body is larger than its route takes (web/api/errors.py answers 413)."""

    code = "body-too-large"


def _depth(value: Any, limit: int) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise BadRequest(f"the JSON body is nested deeper than {limit} levels",
                             code="too-deep")
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)


def raw_body(limit: int) -> bytes:
    """The request body, refused when it is larger than ``limit`` bytes."""
    length = request.content_length
    if length is not None and length > limit:
        raise BodyTooLarge(f"the body is {length} bytes, more than the {limit} allowed")
    data = request.stream.read(limit + 1)
    if len(data) > limit:
        raise BodyTooLarge(f"the body is more than the {limit} bytes allowed")
    return data


def json_body(limit: int = MAX_BODY_BYTES, depth: int = MAX_DEPTH,
              empty_ok: bool = False) -> dict[str, Any]:
    """The request's JSON object: UTF-8, integers only, no duplicate keys, bounded size and
    depth. Raise BadRequest with a stable code otherwise."""
    return parse_body(raw_body(limit), limit, depth, empty_ok)


def parse_body(data: bytes, limit: int = MAX_BODY_BYTES, depth: int = MAX_DEPTH,
               empty_ok: bool = False) -> dict[str, Any]:
    """``json_body`` of a body already read (no more than ``limit`` bytes): the fast path's
    (web/api/fastpath.py), so that both refuse a body in the same words."""
    if not data.strip():
        if empty_ok:
            return {}
        raise BadRequest("the request needs a JSON object body", code="missing-body")
    try:
        value = parse_json(data, max_bytes=limit)
    except InvalidBundle as e:
        raise BadRequest(f"the body is not acceptable JSON: {e}", code="invalid-json") from None
    if not isinstance(value, dict):
        raise BadRequest("the body must be a JSON object", code="invalid-json")
    _depth(value, depth)
    return value


def field(body: dict[str, Any], name: str) -> Any:
    """A required field of the body."""
    if name not in body:
        raise BadRequest(f"missing field {name!r}", code="missing-field")
    return body[name]


def unknown_fields(body: dict[str, Any], allowed: AbstractSet[str]) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise BadRequest(f"unexpected field {extra[0]!r} (allowed: {', '.join(sorted(allowed))})",
                         code="unknown-field")


def bearer_token(required: bool) -> str | None:
    """The ``Authorization: Bearer <token>`` token; a malformed header is 401, never ignored."""
    return parse_bearer(request.headers.get("Authorization"), required)


def parse_bearer(header: str | None, required: bool) -> str | None:
    """``bearer_token`` of the ``Authorization`` header's value (None when there is none)."""
    if header is None:
        if required:
            raise Unauthorized("this needs a seat token: send 'Authorization: Bearer <token>'")
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must be 'Bearer <token>'",
                           code="bad-authorization")
    return token.strip()
