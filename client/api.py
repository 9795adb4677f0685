"""A small client of the /api/v1 JSON API over the standard library (no dependency).

Each thread keeps one HTTP/1.1 connection alive (``transport.Connection``: a request is one
write, an answer's headers are read without the ``email`` parser), so a stream of moves does
not pay a TCP handshake per request; a kept-alive connection the server closed meanwhile is
retried once.
Network failures raise ``OSError`` (``ConnectionError``), error statuses ``ApiError``.
Answers are parsed by orjson where the verifier's fast path proves its value is ``json``'s
(``_loads``): the load bots parse about two answers a move.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from typing import Any

from fairdeal.verifier import jsonfast

from .transport import Connection

__all__ = ["ApiClient", "ApiError"]


class ApiError(Exception):
    """The server answered with an error (``status``, ``code``, ``message``)."""

    def __init__(self, status: int, code: str, message: str, body: Any = None) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body


def _loads(raw: bytes) -> Any:
    """The JSON value ``json.loads`` gives ``raw``, or its ValueError or RecursionError:
    orjson's value where ``jsonfast.loads`` proves them equal (a compact answer, no float, no
    repeated key: what a fairdeal server sends), ``json.loads`` for anything else -- orjson
    alone would read an integer past 64 bits as a float, and refuses NaN."""
    value = jsonfast.loads(raw, bounded=False) if jsonfast.ENABLED else jsonfast.UNPROVEN
    return json.loads(raw) if value is jsonfast.UNPROVEN else value


class ApiClient:
    """``ApiClient("http://127.0.0.1:5000").call("GET", "/matches/ID")``.

    Each thread keeps one HTTP/1.1 connection alive (``transport.Connection``), so a stream
    of moves does not pay a TCP handshake per request.
    """

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        base = base_url.rstrip("/")
        self.base = base if base.endswith("/api/v1") else base + "/api/v1"
        parts = urllib.parse.urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path
        self.timeout = timeout
        self._local = threading.local()

    def _connection(self) -> tuple[Connection, bool]:
        connection: Connection | None = getattr(self._local, "connection", None)
        if connection is not None:
            return connection, True
        connection = Connection(self._scheme, self._host, self._port, self.timeout)
        self._local.connection = connection
        return connection, False

    def _drop(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    def raw(self, method: str, path: str, data: bytes | None = None,
            token: str | None = None) -> tuple[int, bytes]:
        """Status and body bytes; network failures raise OSError."""
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in range(2):
            connection, reused = self._connection()
            try:
                status, body, will_close = connection.request(method, self._prefix + path,
                                                              headers, data)
            except (OSError, ValueError) as e:
                self._drop()
                # a kept-alive connection the server closed meanwhile: one fresh try
                if reused and attempt == 0 and isinstance(
                        e, (BrokenPipeError, ConnectionResetError)):
                    continue
                raise ConnectionError(f"{method} {self.base}{path}: {e}") from e
            if will_close:
                self._local.connection = None
            return status, body
        raise AssertionError("unreachable")

    def wait_until_up(self, seconds: float = 10.0, interval: float = 0.05) -> bool:
        """Give a server started a moment ago time to listen: True once it answers (whatever
        it says), False if it still cannot be reached after ``seconds``."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.raw("GET", "/keys")
                return True
            except OSError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(interval)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """The JSON answer; ApiError for an error status."""
        data = None if body is None else json.dumps(body).encode()
        status, raw = self.raw(method, path, data, token)
        try:
            value = _loads(raw) if raw else None
        except (ValueError, RecursionError):  # too deeply nested is not JSON to us either
            value = None
        if status >= 400:
            error = value.get("error") if isinstance(value, dict) else None
            error = error if isinstance(error, dict) else {}
            code, message = error.get("code"), error.get("message")
            raise ApiError(status, code if isinstance(code, str) else "http-error",
                           message if isinstance(message, str)
                           else raw[:200].decode("utf-8", "replace"), value)
        return value
