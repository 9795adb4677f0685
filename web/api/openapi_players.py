"""The OpenAPI section of the player routes (web/api/players.py): a seat key's matches, a key's
tournaments and the search. Kept beside openapi.py, which merges it into the document."""

from __future__ import annotations

from typing import Any

__all__ = ["player_paths", "player_schemas"]

_KEY_ID = {"type": "string", "pattern": "^[0-9a-f]{16}$"}
_OUTCOME = {"type": ["string", "null"], "enum": ["win", "loss", "draw", None],
            "description": "How the match ended for the key's seat(s); null while in play. "
                           "A key at both seats of a match has a draw"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json({"$ref": "#/components/schemas/Error"}, description)


def player_schemas() -> dict[str, Any]:
    """The shapes the player paths refer to."""
    return {
        "KeyTournaments": _key_tournaments_schema(),
        "MatchSummary": {"type": "object", "description": "A match as the listings show it",
                         "properties": {
            "id": {"type": "string"}, "game": {"type": "string"}, "params": {"type": "object"},
            "seats": {"type": "array", "items": {"type": "string"},
                      "description": "The names at the seats (free text: not an identity)"},
            "status": {"type": "string", "enum": ["seating", "playing", "ended", "imported"]},
            "result": {"type": ["object", "null"]}, "verified": {"type": "boolean"},
            "signed_by": {"$ref": "#/components/schemas/SignedBy"},
            "imported": {"type": "boolean"}, "created_ms": {"type": "integer"},
            "events": {"type": "integer"}}},
        "KeyMatches": {"type": "object", "required": [
            "key_id", "public_keys", "matches", "limit", "next_cursor", "total", "names",
            "record"], "properties": {
            "key_id": _KEY_ID,
            "public_keys": {"type": "array", "items": {
                "type": "string", "pattern": "^ed25519:[0-9a-f]{64}$"}},
            "matches": {"type": "array", "items": {"allOf": [
                {"$ref": "#/components/schemas/MatchSummary"},
                {"type": "object", "properties": {
                    "key_seats": {"type": "array", "items": {"type": "integer"},
                                  "description": "The seats the key signed"},
                    "key_result": _OUTCOME}}]}},
            "limit": {"type": "integer"}, "cursor": {"type": ["string", "null"]},
            "next_cursor": {"type": ["string", "null"],
                            "description": "Pass as cursor for the next (older) page; null "
                                           "on the last page"},
            "total": {"type": "integer", "description": "Matches the key signed, in all"},
            "names": {"type": "array", "description": "The names the key sat under, most "
                      "used first: labels beside the key, never instead of it",
                      "items": {"type": "object", "properties": {
                          "name": {"type": "string"}, "seats": {"type": "integer"}}}},
            "record": {"type": "object", "description": "By game: wins, losses, draws, and "
                       "unfinished (in play, or never sealed)",
                       "additionalProperties": {"type": "object", "properties": {
                           name: {"type": "integer"}
                           for name in ("wins", "losses", "draws", "unfinished")}}}}},
    }


def player_paths() -> dict[str, Any]:
    """``/keys/{key_id}/matches``, ``/keys/{key_id}/tournaments`` and ``/search``."""
    return {
        "/keys/{key_id}/matches": {"get": {
            "summary": "Every match a seat key signed on this server, newest first, with the "
                       "names it sat under and its record by game",
            "parameters": [
                {"name": "key_id", "in": "path", "required": True,
                 "description": "The seat key's id (16 hex digits, verifier.keys.key_id), the "
                                "start of one (4+ digits, if only one key here starts so), or "
                                "the public key ed25519:<64 hex>",
                 "schema": {"type": "string"}},
                {"name": "limit", "in": "query",
                 "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}},
                {"name": "cursor", "in": "query", "schema": {"type": "string"},
                 "description": "next_cursor of the page before"}],
            "responses": {
                "200": _json({"$ref": "#/components/schemas/KeyMatches"}, "One page"),
                "400": _error("Malformed key id (invalid-key-id), a prefix several keys "
                              "start with (ambiguous-key-id, naming them), a bad cursor or "
                              "limit"),
                "404": _error("No match here was signed by that key (key-not-found)"),
                "503": _error("The database is unavailable")}}},
        "/keys/{key_id}/tournaments": _key_tournaments_path(),
        "/search": {"get": {
            "summary": "The home page's search: 4+ hex digits are the start of a match id or "
                       "a key id; anything else is a player's name, exactly (each seat's key "
                       "id beside its name)",
            "parameters": [
                {"name": "q", "in": "query", "required": True, "schema": {"type": "string",
                                                                            "maxLength": 200}},
                {"name": "limit", "in": "query",
                 "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
                {"name": "offset", "in": "query",
                 "schema": {"type": "integer", "minimum": 0, "default": 0}}],
            "responses": {
                "200": _json({"type": "object", "required": ["query", "kind", "keys",
                                                             "matches", "has_more"],
                              "properties": {
                    "query": {"type": "string"},
                    "kind": {"type": "string", "enum": ["prefix", "name"]},
                    "tried_prefix": {"type": "boolean", "description": "Hex that starts no "
                                     "id here, looked up as a name instead"},
                    "keys": {"type": "array", "items": {"type": "object", "properties": {
                        "key_id": _KEY_ID, "names": {"type": "array"},
                        "total": {"type": "integer"}}}},
                    "matches": {"type": "array", "items": {"allOf": [
                        {"$ref": "#/components/schemas/MatchSummary"},
                        {"type": "object", "properties": {"seat_key_ids": {
                            "type": "array", "items": {"type": ["string", "null"]}}}}]}},
                    "has_more": {"type": "boolean"}}}, "What was found"),
                "400": _error("An empty or over-long search, or a bad limit or offset")}}},
    }


def _key_tournaments_schema() -> dict[str, Any]:
    """The page of a key's tournaments (``Ledger.key_tournaments``)."""
    return {"type": "object", "required": [
        "key_id", "tournaments", "next_cursor"], "properties": {
        "key_id": _KEY_ID,
        "tournaments": {"type": "array", "items": {"type": "object", "required": [
            "id", "name", "status", "player"], "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "game": {"type": "string"}, "system": {"type": "string"},
            "status": {"type": "string", "enum": ["registering", "running", "finished"]},
            "players": {"type": "integer"}, "round": {"type": "integer"},
            "rounds": {"type": "integer"},
            "player": {"type": "object", "description": "The key's registration",
                       "properties": {
                           "name": {"type": "string"},
                           "public_key": {"type": "string"},
                           "withdrawn_from": {"type": ["integer", "null"]}}},
            "rank": {"type": ["integer", "null"],
                     "description": "Its rank now (null before the start)"},
            "score": {"type": ["integer", "null"],
                      "description": "Its score now, in half-points"}}}},
        "next_cursor": {"type": ["string", "null"],
                        "description": "Pass as cursor for the next (older) page; null "
                                       "on the last page"}}}


def _key_tournaments_path() -> dict[str, Any]:
    """``/keys/{key_id}/tournaments``."""
    return {"get": {
        "summary": "The tournaments a key registered in on this server, newest first, "
                   "with its registration and where it stands now",
        "parameters": [
            {"name": "key_id", "in": "path", "required": True,
             "description": "The key's id (16 hex digits, verifier.keys.key_id) or the "
                            "public key ed25519:<64 hex>",
             "schema": {"type": "string"}},
            {"name": "limit", "in": "query",
             "schema": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}},
            {"name": "cursor", "in": "query", "schema": {"type": "string"},
             "description": "next_cursor of the page before"}],
        "responses": {
            "200": _json({"$ref": "#/components/schemas/KeyTournaments"},
                         "One page (empty when the key registered in none)"),
            "400": _error("Malformed key id, or a prefix (invalid-key-id), a bad cursor "
                          "(invalid-cursor) or limit, an unknown query parameter "
                          "(invalid-query)"),
            "503": _error("The database is unavailable")}}}
