"""The OpenAPI 3.1 document of /api/v1, built as data (served at /api/v1/openapi.json)."""

from __future__ import annotations

from typing import Any

from fairdeal.verifier.protocol import MIN_SEATING_MS

from ..queryargs import INT64_MAX
from .openapi_players import player_paths, player_schemas
from .openapi_stream import stream_paths
from .openapi_tournaments import tournament_paths, tournament_schemas


def _int(minimum: int, maximum: int, default: int | None = None) -> dict[str, Any]:
    """An integer query parameter's schema: its range (web/queryargs.py: 400 outside it)."""
    schema: dict[str, Any] = {"type": "integer", "minimum": minimum, "maximum": maximum}
    if default is not None:
        schema["default"] = default
    return schema

__all__ = ["openapi_document"]

_ERROR = {"$ref": "#/components/schemas/Error"}
_EVENT = {"$ref": "#/components/schemas/Event"}
_HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_SIGNED_BY = {"$ref": "#/components/schemas/SignedBy"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    words = {400: "Malformed request (code names the problem)",
             401: "Missing or malformed bearer token", 403: "Not a seat of this match",
             404: "No such match", 409: "Conflict: stale expected_seq, or not over yet",
             413: "Body too large", 422: "Refused by the rules or the protocol",
             429: "Rate limited (Retry-After says when to try again)",
             503: "The database is unavailable (Retry-After; a retry with the same "
                  "action_id is safe)"}
    return {str(status): _json(_ERROR, words[status]) for status in statuses}


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "properties": properties, "required": required,
        "additionalProperties": False}}}}


_MATCH_ID = {"name": "match_id", "in": "path", "required": True, "schema": {"type": "string"}}
_SEAT: list[dict[str, list[str]]] = [{"bearerAuth": []}]
_RECEIPT = {"type": "object", "required": ["match_id", "seq", "event", "ts", "key", "sig"],
            "properties": {"match_id": {"type": "string"}, "seq": {"type": "integer"},
                           "event": {"type": "string"}, "ts": {"type": "integer"},
                           "key": {"type": "string"}, "sig": {"type": "string"}},
            "description": "The server's signature over (match_id, seq, the stored event's "
                           "hash, ts): keep it (docs/SPEC.md §10)"}
_PLAYED = _json({"type": "object",
                 "required": ["event", "receipt", "replayed", "next_seq", "head", "view"],
                 "properties": {
    "event": _EVENT, "receipt": _RECEIPT, "replayed": {"type": "boolean"},
    "next_seq": {"type": "integer"}, "head": {"type": ["string", "null"]},
    "view": {"$ref": "#/components/schemas/MatchView"}}},
    "The recorded event (replayed: a retry of an action_id already recorded), the server's "
    "signed receipt for it, and the seat's view after it, as GET /matches/{match_id} answers "
    "it: legal_actions, next_seq, head. A client goes on to its next move without a GET")


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI document."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "fairdeal ledger API", "version": "1.0.0",
                 "description": "Live matches recorded as hash-chained event logs with a seed "
                                "commitment. Errors are {error: {code, message}}. Seats "
                                "authenticate with 'Authorization: Bearer <seat token>'. A seat "
                                "that registered a key signs seat_message of each event it "
                                "writes — {seq: expected_seq, prev: head, type, seat, ...} "
                                "without ts — and sends expected_seq and sig, and for a move "
                                "its own clock as client_ts (see docs/ledger.md). Every write "
                                "answers with a server-signed receipt."},
        "servers": [{"url": "/api/v1"}],
        "components": {
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
            "schemas": {**_schemas(), **player_schemas(), **tournament_schemas()},
        },
        "paths": {**_match_paths(), **_seat_paths(), **_public_paths(), **stream_paths(),
                  **_log_paths(), **player_paths(), **tournament_paths(),
                  "/openapi.json": {"get": {
                      "summary": "This document",
                      "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1")}}}},
    }


