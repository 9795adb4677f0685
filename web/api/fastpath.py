"""The two requests a match's moves are made of, answered in front of Flask.

Under load a move is two requests: the seat's POST of the move and the other seat's GET of its
view (a move's answer carries the mover's own view). Flask's part of each — the request
context, URL matching, hooks, signals, the response object and its headers — cost about 75 µs
of a GET's 95 µs in-process (the ledger's view and its JSON: 18 µs). ``FastPath`` sits where
``app.wsgi_app`` was and answers exactly those two itself, with the same functions the routes
call (``body.parse_bearer``, ``body.parse_body``, ``routes.play_move``, ``routes.played``,
the ledger) and the same bytes: status line, headers in their order, body. Everything else,
and every request of those two that is not plain — no Content-Length, a body too large,
chunked, HEAD, a path Flask would redirect — goes to Flask untouched.

Errors keep Flask's exact answers without running the request twice: a request the fast path
has read and handed to the ledger, and that failed (a conflict, a wrong token, an illegal
move, the database away), is answered by Flask's own error handling of that exception (the
API blueprint's handlers and the after-request headers), in a request context made for it.

What Flask would do and the fast path skips is checked when it is installed, so that a hook
added later cannot be bypassed silently: ``install`` leaves the app as it is (and says why in
the log) when the app has any before-request hook but the rate limiter (which never counts
these two endpoints), any after-request hook but the security headers (whose API headers the
fast path writes), a teardown or URL hook, or routes under ``/api/v1/matches/`` that the two
patterns could shadow. Flask's signals (``request_started`` ...) are not sent for these two
requests; nothing in fairdeal listens to them. ``FAIRDEAL_FAST_PATH=off`` (config key or
environment) serves every request through Flask; tests/web/api/test_fastpath.py holds the two
to the same bytes over whole matches of every game, their errors included.
"""

from __future__ import annotations

import io
import logging
import os
import re
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES

from fairdeal.ledger.service import Ledger

from .. import security
from ..jsonanswers import FastJSONProvider, fast_bytes
from .body import MAX_BODY_BYTES, parse_bearer, parse_body
from .routes import play_move, played

__all__ = ["FastPath", "install", "plain_request"]

log = logging.getLogger("fairdeal.web.api")

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

#: a seat's view and a move: Flask's ``<match_id>`` (any characters but a slash)
_VIEW = re.compile(r"/api/v1/matches/([^/]+)")
_ACTIONS = re.compile(r"/api/v1/matches/([^/]+)/actions")
#: the routes the two patterns may match, and nothing else under /api/v1/matches/
_EXPECTED_RULES = {"/api/v1/matches/<match_id>": "api.get_match",
                   "/api/v1/matches/<match_id>/actions": "api.play"}
_STATUS = {code: f"{code} {HTTP_STATUS_CODES[code].upper()}" for code in (200, 201)}
_CONTENT_TYPE = ("Content-Type", "application/json")
#: the security headers of an API answer (security.API_HEADERS), in the order they are added
_SECURITY = [(name, value) for name, _lower, value in security.API_HEADERS]


def _enabled(app: Flask) -> bool:
    setting = app.config.get("FAIRDEAL_FAST_PATH", os.environ.get("FAIRDEAL_FAST_PATH", "on"))
    return str(setting).strip().lower() not in ("off", "0", "false", "no")


def _why_not(app: Flask) -> str | None:
    """Why the fast path would answer differently from ``app``, or None when it would not."""
    befores = app.before_request_funcs
    if any(key is not None for key in befores) or [
            (f.__module__, f.__name__) for f in befores.get(None, [])] != [
            (security.__name__, "_rate_limit")]:
        return "the app has before-request hooks other than the rate limiter"
    if any(endpoint in security.ENDPOINT_KINDS for endpoint in _EXPECTED_RULES.values()):
        return "a rate limit counts a seat's view or a move"
    afters = app.after_request_funcs
    if any(key is not None for key in afters) or [
            (f.__module__, f.__name__) for f in afters.get(None, [])] != [
            (security.__name__, "_headers")]:
        return "the app has after-request hooks other than the security headers"
    if any(app.teardown_request_funcs.values()) or any(app.url_value_preprocessors.values()):
        return "the app has teardown or URL hooks"
    found = {rule.rule: rule.endpoint for rule in app.url_map.iter_rules()
             if rule.rule.startswith("/api/v1/matches/")
             and rule.rule.count("/") == 4 + (rule.rule.endswith("/actions"))}
    if found != _EXPECTED_RULES:
        return f"the routes under /api/v1/matches/ are not the expected ones: {sorted(found)}"
    limit = app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and limit < MAX_BODY_BYTES:
        return "MAX_CONTENT_LENGTH is below the API's own limit on a move's body"
    if not isinstance(app.json, FastJSONProvider):
        return "the app's JSON provider is not fairdeal's"
    if not app.url_map.strict_slashes or app.url_map.host_matching or app.subdomain_matching:
        return "the app's URL map is not the default one"
    return None


