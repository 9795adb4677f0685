"""Creating a tournament: every field of the request checked (a 400 naming the field), the
tournament seed drawn from ``secrets`` and committed to in the header, the organiser token
issued (only its hash kept), and the header stored with its ``tournament-created`` leaf in one
transaction (docs/tournaments.md §2–3)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from typing import Any

from fairdeal.games import Game, RulesError, get_game
from fairdeal.verifier.keys import InvalidKey, parse_public_key, public_key_text
from fairdeal.verifier.logleaf import tournament_leaf
from fairdeal.verifier.protocol import MIN_SEATING_MS, rules_hash
from fairdeal.verifier.tournament.events import InvalidTournament, validate_event
from fairdeal.verifier.tournament.model import SYSTEMS, TIEBREAKS
from fairdeal.verifier.tournament.primitives import FORMAT, ZERO_HASH, commitment, event_hash

from .creating import DEFAULT_TURN_LIMIT_MS
from .errors import BadRequest
from .live import token_hash

__all__ = ["CREATE_FIELDS", "DEFAULT_POINTS", "DEFAULT_TIEBREAKS", "draft_tournament"]

CREATE_FIELDS = frozenset({"name", "game", "params", "system", "rounds", "tiebreaks", "points",
                           "turn_limit_ms", "seating_ms", "max_players", "arbiter_key", "auto"})
DEFAULT_POINTS = {"win": 2, "draw": 1, "loss": 0, "bye": 2, "forfeit-win": 2}
DEFAULT_TIEBREAKS = ("buchholz", "sonneborn-berger", "wins")
DEFAULT_SEATING_MS = 60_000
_LONGEST_MS = 86_400_000
_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,200}$")


def _integer(value: Any, name: str, low: int, high: int, code: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{name} must be an integer from {low} to {high}", code=code)
    return value


def _game(fields: Mapping[str, Any]) -> tuple[Game, dict[str, Any]]:
    name = fields.get("game")
    if not isinstance(name, str):
        raise BadRequest("game must name a game (a string)", code="unknown-game")
    try:
        game = get_game(name)
    except RulesError as e:
        raise BadRequest(str(e), code="unknown-game") from None
    params = fields.get("params")
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise BadRequest("params must be an object", code="invalid-params")
    try:
        normal = dict(game.normalize_params(params))
    except RulesError as e:
        raise BadRequest(f"params: {e}", code="invalid-params") from None
    return game, normal


def _timing(game: Game, normal: Mapping[str, Any], fields: Mapping[str, Any]
            ) -> tuple[int | None, int]:
    turn_limit = fields.get("turn_limit_ms", DEFAULT_TURN_LIMIT_MS)
    if turn_limit is not None:
        _integer(turn_limit, "turn_limit_ms", 1, _LONGEST_MS, "invalid-turn-limit")
    try:
        game.turn_timer(normal, turn_limit)
    except RulesError as e:
        raise BadRequest(f"turn_limit_ms: {e}", code="invalid-turn-limit") from None
    seating = _integer(fields.get("seating_ms", DEFAULT_SEATING_MS), "seating_ms",
                       MIN_SEATING_MS, _LONGEST_MS, "invalid-seating")
    return turn_limit, seating


def _format(fields: Mapping[str, Any]) -> tuple[str, int, list[str], dict[str, int]]:
    system = fields.get("system")
    if system not in SYSTEMS:
        raise BadRequest(f"system must be one of {', '.join(SYSTEMS)}", code="invalid-system")
    rounds = fields.get("rounds", 1 if system == "round-robin" else None)
    if system == "round-robin":
        _integer(rounds, "rounds (the number of cycles of a round-robin)", 1, 2,
                 "invalid-rounds")
    else:
        _integer(rounds, "rounds", 1, 100, "invalid-rounds")
    tiebreaks = fields.get("tiebreaks", list(DEFAULT_TIEBREAKS))
    if (not isinstance(tiebreaks, list) or len(set(map(str, tiebreaks))) != len(tiebreaks)
            or not all(item in TIEBREAKS for item in tiebreaks)):
        raise BadRequest(f"tiebreaks must be a list of distinct names among "
                         f"{', '.join(TIEBREAKS)}", code="invalid-tiebreaks")
    points = fields.get("points", DEFAULT_POINTS)
    if not isinstance(points, Mapping) or set(points) != set(DEFAULT_POINTS):
        raise BadRequest(f"points must be an object with exactly "
                         f"{', '.join(DEFAULT_POINTS)}", code="invalid-points")
    for key, value in points.items():
        _integer(value, f"points.{key} (half-points)", 0, 100, "invalid-points")
    return str(system), int(rounds), list(tiebreaks), dict(points)


def _arbiter(fields: Mapping[str, Any]) -> str:
    key = fields.get("arbiter_key")
    if not isinstance(key, str):
        raise BadRequest("arbiter_key must be the arbiter's public key (ed25519:<64 hex>)",
                         code="invalid-arbiter-key")
    try:
        return public_key_text(parse_public_key(key))
    except InvalidKey as e:
        raise BadRequest(f"arbiter_key: {e}", code="invalid-arbiter-key") from None


def draft_tournament(fields: Mapping[str, Any], server_key_id: str, now: int
                     ) -> tuple[dict[str, Any], dict[str, Any], bytes, str]:
    """The checked request as ``(row, header, leaf, organiser token)``."""
    unknown = sorted(set(fields) - CREATE_FIELDS)
    if unknown:
        raise BadRequest(f"unexpected field {unknown[0]!r} (allowed: "
                         f"{', '.join(sorted(CREATE_FIELDS))})", code="unknown-field")
    name = fields.get("name")
    if not isinstance(name, str) or not _NAME.match(name) or name != name.strip():
        raise BadRequest("name must be 1 to 200 printable characters", code="invalid-name")
    game, normal = _game(fields)
    turn_limit, seating = _timing(game, normal, fields)
    system, rounds, tiebreaks, points = _format(fields)
    max_players = _integer(fields.get("max_players", 64), "max_players", 2, 4096,
                           "invalid-max-players")
    auto = fields.get("auto", False)
    if not isinstance(auto, bool):
        raise BadRequest("auto must be true or false", code="invalid-auto")
    tournament_id = "t-" + secrets.token_hex(8)
    header: dict[str, Any] = {
        "seq": 0, "prev": ZERO_HASH, "type": "header", "ts": now, "format": FORMAT,
        "tournament_id": tournament_id, "name": name, "game": game.name,
        "rules_version": game.rules_version, "rules_hash": rules_hash(game.rules_data()),
        "params": normal, "system": system, "rounds": rounds, "tiebreaks": tiebreaks,
        "points": points, "turn_limit_ms": turn_limit, "seating_ms": seating,
        "max_players": max_players, "arbiter_key": _arbiter(fields),
        "server_key_id": server_key_id,
    }
    seed = secrets.token_bytes(32)
    header["commitment"] = commitment(seed, header)
    try:  # the verifier's shape check of the header (every field was checked above)
        validate_event(header, 0)
    except InvalidTournament as e:
        raise BadRequest(f"the verifier would refuse this header: {e}",
                         code="invalid-header") from None
    token = secrets.token_urlsafe(32)
    head = event_hash(header)
    row = {"id": tournament_id, "name": name, "game": game.name, "system": system,
           "status": "registering", "created_ms": now, "seed": seed.hex(),
           "organiser_hash": token_hash(token), "auto": auto, "next_seq": 1, "head": head}
    leaf = tournament_leaf("tournament-created", tournament_id, head, now)
    return row, header, leaf, token
