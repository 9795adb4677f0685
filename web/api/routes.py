"""The /api/v1 routes: thin views that read the request, call the ledger and answer JSON."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request

from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.seats import SeatAnswer
from fairdeal.ledger.service import DEFAULT_TURN_LIMIT_MS, Ledger

from ..queryargs import int_query
from .blueprint import bp
from .body import MAX_BUNDLE_BYTES, bearer_token, field, json_body, raw_body, unknown_fields
from .errors import error_response
from .openapi import openapi_document


def ledger() -> Ledger:
    """The app's ledger (``app.extensions["fairdeal.ledger"]``)."""
    value: Ledger = current_app.extensions["fairdeal.ledger"]
    return value


@bp.post("/matches")
def create_match() -> tuple[Response, int]:
    body = json_body()
    unknown_fields(body, {"game", "params", "turn_limit_ms", "seed_deadline_ms", "seats"})
    game = field(body, "game")
    if not isinstance(game, str):
        raise BadRequest("game must be a string", code="unknown-game")
    seats = body.get("seats")
    if seats is not None:
        if not isinstance(seats, list):
            raise BadRequest("seats must be a list of names", code="invalid-seats")
        seats = [seat.get("name") if isinstance(seat, dict) else seat for seat in seats]
    created = ledger().create_match(
        game, body.get("params") or {},
        turn_limit_ms=body.get("turn_limit_ms", DEFAULT_TURN_LIMIT_MS), seats=seats,
        seed_deadline_ms=body.get("seed_deadline_ms"))
    return jsonify(created.to_json()), 201


@bp.get("/matches")
def list_matches() -> Response:
    limit = int_query("limit", 50, minimum=1, maximum=500)
    offset = int_query("offset", 0, minimum=0, maximum=10**9)
    game = request.args.get("game") or None
    signer = request.args.get("signer") or None
    return jsonify({"matches": ledger().list_matches(limit, offset, game=game, signer=signer),
                    "limit": limit, "offset": offset})


@bp.get("/matches/<match_id>")
def get_match(match_id: str) -> Response:
    return jsonify(ledger().view(match_id, bearer_token(required=False)))


@bp.post("/matches/<match_id>/seed")
def add_seed(match_id: str) -> tuple[Response, int]:
    token = bearer_token(required=True)
    body = json_body()
    unknown_fields(body, {"client_seed", "commitment", "expected_seq", "sig"})
    if "client_seed" not in body and "commitment" not in body:
        raise BadRequest("send 'client_seed' (64 hex, or null to decline) or 'commitment' "
                         "(64 hex, the first of two steps)", code="missing-field")
    if "commitment" in body and body["commitment"] is None:
        # a null commitment is no commitment: it used to pass for "no field" and store an
        # irrevocable decline; a decline is said as one, {"client_seed": null}
        raise BadRequest("commitment must be 64 lowercase hex characters, not null (to "
                         "decline the seed send {\"client_seed\": null})", code="invalid-seed")
    return _played(ledger().add_seed(match_id, token, body.get("client_seed"),
                                     commitment=body.get("commitment"),
                                     expected_seq=body.get("expected_seq"),
                                     sig=body.get("sig")))


@bp.post("/matches/<match_id>/seat-key")
def register_key(match_id: str) -> tuple[Response, int]:
    token = bearer_token(required=True)
    body = json_body()
    unknown_fields(body, {"public_key"})
    return _played(ledger().register_key(match_id, token, field(body, "public_key")))


#: the fields a move's body may hold
PLAY_FIELDS = frozenset({"action", "expected_seq", "action_id", "client_ts", "ts", "sig"})


@bp.post("/matches/<match_id>/actions")
def play(match_id: str) -> tuple[Response, int]:
    token = bearer_token(required=True)
    return _played(play_move(ledger(), match_id, token, json_body()))