def _schemas() -> dict[str, Any]:
    """The shapes the paths refer to by $ref."""
    return {
        "Error": {"type": "object", "required": ["error"], "properties": {
            "error": {"type": "object", "required": ["code", "message"], "properties": {
                "code": {"type": "string"}, "message": {"type": "string"},
                "next_seq": {"type": "integer"}}},
            "report": {"type": "object"}}},
        "Event": {"type": "object", "required": ["seq", "prev", "type", "ts"],
                  "properties": {"seq": {"type": "integer"}, "prev": _HEX64,
                                 "type": {"type": "string"}, "ts": {"type": "integer"}},
                  "additionalProperties": True},
        "MatchView": {"type": "object", "properties": {
            "id": {"type": "string"}, "game": {"type": "string"},
            "params": {"type": "object"}, "seats": {"type": "array"},
            "status": {"type": "string",
                       "enum": ["seating", "playing", "ended", "imported"]},
            "result": {"type": ["object", "null"]}, "commitment": _HEX64,
            "next_seq": {"type": "integer"}, "head": {"type": ["string", "null"]},
            "seat": {"type": ["integer", "null"]},
            "current_seat": {"type": ["integer", "null"]},
            "deadline_ms": {"type": ["integer", "null"]},
            "verified": {"type": "boolean", "description":
                         "Every check passed AND the match is sealed under this "
                         "server's own key; false for a bundle signed elsewhere"},
            "signed_by": _SIGNED_BY,
            "state": {}, "legal_actions": {"type": "array"}}},
        "SignedBy": {
            "type": ["object", "null"],
            "description": "The key the sealed bundle is signed with; null until the "
                           "match is sealed. this_server: it is this server's own key "
                           "(else the match was signed by another server, which anyone "
                           "can be: imports need no authentication)",
            "required": ["key", "key_id", "this_server"],
            "properties": {"key": {"type": "string",
                                   "pattern": "^ed25519:[0-9a-f]{64}$"},
                           "key_id": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
                           "this_server": {"type": "boolean"}}},
    }


def _match_paths() -> dict[str, Any]:
    """Creating and listing matches, and one match's view."""
    return {
        "/matches": {
            "post": {
                "summary": "Create a match: draws the server seed, publishes the commitment",
                "requestBody": _body({
                    "game": {"type": "string"}, "params": {"type": "object"},
                    "turn_limit_ms": {"type": ["integer", "null"], "minimum": 1},
                    "seed_deadline_ms": {
                        "type": ["integer", "null"], "minimum": MIN_SEATING_MS,
                        "description": "Seats without a seed this long after the creation "
                                       "are declined by the server (default: the turn "
                                       f"limit but at least {MIN_SEATING_MS}, or 300000 "
                                       "without one)"},
                    "seats": {"type": "array", "items": {"type": "string"}}}, ["game"]),
                "responses": {"201": _json({"type": "object", "properties": {
                    "id": {"type": "string"}, "commitment": _HEX64,
                    "seed_deadline_ms": {"type": "integer"},
                    "seats": {"type": "array", "items": {"type": "object", "properties": {
                        "seat": {"type": "integer"}, "name": {"type": "string"},
                        "token": {"type": "string"}}}}}},
                    "The match, with one secret token per seat (shown only here)"),
                    **_errors(400, 413, 429, 503)}},
            "get": {
                "summary": "List matches, newest first",
                "parameters": [
                    {"name": "limit", "in": "query", "schema": _int(1, 500, 50)},
                    {"name": "offset", "in": "query", "schema": _int(0, 10**9, 0)},
                    {"name": "game", "in": "query", "schema": {"type": "string"}},
                    {"name": "signer", "in": "query", "description":
                     "this: only matches sealed under this server's key; other: only "
                     "those sealed under another key; matches not sealed yet are in "
                     "neither", "schema": {"type": "string", "enum": ["this", "other"]}}],
                "responses": {"200": _json({"type": "object"}, "Match summaries, each "
                                           "with verified and signed_by"),
                              **_errors(400)}},
        },
        "/matches/{match_id}": {"get": {
            "summary": "The match as the caller may see it (seat token: its view and "
                       "legal_actions; none: the spectator view)",
            "parameters": [_MATCH_ID], "security": [{}, {"bearerAuth": []}],
            "responses": {"200": _json({"$ref": "#/components/schemas/MatchView"},
                                       "The view; next_seq is the next expected_seq"),
                          **_errors(401, 403, 404)}}},
    }


