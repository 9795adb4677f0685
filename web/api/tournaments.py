"""The /api/v1/tournaments routes (api.md, docs/tournaments.md): thin views over the ledger's
tournament façade. The organiser and the players authenticate with their bearer tokens; the
arbiter's authority is its signature, checked by the ledger."""

from __future__ import annotations

from flask import Response, jsonify, request

from fairdeal.ledger.errors import BadRequest

from ..queryargs import int_query
from .blueprint import bp
from .body import bearer_token, json_body, unknown_fields
from .routes import ledger


def _only(allowed: set[str]) -> None:
    unknown = sorted(set(request.args) - allowed)
    if unknown:
        raise BadRequest(f"unknown query parameter {unknown[0]!r}", code="invalid-query")


@bp.post("/tournaments")
def create_tournament() -> tuple[Response, int]:
    """A new tournament (rate-limited as match creation: web/security.py)."""
    return jsonify(ledger().create_tournament(**json_body())), 201


@bp.get("/tournaments")
def list_tournaments() -> Response:
    _only({"limit", "cursor"})
    limit = int_query("limit", 50, minimum=1, maximum=200)
    return jsonify(ledger().list_tournaments(limit, request.args.get("cursor")))


@bp.get("/tournaments/<tournament_id>")
def get_tournament(tournament_id: str) -> Response:
    return jsonify(ledger().tournament(tournament_id))


@bp.get("/tournaments/<tournament_id>/events")
def tournament_events(tournament_id: str) -> Response:
    _only({"after"})
    after = int_query("after", -1, minimum=-1, maximum=10**9)
    return jsonify({"events": ledger().tournament_events(tournament_id, after)})


@bp.post("/tournaments/<tournament_id>/registrations")
def register_player(tournament_id: str) -> tuple[Response, int]:
    return jsonify(ledger().register_player(tournament_id, json_body())), 201


@bp.post("/tournaments/<tournament_id>/start")
def start_tournament(tournament_id: str) -> Response:
    token = bearer_token(required=True)
    unknown_fields(json_body(empty_ok=True), set())
    return jsonify(ledger().start_tournament(tournament_id, token))


@bp.post("/tournaments/<tournament_id>/rounds")
def pair_round(tournament_id: str) -> Response:
    token = bearer_token(required=True)
    unknown_fields(json_body(empty_ok=True), set())
    return jsonify(ledger().pair_next_round(tournament_id, token))


@bp.get("/tournaments/<tournament_id>/me")
def tournament_me(tournament_id: str) -> Response:
    return jsonify(ledger().tournament_me(tournament_id, bearer_token(required=True)))


@bp.post("/tournaments/<tournament_id>/withdrawals")
def withdraw(tournament_id: str) -> Response:
    token = bearer_token(required=True)
    return jsonify(ledger().withdraw_player(tournament_id, token, json_body()))


@bp.post("/tournaments/<tournament_id>/disputes")
def file_dispute(tournament_id: str) -> tuple[Response, int]:
    token = bearer_token(required=True)
    return jsonify(ledger().file_dispute(tournament_id, token, json_body())), 201


@bp.post("/tournaments/<tournament_id>/replays")
def order_replay(tournament_id: str) -> tuple[Response, int]:
    token = bearer_token(required=True)
    body = json_body()
    unknown_fields(body, {"dispute"})
    return jsonify(ledger().order_replay(tournament_id, token, body.get("dispute"))), 201


@bp.post("/tournaments/<tournament_id>/rulings")
def rule(tournament_id: str) -> tuple[Response, int]:
    return jsonify(ledger().rule_dispute(tournament_id, json_body())), 201


@bp.post("/tournaments/<tournament_id>/finish")
def finish(tournament_id: str) -> Response:
    token = bearer_token(required=True)
    unknown_fields(json_body(empty_ok=True), set())
    return jsonify(ledger().finish_tournament(tournament_id, token))


@bp.get("/tournaments/<tournament_id>/bundle")
def tournament_bundle(tournament_id: str) -> Response:
    data = ledger().tournament_bundle(tournament_id)
    return Response(data, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="{tournament_id}.json"'})


@bp.get("/tournaments/<tournament_id>/export")
def tournament_export(tournament_id: str) -> Response:
    data = ledger().tournament_export(tournament_id)
    return Response(data, mimetype="application/zip", headers={
        "Content-Disposition": f'attachment; filename="{tournament_id}.zip"'})
