"""The OpenAPI section of the tournament routes (web/api/tournaments.py, api.md). Kept beside
openapi.py, which merges it into the document."""

from __future__ import annotations

from typing import Any

__all__ = ["tournament_paths", "tournament_schemas"]

_ID = {"name": "tournament_id", "in": "path", "required": True, "schema": {"type": "string"}}
_SIGNED = ("Signed by the party: expected_seq (the next_seq of GET /tournaments/{id}) and sig, "
           "the Ed25519 signature of primitives.signed_message({seq: expected_seq, prev: head, "
           "type, ...fields}); a stale expected_seq is 409 stale-seq (read again, sign again)")
_BEARER = [{"bearerAuth": []}]


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json({"$ref": "#/components/schemas/Error"}, description)


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "required": required, "properties": properties,
        "additionalProperties": False}}}}


def _signed_fields(**fields: Any) -> dict[str, Any]:
    return {**fields, "expected_seq": {"type": "integer", "minimum": 1},
            "sig": {"type": "string", "pattern": "^[0-9a-f]{128}$"}}


_EVENT = {"$ref": "#/components/schemas/TournamentEvent"}
_EVENT_ANSWER = {"type": "object", "required": ["event"], "properties": {"event": _EVENT}}
_NOT_FOUND = _error("No tournament under that id (not-found)")
_TOKEN_ERRORS = {"401": _error("No bearer token, or a malformed Authorization header"),
                 "403": _error("The token is not the organiser's (or no player's) here")}


def tournament_schemas() -> dict[str, Any]:
    """The shapes the tournament paths refer to."""
    return {
        "TournamentEvent": {"type": "object", "required": ["seq", "prev", "type", "ts"],
                            "description": "One event of the tournament's log "
                                           "(docs/tournaments.md §2)",
                            "properties": {"seq": {"type": "integer"},
                                           "prev": {"type": "string"},
                                           "type": {"type": "string"},
                                           "ts": {"type": "integer"}}},
        "Tournament": {"type": "object", "required": [
            "id", "name", "status", "header", "players", "rounds", "disputes", "standings",
            "next_seq", "head"], "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "status": {"type": "string", "enum": ["registering", "running", "finished"]},
            "header": _EVENT, "players": {"type": "array", "items": {"type": "object"}},
            "rounds": {"type": "array", "items": {"type": "object", "properties": {
                "round": {"type": "integer"}, "byes": {"type": "array"},
                "pairings": {"type": "array", "items": {"type": "object", "properties": {
                    "table": {"type": "integer"}, "seats": {"type": "array"},
                    "match_id": {"type": "string"},
                    "result": {"type": ["object", "null"]}}}}}}},
            "disputes": {"type": "array", "items": {"type": "object"}},
            "standings": {"type": "array", "description": "Computed, never stored (but in "
                          "the final event)", "items": {"type": "object", "properties": {
                              "rank": {"type": "integer"}, "player": {"type": "string"},
                              "name": {"type": "string"}, "score": {"type": "integer"},
                              "tiebreaks": {"type": "array"}}}},
            "next_seq": {"type": "integer"}, "head": {"type": "string"},
            "total_rounds": {"type": ["integer", "null"]},
            "disputes_until": {"type": ["integer", "null"], "description": (
                "An auto tournament whose every round is played: until when (server ms) the "
                "last round may be disputed before the server finishes it (the header's "
                "seating_ms after the last result; it also waits for every open dispute's "
                "ruling). Null otherwise (docs/tournaments.md §8)")},
            "seed": {"type": "string", "description": "Only once finished"}}},
    }