def play_move(led: Ledger, match_id: str, token: str | None,
              body: dict[str, Any]) -> SeatAnswer:
    """A move's body (checked) handed to the ledger: the route's work after the request is
    read, which the fast path (web/api/fastpath.py) shares."""
    unknown_fields(body, PLAY_FIELDS)
    return led.play(match_id, token, field(body, "action"),
                    expected_seq=field(body, "expected_seq"),
                    action_id=field(body, "action_id"),
                    client_ts=body.get("client_ts"), sig=body.get("sig"),
                    ts=body.get("ts"))


@bp.post("/matches/<match_id>/resign")
def resign(match_id: str) -> tuple[Response, int]:
    token = bearer_token(required=True)
    body = json_body(empty_ok=True)
    unknown_fields(body, {"expected_seq", "client_ts", "ts", "sig"})
    result = ledger().resign(match_id, token, expected_seq=body.get("expected_seq"),
                             client_ts=body.get("client_ts"), sig=body.get("sig"),
                             ts=body.get("ts"))
    return _played(result)


def _played(result: SeatAnswer) -> tuple[Response, int]:
    payload, status = played(result)
    return jsonify(payload), status


def played(result: SeatAnswer) -> tuple[dict[str, Any], int]:
    """A write's answer: the stored event and the seat's view after it, with ``next_seq`` and
    ``head`` on top, so a client goes on to its next move without a GET; 201, or 200 for a
    retry answered from the store."""
    view = result.view
    replayed = bool(result.replayed)
    payload = {"event": result.event, "receipt": result.receipt, "replayed": replayed,
               "next_seq": view["next_seq"], "head": view["head"], "view": view}
    return payload, 200 if replayed else 201


def _public_read(match_id: str) -> None:
    """A read that has one answer for everyone (public events, the sealed bundle): no token
    is the public read; a token must still open a seat of the match (401 malformed, 403 not
    a seat), as on every GET — a wrong token never passes for a spectator."""
    token = bearer_token(required=False)
    if token is not None:
        ledger().seat_of(match_id, token)


@bp.get("/matches/<match_id>/events")
def events(match_id: str) -> Response:
    _public_read(match_id)
    after = int_query("after", -1, minimum=-1, maximum=10**9)
    limit = int_query("limit", 1000, minimum=1, maximum=10_000)
    found = ledger().public_events(match_id, after, limit)
    last = found[-1]["seq"] if found else after
    captions = ledger().public_captions(match_id, after)
    return jsonify({"events": found, "after": after, "next_after": last,
                    "captions": {str(seq): text for seq, text in captions.items()
                                 if seq <= last}})


@bp.get("/matches/<match_id>/board.svg")
def board(match_id: str) -> Response:
    drawing = ledger().board_svg(match_id, bearer_token(required=False))
    if drawing is None:
        return error_response(409, "no-board", f"match {match_id} has no board to draw: play "
                              "has not started, or it was imported (its bundle draws it)")
    response = Response(drawing, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/matches/<match_id>/bundle")
def bundle(match_id: str) -> Response:
    _public_read(match_id)
    log_size = int_query("log_size", minimum=0)
    data = ledger().bundle(match_id, log_size)
    response = Response(data, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="{match_id}.json"'
    return response


@bp.post("/bundles")
def import_bundle() -> tuple[Response, int]:
    data = raw_body(MAX_BUNDLE_BYTES)
    match_id, report = ledger().import_bundle(data)
    if match_id is None:
        return jsonify({"error": {"code": "bundle-invalid", "message": str(report.failure)},
                        "report": report.to_json()}), 422
    return jsonify({"id": match_id, "report": report.to_json(),
                    "signed_by": ledger().get_match(match_id)["signed_by"]}), 201


@bp.get("/keys")
def keys() -> Response:
    return jsonify({"keys": ledger().keys()})


@bp.get("/openapi.json")
def openapi() -> Response:
    return jsonify(openapi_document())


@bp.route("/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
def not_found(rest: str) -> Response:
    """Unknown API paths answer JSON too."""
    return error_response(404, "not-found", f"no API endpoint /api/v1/{rest}")
