"""The OpenAPI section of the live stream, GET /matches/{match_id}/stream (web/api/stream.py):
a module of its own so that the document's other sections stay as they are."""

from __future__ import annotations

from typing import Any

__all__ = ["stream_paths"]

_ERROR = {"$ref": "#/components/schemas/Error"}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ERROR}}}


_DESCRIPTION = """\
Server-Sent Events (text/event-stream). Each public event of the match, in order:

    id: <seq>
    event: event
    data: {"event": <the event exactly as GET /matches/{match_id}/events gives it>,
           "caption": <its caption, or null>}

then, once the match is sealed, `event: end` with data {match_id, status, result, next_after},
and the stream closes. Nothing secret is sent before the reveal: the events are the public
events' answer itself. `event: idle` (data {message, next_after}) closes a stream that saw no
event for FAIRDEAL_STREAM_IDLE_S seconds (300); `event: error` one the server could not go on
reading; reconnect after either. A comment line (`: keep-alive`) every
FAIRDEAL_STREAM_HEARTBEAT_S seconds (15) keeps proxies from closing a quiet stream.

To resume after a dropped connection, send the last id seen as the Last-Event-ID header
(browsers' EventSource do so by themselves; the `retry:` field says how long they wait) or as
`after`: the stream starts at the next event, so no event is missed or sent twice. Events
written by this server process arrive at once, others' within FAIRDEAL_STREAM_POLL_S (0.5 s).

Bounded: FAIRDEAL_STREAMS_MAX open streams per server process (32; 503 streams-full) and
FAIRDEAL_STREAMS_PER_CLIENT per client address (8; 429 too-many-streams), both with
Retry-After; a stream's slot is given back when it ends or its client goes away. A server
whose workers take one request at a time (gunicorn's sync worker) answers 503
streams-unavailable: poll GET /matches/{match_id}/events?after=N instead."""


def stream_paths() -> dict[str, Any]:
    """The path item of the live stream."""
    return {"/matches/{match_id}/stream": {"get": {
        "summary": "A match's public events as they are written (Server-Sent Events), "
                   "resumable by Last-Event-ID or after; a token, if sent, must be a seat's",
        "description": _DESCRIPTION,
        "security": [{}, {"bearerAuth": []}],
        "parameters": [
            {"name": "match_id", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "after", "in": "query", "required": False,
             "schema": {"type": "integer", "minimum": -1, "maximum": 10**9, "default": -1},
             "description": "Start after this seq (-1: from the genesis)"},
            {"name": "Last-Event-ID", "in": "header", "required": False,
             "schema": {"type": "integer", "minimum": -1, "maximum": 10**9},
             "description": "The last id seen; wins over after"}],
        "responses": {
            "200": {"description": "The event stream",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}}},
            "400": _error("after or Last-Event-ID is not an integer in range"),
            "401": _error("Malformed bearer token"),
            "403": _error("The token is not a seat of this match"),
            "404": _error("No such match"),
            "429": _error("This client address has its streams open already (Retry-After)"),
            "503": _error("The server's streams are full, or its workers serve none "
                          "(Retry-After); poll the events instead"),
        }}}}