def _create() -> dict[str, Any]:
    return {"post": {
        "summary": "Create a tournament: its header (with the seed's commitment) and the "
                   "organiser token, given once",
        "requestBody": _body({
            "name": {"type": "string", "maxLength": 200}, "game": {"type": "string"},
            "params": {"type": "object"},
            "system": {"type": "string", "enum": ["swiss", "round-robin"]},
            "rounds": {"type": "integer", "minimum": 1,
                       "description": "Swiss: rounds; round-robin: cycles (1 or 2)"},
            "tiebreaks": {"type": "array", "items": {"type": "string", "enum": [
                "buchholz", "median-buchholz", "sonneborn-berger", "direct-encounter",
                "wins"]}},
            "points": {"type": "object"}, "turn_limit_ms": {"type": ["integer", "null"]},
            "seating_ms": {"type": "integer", "minimum": 10000},
            "max_players": {"type": "integer", "minimum": 2, "maximum": 4096},
            "arbiter_key": {"type": "string", "pattern": "^ed25519:[0-9a-f]{64}$"},
            "auto": {"type": "boolean"}}, ["name", "game", "system", "arbiter_key"]),
        "responses": {
            "201": _json({"type": "object", "required": ["id", "commitment",
                                                         "organiser_token", "header"]},
                         "The tournament, its header event and the organiser token"),
            "400": _error("A field is wrong, named in the message (unknown-game, "
                          "invalid-params, invalid-rounds, invalid-tiebreaks, invalid-points, "
                          "invalid-arbiter-key, invalid-name, invalid-seating, unknown-field…)"),
            "429": _error("Too many creations from this address (rate-limited)")}},
        "get": {
            "summary": "Tournaments, newest first",
            "parameters": [{"name": "limit", "in": "query", "schema": {
                "type": "integer", "minimum": 1, "maximum": 200}},
                {"name": "cursor", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": _json({"type": "object", "properties": {
                "tournaments": {"type": "array"},
                "next_cursor": {"type": ["string", "null"]}}}, "One page"),
                "400": _error("A bad limit or cursor")}}}


def _organiser(summary: str, answer: dict[str, Any], conflicts: str) -> dict[str, Any]:
    return {"post": {"summary": summary, "security": _BEARER, "parameters": [_ID],
                     "responses": {"200": _json(answer, "Done"), **_TOKEN_ERRORS,
                                   "404": _NOT_FOUND, "409": _error(conflicts)}}}


def _signed_post(summary: str, fields: dict[str, Any], required: list[str], status: str,
                 errors: dict[str, str], bearer: bool = True) -> dict[str, Any]:
    responses = {status: _json(_EVENT_ANSWER, "The stored event"), "404": _NOT_FOUND,
                 **{code: _error(text) for code, text in errors.items()}}
    if bearer:
        responses.update(_TOKEN_ERRORS)
    return {"post": {"summary": f"{summary}. {_SIGNED}", "parameters": [_ID],
                     **({"security": _BEARER} if bearer else {}),
                     "requestBody": _body(_signed_fields(**fields),
                                          [*required, "expected_seq", "sig"]),
                     "responses": responses}}


def _reads() -> dict[str, Any]:
    return {
        "/tournaments/{tournament_id}": {"get": {
            "summary": "Everything public about a tournament (results synced from its matches "
                       "first; standings computed)", "parameters": [_ID],
            "responses": {"200": _json({"$ref": "#/components/schemas/Tournament"}, "It"),
                          "404": _NOT_FOUND}}},
        "/tournaments/{tournament_id}/events": {"get": {
            "summary": "The tournament's events after a position (all public; the seed only "
                       "in reveal)",
            "parameters": [_ID, {"name": "after", "in": "query", "schema": {
                "type": "integer", "minimum": -1}}],
            "responses": {"200": _json({"type": "object", "properties": {"events": {
                "type": "array", "items": _EVENT}}}, "The events"),
                "400": _error("A bad after"), "404": _NOT_FOUND}}},
        "/tournaments/{tournament_id}/me": {"get": {
            "summary": "A player's own state: its table in the current round, or its bye",
            "security": _BEARER, "parameters": [_ID],
            "responses": {"200": _json({"type": "object", "properties": {
                "player": {"type": "string"}, "pairing": {"type": ["object", "null"]},
                "bye": {"type": "boolean"}, "next_seq": {"type": "integer"},
                "head": {"type": "string"}}}, "The player's state"),
                **_TOKEN_ERRORS, "404": _NOT_FOUND}}},
        "/tournaments/{tournament_id}/bundle": {"get": {
            "summary": "The signed tournament bundle (fairdeal.tournament/1) with its log "
                       "proofs", "parameters": [_ID],
            "responses": {"200": _json({"type": "object"}, "The bundle"), "404": _NOT_FOUND,
                          "409": _error("Not finished yet (not-finished)")}}},
        "/tournaments/{tournament_id}/export": {"get": {
            "summary": "A zip of tournament.json and matches/<match_id>.json, for `fairdeal "
                       "verify`", "parameters": [_ID],
            "responses": {"200": {"description": "The export", "content": {
                "application/zip": {"schema": {"type": "string", "format": "binary"}}}},
                "404": _NOT_FOUND, "409": _error("Not finished yet (not-finished)")}}},
    }


