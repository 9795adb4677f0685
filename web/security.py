"""Security headers on every response, and rate limits on what creates or stores something.

Headers (``init_app`` registers them app-wide, so the API's answers, ``board.svg``, bundle
downloads and error pages get them too): a Content-Security-Policy, ``nosniff``, a referrer
policy, and ``frame-ancestors 'self'`` (the viewer) or ``'none'`` (the API) — except
``/embed/``, whose point is to be framed anywhere (it sets its own policy).

Rate limits (``FAIRDEAL_RATE_LIMITS``, config key or environment): per client address and per
kind, a token bucket of ``count`` requests refilled over ``seconds``:

- ``create``: POST /api/v1/matches and POST /api/v1/tournaments
- ``upload``: POST /upload (verify a file in the viewer)
- ``import``: POST /api/v1/bundles, and storing an upload (POST /upload with "store" counts
  against both, POST /u/<key>/store)
- ``gif``: drawing a replay GIF (GET /m/<id>.gif) that is not in the cache yet; a cached one
  is free

The setting is ``off``, or ``kind=count/seconds`` pairs (``create=60/60,upload=30/60``); kinds
left out keep their default. Over the limit: 429 with ``Retry-After`` (whole seconds until the
next request is allowed) and a message naming the limit. The buckets live beside the ledger
(ledger.ratelimits: its PostgreSQL database, or a SQLite file next to its own), so every
process serving it — gunicorn's workers, several machines on one PostgreSQL — counts
together; should the database fail to answer, each process counts on its own until it does
(the limit is a brake, and a request that stores something fails on its own then anyway). The
viewer alone (no ledger) counts in its process. The client address is ``request.remote_addr``:
behind a proxy, apply werkzeug's ProxyFix so it is the client's and not the proxy's.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from fairdeal.ledger.ratelimits import SharedBuckets
from fairdeal.ledger.storeerrors import StoreError

log = logging.getLogger("fairdeal.web")

__all__ = ["API_CSP", "API_HEADERS", "DEFAULT_LIMITS", "ENDPOINT_KINDS", "UPLOAD_LIMIT",
           "VIEWER_CSP", "RateLimiter", "init_app", "parse_limits", "init_headers",
           "rate_limited"]

#: the viewer's pages load scripts, styles and images from here only; the games' SVG may use
#: inline style attributes
VIEWER_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
              "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
              "frame-ancestors 'self'")
#: the API answers data, never a page: nothing in it may load or run, nor be framed (a drawn
#: board keeps its inline styles)
API_CSP = ("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
           "form-action 'none'; frame-ancestors 'none'")

#: uploads larger than this are refused with a clear page (a 300-play match is ~100 kB); the
#: viewer's upload form and the rate-limit page shown in its place both state it
UPLOAD_LIMIT = 5 * 1024 * 1024

DEFAULT_LIMITS: dict[str, tuple[int, float]] = {
    "create": (60, 60.0), "upload": (30, 60.0), "import": (30, 60.0), "gif": (30, 60.0)}
#: which endpoint counts against which limit
ENDPOINT_KINDS = {"api.create_match": "create", "api.create_tournament": "create",
                   "api.import_bundle": "import",
                   "viewer.upload_post": "upload", "viewer.upload_store": "import"}
#: addresses remembered at most (the oldest are forgotten first: a full bucket again)
_MAX_CLIENTS = 10_000


def parse_limits(setting: str | Mapping[str, Any] | None) -> dict[str, tuple[int, float]]:
    """``off`` -> no limit; ``"create=60/60,import=10/60"`` or a mapping -> the limits, the
    defaults for kinds left out. Raise ValueError naming a malformed part."""
    if setting is None or setting == "":
        return dict(DEFAULT_LIMITS)
    if isinstance(setting, str) and setting.strip().lower() in ("off", "0", "false", "none"):
        return {}
    pairs: dict[str, Any] = dict(setting) if isinstance(setting, Mapping) else {}
    if isinstance(setting, str):
        for part in setting.split(","):
            kind, sep, value = part.strip().partition("=")
            if not sep:
                raise ValueError(f"FAIRDEAL_RATE_LIMITS: expected kind=count/seconds, "
                                 f"got {part!r}")
            pairs[kind.strip()] = value.strip()
    limits = dict(DEFAULT_LIMITS)
    for kind, value in pairs.items():
        if kind not in DEFAULT_LIMITS:
            raise ValueError(f"FAIRDEAL_RATE_LIMITS: unknown kind {kind!r} (known: "
                             f"{', '.join(DEFAULT_LIMITS)})")
        if value in ("off", None):
            limits.pop(kind)
            continue
        count, _, seconds = str(value).partition("/")
        try:
            limits[kind] = (int(count), float(seconds or 60))
        except ValueError:
            raise ValueError(f"FAIRDEAL_RATE_LIMITS: {kind}={value!r} is not "
                             "count/seconds") from None
        if limits[kind][0] < 1 or limits[kind][1] <= 0:
            raise ValueError(f"FAIRDEAL_RATE_LIMITS: {kind}={value!r} must allow at least one "
                             "request over a positive time")
    return limits


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """Token buckets per (kind, client). ``take`` answers None when allowed, else the seconds
    until the next request would be. With ``shared`` the buckets are the database's, shared
    by every process on it; this process's own are the fallback while it does not answer."""

    def __init__(self, limits: Mapping[str, tuple[int, float]],
                 clock: Callable[[], float] = time.monotonic,
                 shared: SharedBuckets | None = None) -> None:
        self.limits = dict(limits)
        self.clock = clock
        self.shared = shared
        self._longest = max((seconds for _, seconds in self.limits.values()), default=0.0)
        self._buckets: OrderedDict[tuple[str, str], _Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, kind: str, client: str) -> float | None:
        limit = self.limits.get(kind)
        if limit is None:
            return None
        count, seconds = limit
        if self.shared is not None:
            try:
                return self.shared.take(kind, client, count, seconds, self._longest)
            except StoreError as e:
                log.warning("rate limits: the database did not answer (%s); counting in this "
                            "process until it does", e.error_type)
        rate = count / seconds
        now = self.clock()
        with self._lock:
            bucket = self._buckets.pop((kind, client), None) or _Bucket(count, now)
            bucket.tokens = min(count, bucket.tokens + (now - bucket.stamp) * rate)
            bucket.stamp = now
            self._buckets[(kind, client)] = bucket
            while len(self._buckets) > _MAX_CLIENTS:
                self._buckets.popitem(last=False)
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return None
            return (1 - bucket.tokens) / rate