def _seat_paths() -> dict[str, Any]:
    """What a seat writes with its token: its seed and key, moves, resignation."""
    return {
        "/matches/{match_id}/seed": {"post": {
            "summary": "The seat's seed: a commitment (first of two steps), the seed "
                       "itself (its reveal after a commitment, or one step), or null to "
                       "decline",
            "parameters": [_MATCH_ID], "security": _SEAT,
            "requestBody": _body({"client_seed": {"type": ["string", "null"]},
                                  "commitment": {"type": "string"},
                                  "expected_seq": {"type": "integer"},
                                  "sig": {"type": "string"}}, []),
            "responses": {"201": _PLAYED, **_errors(400, 401, 403, 404, 422)}}},
        "/matches/{match_id}/seat-key": {"post": {
            "summary": "Register the seat's Ed25519 key, before its first seed event; "
                       "its seeds and moves must then be signed",
            "parameters": [_MATCH_ID], "security": _SEAT,
            "requestBody": _body({"public_key": {"type": "string"}}, ["public_key"]),
            "responses": {"201": _PLAYED, **_errors(400, 401, 403, 404, 422)}}},
        "/matches/{match_id}/actions": {"post": {
            "summary": "Play a move (validated by the rules; refused moves store nothing)",
            "parameters": [_MATCH_ID], "security": _SEAT,
            "requestBody": _body({
                "action": {}, "expected_seq": {"type": "integer"},
                "action_id": {"type": "string", "maxLength": 100},
                "client_ts": {"type": "integer"}, "sig": {"type": "string"},
                "ts": {"type": "integer", "description": "fairdeal/1 matches only"}},
                ["action", "expected_seq", "action_id"]),
            "responses": {"201": _PLAYED, "200": _PLAYED,
                          **_errors(400, 401, 403, 404, 409, 413, 422, 503)}}},
        "/matches/{match_id}/resign": {"post": {
            "summary": "Resign: the match ends, the seed is revealed, the bundle sealed",
            "parameters": [_MATCH_ID], "security": _SEAT,
            "responses": {"201": _PLAYED, "200": _PLAYED,
                          **_errors(400, 401, 403, 404, 409, 422)}}},
    }


def _public_paths() -> dict[str, Any]:
    """What needs no token: the events and the board as a spectator sees them, the sealed
    bundle, imports, the server's keys."""
    return {
        "/matches/{match_id}/events": {"get": {
            "summary": "Public events after a position (live spectating); a token, if "
                       "sent, must be a seat's (the events are the same for everyone)",
            "security": [{}, {"bearerAuth": []}],
            "parameters": [_MATCH_ID,
                           {"name": "after", "in": "query", "schema": _int(-1, 10**9, -1)},
                           {"name": "limit", "in": "query",
                            "schema": _int(1, 10_000, 1000)}],
            "responses": {"200": _json({"type": "object", "properties": {
                "events": {"type": "array", "items": _EVENT},
                "next_after": {"type": "integer"},
                "captions": {"type": "object", "additionalProperties": {"type": "string"},
                             "description": "One line for people about each move, by "
                                            "seq, from public information only"}}},
                "Events in order"),
                **_errors(400, 401, 403, 404)}}},
        "/matches/{match_id}/board.svg": {"get": {
            "summary": "The board now, drawn by the game: public information only without "
                       "a token, the seat's own perspective with its token",
            "parameters": [_MATCH_ID], "security": [{}, {"bearerAuth": []}],
            "responses": {"200": {"description": "An SVG drawing",
                                  "content": {"image/svg+xml": {"schema": {
                                      "type": "string"}}}},
                          **_errors(401, 403, 404, 409)}}},
        "/matches/{match_id}/bundle": {"get": {
            "summary": "The sealed bundle (409 before the end), with the tlog proofs of its "
                       "genesis and seal leaves in 'log'; a token, if sent, must be a seat's",
            "parameters": [_MATCH_ID, {
                "name": "log_size", "in": "query", "required": False,
                "schema": _int(0, INT64_MAX),
                "description": "Prove against the checkpoint signed at this tree size "
                               "(default: the latest)"}],
            "security": [{}, {"bearerAuth": []}],
            "responses": {"200": _json({"type": "object"}, "The bundle file"),
                          **_errors(400, 401, 403, 404, 409)}}},
        "/bundles": {"post": {
            "summary": "Import a bundle: verified first, stored read-only if it passes",
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": {"type": "object"}}}},
            "responses": {"201": _json({"type": "object", "properties": {
                "id": {"type": "string"}, "report": {"type": "object"},
                "signed_by": _SIGNED_BY}},
                "Imported (verified under the key in the file: signed_by says whether it is "
                "this server's)"),
                **_errors(409, 413, 422, 429, 503)}}},
        "/keys": {"get": {
            "summary": "The server's public keys (ed25519:<hex>)",
            "responses": {"200": _json({"type": "object"}, "Keys")}}},
    }


