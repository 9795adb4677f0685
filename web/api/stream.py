"""GET /api/v1/matches/<id>/stream: a match's public events as they are written, as
Server-Sent Events (text/event-stream).

Each event goes out as ``id: <seq>`` / ``event: event`` / ``data: {"event": …, "caption": …}``:
the event exactly as GET /matches/<id>/events returns it (the same ``Ledger.public_events``,
never a second redaction) and its caption. A client that drops reconnects with the id it saw
last — ``Last-Event-ID``, which browsers' EventSource send by themselves, or ``?after=`` — and
resumes at the next event, without a gap or a repeat. A comment line every ``heartbeat`` seconds
keeps proxies from closing a quiet stream (and finds a client that went away); the stream ends
with ``event: end`` once the match is sealed, or ``event: idle`` after ``idle`` seconds without
an event (reconnect to go on).

Behind the stream is a short poll of the ledger's read side (every ``poll`` seconds; a write by
this process wakes it at once): on SQLite a poll that finds nothing new costs one
``PRAGMA data_version``, on PostgreSQL two indexed reads of the match's newest events.

Streams are bounded: ``FAIRDEAL_STREAMS_MAX`` open at once in a process (503 when full; each
holds a worker thread) and ``FAIRDEAL_STREAMS_PER_CLIENT`` from one client address (429). A
slot is given back when the stream ends or its client goes away (found at the next write).
Settings (``create_app`` config keys or the environment, numbers): ``FAIRDEAL_STREAMS_MAX``
(32), ``FAIRDEAL_STREAMS_PER_CLIENT`` (8), ``FAIRDEAL_STREAM_HEARTBEAT_S`` (15),
``FAIRDEAL_STREAM_IDLE_S`` (300), ``FAIRDEAL_STREAM_POLL_S`` (0.5).
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, current_app, request

from fairdeal.ledger.service import Ledger

from ..queryargs import int_query, parse_int
from .blueprint import bp
from .body import bearer_token
from .errors import error_response

__all__ = ["EventStream", "StreamSettings", "StreamSlots", "init_app"]

log = logging.getLogger("fairdeal.web.stream")

#: events read from the ledger per poll (a stream that starts far behind catches up in pages)
PAGE = 500
#: statuses of a match that will write no more events
FINISHED = ("ended", "imported")


@dataclass(frozen=True)
class StreamSettings:
    """The bounds and timings of the live streams of one process."""

    max_streams: int = 32
    max_per_client: int = 8
    heartbeat_s: float = 15.0
    idle_s: float = 300.0
    poll_s: float = 0.5
    #: how long a browser's EventSource waits before it reconnects (the ``retry:`` field)
    retry_ms: int = 2000

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> StreamSettings:
        """The settings from ``config`` keys or the environment; ValueError naming the setting
        for a value that is not a number in its range."""
        def read(name: str, default: float, minimum: float, whole: bool) -> Any:
            value = config.get(name, os.environ.get(name))
            if value is None or value == "":
                return default
            try:
                number = int(value) if whole else float(value)
            except (TypeError, ValueError):
                number = math.nan
            if not number >= minimum or math.isinf(number):
                kind = "a whole number" if whole else "a number of seconds"
                raise ValueError(f"{name} must be {kind} of at least {minimum:g}, "
                                 f"got {value!r}")
            return number

        return cls(max_streams=read("FAIRDEAL_STREAMS_MAX", 32, 0, True),
                   max_per_client=read("FAIRDEAL_STREAMS_PER_CLIENT", 8, 0, True),
                   heartbeat_s=read("FAIRDEAL_STREAM_HEARTBEAT_S", 15.0, 0.05, False),
                   idle_s=read("FAIRDEAL_STREAM_IDLE_S", 300.0, 0.1, False),
                   poll_s=read("FAIRDEAL_STREAM_POLL_S", 0.5, 0.01, False))


class StreamSlots:
    """Counts the open streams of this process, in all and by client address."""

    def __init__(self, settings: StreamSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._open = 0
        self._by_client: dict[str, int] = {}

    def take(self, client: str) -> str | None:
        """Take a slot for ``client``: None when taken, else why not (``"server"`` full,
        ``"client"`` has its share)."""
        with self._lock:
            if self._open >= self.settings.max_streams:
                return "server"
            if self._by_client.get(client, 0) >= self.settings.max_per_client:
                return "client"
            self._open += 1
            self._by_client[client] = self._by_client.get(client, 0) + 1
            return None

    def give_back(self, client: str) -> None:
        """Give back a slot ``take`` gave ``client``."""
        with self._lock:
            self._open -= 1
            left = self._by_client.get(client, 1) - 1
            if left > 0:
                self._by_client[client] = left
            else:
                self._by_client.pop(client, None)

    def open_streams(self) -> int:
        """How many streams are open now."""
        with self._lock:
            return self._open


def _frame(kind: str, data: Mapping[str, Any], seq: int | None = None) -> str:
    head = "" if seq is None else f"id: {seq}\n"
    return f"{head}event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class EventStream:
    """The body of one stream: an iterable the WSGI server writes out and closes (``close``
    gives the slot back, whether the stream ended, failed or lost its client)."""

    def __init__(self, ledger: Ledger, match_id: str, after: int, settings: StreamSettings,
                 release: Any) -> None:
        self.ledger = ledger
        self.match_id = match_id
        self.after = after
        self.settings = settings
        self._release = release
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        try:
            for text in self._frames():
                yield text.encode()
        except Exception as e:  # a store that fails mid-stream: say so; the client resumes
            log.warning("stream of match %s stops: %s", self.match_id, e)
            yield _frame("error", {"message": "the server could not read the match just now; "
                                              "reconnect to resume", "next_after": self.after}
                         ).encode()
        finally:
            # also here, not in close() alone: should a server fail to call close() (WSGI
            # asks it to; a client gone mid-write is where servers' error paths differ), the
            # generator's own end, or its collection, still gives the slot back
            self.close()

    def close(self) -> None:
        """Give the slot back (once, however often it is called)."""
        if not self._closed:
            self._closed = True
            self._release()

    def _frames(self) -> Iterator[str]:
        settings, ledger = self.settings, self.ledger
        yield f"retry: {settings.retry_ms}\n: match {self.match_id}, events after {self.after}\n\n"
        last_event = last_write = time.monotonic()
        first = True
        while True:
            # counted before the read: a write after it wakes the wait below
            seen = ledger.writes(self.match_id)
            events = ledger.public_events(self.match_id, self.after, PAGE)
            if events:
                captions = ledger.public_captions(self.match_id, self.after)
                for event in events:
                    yield _frame("event", {"event": event, "caption": captions.get(event["seq"])},
                                 event["seq"])
                    self.after = event["seq"]
                last_event = last_write = time.monotonic()
                if events[-1]["type"] == "reveal":
                    yield self._end()
                    return
                continue
            if first and ledger.get_match(self.match_id)["status"] in FINISHED:
                yield self._end()
                return
            first = False
            now = time.monotonic()
            if now - last_event >= settings.idle_s:
                yield _frame("idle", {"message": f"no event for {settings.idle_s:g} s: "
                                                 "reconnect to go on", "next_after": self.after})
                return
            if now - last_write >= settings.heartbeat_s:
                yield ": keep-alive\n\n"
                last_write = now
            wait = min(settings.poll_s, settings.heartbeat_s - (now - last_write),
                       settings.idle_s - (now - last_event))
            ledger.wait_for_write(self.match_id, seen, max(0.0, wait))

    def _end(self) -> str:
        match = self.ledger.get_match(self.match_id)
        return _frame("end", {"match_id": self.match_id, "status": match["status"],
                              "result": match["result"], "next_after": self.after})


def _resume_point() -> int:
    """Where to resume: the ``Last-Event-ID`` header (a reconnecting EventSource sends it)
    over ``?after=``; -1 (from the start) without either."""
    header = request.headers.get("Last-Event-ID")
    if header is not None and header.strip():
        return parse_int("Last-Event-ID", header.strip(), -1, 10**9)
    return int_query("after", -1, minimum=-1, maximum=10**9)


@bp.get("/matches/<match_id>/stream")
def stream(match_id: str) -> Response:
    ledger: Ledger = current_app.extensions["fairdeal.ledger"]
    token = bearer_token(required=False)
    if token is not None:  # as on every public read: a wrong token never passes for no token
        ledger.seat_of(match_id, token)
    ledger.get_match(match_id)  # 404 for no such match, before a slot is taken
    after = _resume_point()
    if not request.environ.get("wsgi.multithread"):
        # gunicorn's sync worker (no --threads): a stream would hold the whole worker, and
        # every other request sent to it would wait for the match to end
        response = error_response(503, "streams-unavailable", (
            "this server handles one request at a time per worker, so it serves no live "
            "streams (run gunicorn with --threads, see docs/ledger.md); poll "
            f"GET /api/v1/matches/{match_id}/events?after=N instead"))
        response.headers["Retry-After"] = "60"
        return response
    slots: StreamSlots = current_app.extensions["fairdeal.streams"]
    client = request.remote_addr or "unknown"
    full = slots.take(client)
    if full == "server":
        response = error_response(503, "streams-full", (
            f"this server has its {slots.settings.max_streams} live streams open, the most it "
            f"serves at once; retry in a few seconds, or poll "
            f"GET /api/v1/matches/{match_id}/events?after=N"))
        response.headers["Retry-After"] = "5"
        return response
    if full == "client":
        response = error_response(429, "too-many-streams", (
            f"this address has {slots.settings.max_per_client} live streams open already, the "
            "most one address may; close one first"))
        response.headers["Retry-After"] = "5"
        return response
    body = EventStream(ledger, match_id, after, slots.settings, lambda: slots.give_back(client))
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def init_app(app: Flask) -> None:
    """The stream settings (``StreamSettings.from_config``) and slots of ``app``."""
    settings = StreamSettings.from_config(app.config)
    app.extensions["fairdeal.streams"] = StreamSlots(settings)