def rate_limited(kind: str) -> Any:
    """For a view that learns late that it will store something (an upload with "store"):
    None when this client may, else the 429 answer to return."""
    from flask import current_app

    limiter: RateLimiter | None = current_app.extensions.get("fairdeal.rate_limiter")
    if limiter is None:  # the viewer on its own (standalone.py) has no limiter
        return None
    wait = limiter.take(kind, request.remote_addr or "unknown")
    return None if wait is None else _limited(kind, wait, limiter.limits)


def _limited(kind: str, wait: float, limits: Mapping[str, tuple[int, float]]) -> Any:
    count, seconds = limits[kind]
    retry = max(1, math.ceil(wait))
    message = (f"too many {kind} requests from this address: the limit is {count} per "
               f"{seconds:g} s; retry in {retry} s")
    if kind == "gif":  # an image was asked for: no page to show the message in
        response = Response(f"{message}\n", status=429, mimetype="text/plain")
    elif request.blueprint == "api":
        response = jsonify({"error": {"code": "rate-limited", "message": message,
                                      "retry_after": retry}})
        response.status_code = 429
    else:
        response = Response(render_template(
            "viewer/upload.html", limit_mb=UPLOAD_LIMIT // (1024 * 1024), error=message,
            pasted="", can_store=True), status=429)
    response.headers["Retry-After"] = str(retry)
    return response


#: the headers every answer gets unless its view set them: (name, its lower case, value), for
#: the API, the viewer, and /embed/ (framed anywhere: no X-Frame-Options)
API_HEADERS: tuple[tuple[str, str, str], ...] = (
    ("Content-Security-Policy", "content-security-policy", API_CSP),
    ("X-Content-Type-Options", "x-content-type-options", "nosniff"),
    ("Referrer-Policy", "referrer-policy", "no-referrer"),
    ("X-Frame-Options", "x-frame-options", "DENY"))
_VIEWER_HEADERS: tuple[tuple[str, str, str], ...] = (
    ("Content-Security-Policy", "content-security-policy", VIEWER_CSP),
    ("X-Content-Type-Options", "x-content-type-options", "nosniff"),
    ("Referrer-Policy", "referrer-policy", "same-origin"),
    ("X-Frame-Options", "x-frame-options", "SAMEORIGIN"))
_EMBED_HEADERS = _VIEWER_HEADERS[:3]


def _headers(response: Response) -> Response:
    # each header as setdefault would (added last, unless the view set it), but the answer's
    # headers read once: four setdefaults searched them four times, a twentieth of an API
    # request's CPU
    path = request.path
    wanted = (API_HEADERS if path.startswith("/api/")
              else _EMBED_HEADERS if path.startswith("/embed/") else _VIEWER_HEADERS)
    headers = response.headers
    present = {name.lower() for name in headers.keys()}
    for name, lower, value in wanted:
        if lower not in present:
            headers.add(name, value)
    return response


def init_headers(app: Flask) -> None:
    """The security headers on every response of ``app``."""
    app.after_request(_headers)


def init_app(app: Flask) -> None:
    """Headers on every response; the rate limiter from FAIRDEAL_RATE_LIMITS."""
    init_headers(app)
    setting = app.config.get("FAIRDEAL_RATE_LIMITS", os.environ.get("FAIRDEAL_RATE_LIMITS"))
    limits = parse_limits(setting)
    ledger = app.extensions.get("fairdeal.ledger")
    shared = ledger.rate_buckets() if ledger is not None and limits else None
    limiter = RateLimiter(limits, shared=shared)
    app.extensions["fairdeal.rate_limiter"] = limiter

    @app.before_request
    def _rate_limit() -> Any:
        if request.method != "POST" or not limiter.limits:
            return None
        # the form is not read here: the upload view sets its own size limits before it reads
        kind = ENDPOINT_KINDS.get(request.endpoint or "")
        if kind is None:
            return None
        wait = limiter.take(kind, request.remote_addr or "unknown")
        return None if wait is None else _limited(kind, wait, limiter.limits)