def _count(name: str, description: str, required: bool) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "description": description,
            "schema": _int(0, INT64_MAX)}


_B64_HASHES = {"type": "array", "items": {"type": "string", "contentEncoding": "base64"}}


def _log_paths() -> dict[str, Any]:
    """The transparency log's endpoints (docs/ledger.md, "The transparency log")."""
    return {
        "/log/checkpoint": {"get": {
            "summary": "The latest signed checkpoint (C2SP tlog-checkpoint: origin, tree size, "
                       "base64 root hash, then the Ed25519 signed-note signature and the "
                       "witnesses' cosignatures)",
            "parameters": [_count("size", "A checkpoint signed earlier, by its tree size",
                                  False)],
            "responses": {"200": {"description": "The checkpoint note",
                                  "content": {"text/plain": {"schema": {"type": "string"}}}},
                          **_errors(400)}}},
        "/log/cosignature": {"post": {
            "summary": "A witness hands in its cosignature (C2SP tlog-cosignature) of one of "
                       "the log's checkpoints; kept when the server accepts that witness",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["checkpoint"], "additionalProperties": False,
                "properties": {"checkpoint": {"type": "string"}}}}}},
            "responses": {"200": _json({"type": "object"}, "Known already"),
                          "201": _json({"type": "object", "properties": {
                              "added": {"type": "integer"}}}, "Kept"), **_errors(400)}}},
        "/log/proof/inclusion": {"get": {
            "summary": "An RFC 9162 inclusion proof of one leaf, named by index or by match",
            "parameters": [
                _count("index", "The leaf's index (or give match and kind)", False),
                {"name": "match", "in": "query", "required": False,
                 "schema": {"type": "string"}, "description": "A match id"},
                {"name": "kind", "in": "query", "required": False,
                 "schema": {"enum": ["genesis", "seal"], "default": "seal"}},
                _count("size", "The tree size (default: the latest checkpoint's)", False)],
            "responses": {"200": _json({"type": "object", "required": [
                "index", "size", "leaf", "leaf_hash", "hashes"], "properties": {
                "index": {"type": "integer"}, "size": {"type": "integer"},
                "leaf": {"type": "string"}, "leaf_hash": {"type": "string"},
                "hashes": _B64_HASHES, "checkpoint": {"type": ["string", "null"]},
                "proof": {"type": ["string", "null"],
                          "description": "c2sp.org/tlog-proof text"}}}, "The proof"),
                **_errors(400)}}},
        "/log/proof/consistency": {"get": {
            "summary": "An RFC 9162 consistency proof from tree size old to tree size new",
            "parameters": [_count("old", "The smaller tree size", True),
                           _count("new", "The larger tree size", True)],
            "responses": {"200": _json({"type": "object", "required": ["old", "new", "hashes"],
                                        "properties": {"old": {"type": "integer"},
                                                       "new": {"type": "integer"},
                                                       "hashes": _B64_HASHES}}, "The proof"),
                          **_errors(400)}}},
        "/log/leaves": {"get": {
            "summary": "The log's leaves in order (their bytes: docs/SPEC.md)",
            "parameters": [{"name": "after", "in": "query", "required": False,
                            "schema": _int(-1, INT64_MAX, -1)},
                           {"name": "limit", "in": "query", "required": False,
                            "schema": _int(1, 10_000, 1000)}],
            "responses": {"200": _json({"type": "object"}, "Leaves"), **_errors(400)}}},
    }