def install(app: Flask) -> bool:
    """Put ``FastPath`` in front of ``app`` (True), unless switched off or unsafe (False)."""
    if not _enabled(app):
        return False
    why = _why_not(app)
    if why is not None:
        log.warning("the API fast path is off: %s", why)
        return False
    app.wsgi_app = FastPath(app, app.wsgi_app)  # type: ignore[method-assign]
    return True


def plain_request(environ: dict[str, Any]) -> tuple[str, str] | None:
    """``("view", match id)`` for a GET of a match, ``("play", match id)`` for a move's POST
    whose body's length is said plainly and within the API's limit; None for every other
    request (Flask answers it). tests/web/api/test_fastpath_servers.py asks it of the requests
    gunicorn and granian hand over."""
    method = environ.get("REQUEST_METHOD")
    path = environ.get("PATH_INFO", "")
    if method == "GET":
        found = _VIEW.fullmatch(path)
        return ("view", found.group(1)) if found is not None and path.isascii() else None
    if method != "POST":
        return None
    found = _ACTIONS.fullmatch(path)
    if found is None or not path.isascii():
        return None
    length = environ.get("CONTENT_LENGTH")
    if not length or not length.isascii() or not length.isdigit() \
            or int(length) > MAX_BODY_BYTES:
        return None
    if environ.get("HTTP_TRANSFER_ENCODING"):
        return None
    return "play", found.group(1)


class FastPath:
    """The WSGI app in front of Flask's ``wsgi_app`` (see the module doc)."""

    def __init__(self, app: Flask, flask_wsgi: WSGIApp) -> None:
        self.app = app
        self.flask_wsgi = flask_wsgi
        self.ledger: Ledger = app.extensions["fairdeal.ledger"]
        self.json: FastJSONProvider = app.json  # type: ignore[assignment]

    def __call__(self, environ: dict[str, Any],
                 start_response: StartResponse) -> Iterable[bytes]:
        taken = plain_request(environ)
        if taken is None:
            return self.flask_wsgi(environ, start_response)
        kind, match_id = taken
        if kind == "view":
            return self._view(environ, start_response, match_id)
        return self._play(environ, start_response, match_id)

    # --- the two requests ------------------------------------------------------------------

    def _view(self, environ: dict[str, Any], start_response: StartResponse,
              match_id: str) -> Iterable[bytes]:
        try:
            token = parse_bearer(environ.get("HTTP_AUTHORIZATION"), required=False)
            view = self.ledger.view(match_id, token)
        except Exception as error:
            return self._flask_error(environ, start_response, error)
        return self._answer(environ, start_response, view, 200)

    def _play(self, environ: dict[str, Any], start_response: StartResponse,
              match_id: str) -> Iterable[bytes]:
        length = int(environ["CONTENT_LENGTH"])
        data = _read(environ["wsgi.input"], length)
        # whatever happens next, Flask may read the body as it came (werkzeug's LimitedStream
        # over it finds a short one as it would have)
        environ["wsgi.input"] = io.BytesIO(data)
        if len(data) != length:
            return self.flask_wsgi(environ, start_response)
        try:
            token = parse_bearer(environ.get("HTTP_AUTHORIZATION"), required=True)
            payload, status = played(play_move(self.ledger, match_id, token, parse_body(data)))
        except Exception as error:
            return self._flask_error(environ, start_response, error)
        return self._answer(environ, start_response, payload, status)

    # --- the answers -----------------------------------------------------------------------

    def _answer(self, environ: dict[str, Any], start_response: StartResponse, value: Any,
                status: int) -> Iterable[bytes]:
        """``jsonify(value)`` with ``status`` and the API's headers, as Flask would send it."""
        data = fast_bytes(value) if self.json.fast() else None
        if data is None:  # a value orjson cannot prove, or the pure build: Flask's encoder
            return self._through_flask(environ, start_response,
                                       lambda: (self.json.response(value), status))
        data += b"\n"
        start_response(_STATUS[status], [_CONTENT_TYPE, ("Content-Length", str(len(data))),
                                         *_SECURITY])
        return [data]

    def _flask_error(self, environ: dict[str, Any], start_response: StartResponse,
                     error: Exception) -> Iterable[bytes]:
        """Flask's answer to ``error`` raised by the request's view."""
        def view() -> Any:
            raise error

        return self._through_flask(environ, start_response, view)

    def _through_flask(self, environ: dict[str, Any], start_response: StartResponse,
                       view: Callable[[], Any]) -> Iterable[bytes]:
        """What ``Flask.wsgi_app`` does around a view, with ``view`` in the view's place (the
        request already served: its answer, or the exception it raised, is all that is left)."""
        app = self.app
        context = app.request_context(environ)
        failed: BaseException | None = None
        try:
            try:
                context.push()
                try:
                    rv = view()
                except Exception as error:
                    rv = app.handle_user_exception(error)
                response = app.finalize_request(rv)
            except Exception as error:
                failed = error
                response = app.handle_exception(error)
            return response(environ, start_response)
        finally:
            context.pop(failed)


def _read(stream: Any, length: int) -> bytes:
    """``length`` bytes of ``stream``, fewer only when it ends first."""
    data: bytes = stream.read(length)
    while len(data) < length:
        more = stream.read(length - len(data))
        if not more:
            break
        data += more
    return data