def tournament_paths() -> dict[str, Any]:
    """Every ``/tournaments`` route."""
    key = {"type": "string", "pattern": "^ed25519:[0-9a-f]{64}$"}
    return {
        "/tournaments": _create(),
        **_reads(),
        "/tournaments/{tournament_id}/registrations": _signed_post(
            "A player registers (signed with its own key); answers its key id and player "
            "token (given once: the seat token of its matches)",
            {"public_key": key, "name": {"type": "string", "maxLength": 80},
             "entropy": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},
            ["public_key", "name", "entropy"], "201",
            {"400": "A bad field or signature (bad-signature, invalid-public-key, "
                    "invalid-entropy, invalid-name)",
             "409": "registration-closed, already-registered, tournament-full, stale-seq"},
            bearer=False),
        **_organiser_paths(),
    }


def _organiser_paths() -> dict[str, Any]:
    """The routes of a started tournament: the organiser's, the players' and the arbiter's."""
    return {
        "/tournaments/{tournament_id}/start": _organiser(
            "The organiser starts the tournament (and, with auto, round 1 is paired)",
            {"type": "object", "properties": {"event": _EVENT, "round": _EVENT}},
            "too-few-players (fewer than 2), too-many-rounds (a Swiss longer than players - "
            "1), started"),
        "/tournaments/{tournament_id}/rounds": _organiser(
            "The organiser pairs the next round; its matches are created with the players' "
            "keys as seat keys", _EVENT_ANSWER,
            "round-not-complete, tournament-over, pairing-impossible, not-started"),
        "/tournaments/{tournament_id}/withdrawals": _signed_post(
            "A player withdraws from a round on (a round not paired yet, or the current one "
            "while its game has no move: a forfeit)",
            {"from_round": {"type": "integer", "minimum": 1}}, ["from_round"], "200",
            {"400": "A bad field, round or signature", "409": "withdrawn, stale-seq"}),
        "/tournaments/{tournament_id}/disputes": _signed_post(
            "A player disputes step N of its own sealed match; report is "
            "verifier.tournament.disputes.dispute_report_hash of that step",
            {"match_id": {"type": "string"}, "step": {"type": "integer", "minimum": 0},
             "text": {"type": "string", "maxLength": 2000},
             "receipts": {"type": ["object", "null"]},
             "report": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},
            ["match_id", "step", "text", "receipts", "report"], "201",
            {"400": "not-your-match, invalid-step, report-mismatch, bad-signature…",
             "409": "match-not-sealed, stale-seq, tournament-over"}),
        "/tournaments/{tournament_id}/replays": {"post": {
            "summary": "The organiser asks for a new match for a disputed table (for a "
                       "replay-ordered ruling to name)", "security": _BEARER,
            "parameters": [_ID],
            "requestBody": _body({"dispute": {"type": "integer", "minimum": 1}}, ["dispute"]),
            "responses": {"201": _json({"type": "object", "properties": {
                "match_id": {"type": "string"}}}, "The new match"), **_TOKEN_ERRORS,
                "400": _error("unknown-dispute"), "404": _NOT_FOUND,
                "409": _error("already-ruled, tournament-over")}}},
        "/tournaments/{tournament_id}/rulings": _signed_post(
            "The arbiter rules on a dispute (signed with the header's arbiter key: the "
            "signature is the authority)",
            {"dispute": {"type": "integer", "minimum": 1},
             "decision": {"type": "object", "description": "result-stands, result-changed "
                          "{winner}, replay-ordered {match_id}, penalty {player, points}"},
             "text": {"type": "string", "maxLength": 2000}},
            ["dispute", "decision", "text"], "201",
            {"400": "unknown-dispute, invalid-decision, invalid-replay, bad-signature",
             "409": "already-ruled, stale-seq, tournament-over"}, bearer=False),
        "/tournaments/{tournament_id}/finish": _organiser(
            "The organiser ends the tournament: the seed revealed, the final standings, the "
            "head signed and logged",
            {"type": "object", "properties": {"events": {"type": "array", "items": _EVENT}}},
            "round-not-complete, disputes-open, tournament-over"),
    }
