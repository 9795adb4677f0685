"""Players by the key they sign with: a seat key's matches (``/keys/<key id>/matches``), the
tournaments a key registered in (``/keys/<key id>/tournaments``) and the search the home page's
box runs (``/search``); thin views over ``Ledger.key_matches``, ``Ledger.key_tournaments`` and
``Ledger.search`` (ledger/players.py, ledger/tournaments_read.py)."""

from __future__ import annotations

from flask import Response, jsonify, request

from fairdeal.ledger.errors import BadRequest

from ..queryargs import int_query
from .blueprint import bp
from .routes import ledger


def _only(allowed: set[str]) -> None:
    unknown = sorted(set(request.args) - allowed)
    if unknown:
        raise BadRequest(f"unknown query parameter {unknown[0]!r} (known: "
                         f"{', '.join(sorted(allowed))})", code="invalid-query")


@bp.get("/keys/<key>/matches")
def key_matches(key: str) -> Response:
    """Every match a seat key signed here, newest first, a page at a time."""
    _only({"limit", "cursor"})
    limit = int_query("limit", 50, minimum=1, maximum=500)
    return jsonify(ledger().key_matches(key, limit, request.args.get("cursor")))


@bp.get("/keys/<key>/tournaments")
def key_tournaments(key: str) -> Response:
    """The tournaments a key registered in, newest first, with where it stands."""
    _only({"limit", "cursor"})
    limit = int_query("limit", 50, minimum=1, maximum=200)
    return jsonify(ledger().key_tournaments(key, limit, request.args.get("cursor")))


@bp.get("/search")
def search() -> Response:
    """A match-id or key-id prefix (4+ hex digits), or a player's name."""
    _only({"q", "limit", "offset"})
    limit = int_query("limit", 20, minimum=1, maximum=100)
    offset = int_query("offset", 0, minimum=0, maximum=10**6)
    return jsonify(ledger().search(request.args.get("q", ""), limit, offset))
