"""Following a match as it is played: a reader of GET /api/v1/matches/<id>/stream (Server-Sent
Events) that resumes after a dropped connection, from the last event it saw, so the caller gets
every event once, in order.

    for item in MatchStream("http://127.0.0.1:5000", match_id).follow():
        if item.kind == "event":
            print(item.data["event"]["seq"], item.data["caption"])

Standard library only, like ``ApiClient``. ``ApiError`` for an error answer (an unknown match,
a full server after the retries), ``ConnectionError`` when the server cannot be reached.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from .api import ApiError

__all__ = ["MatchStream", "StreamItem", "parse_events"]

#: answers worth retrying: the server's or this address's streams are full, the server restarts
RETRY_STATUSES = (429, 502, 503, 504)


@dataclass(frozen=True)
class StreamItem:
    """One thing that happened on a stream: ``kind`` is the SSE event name (``event``, ``end``,
    ``idle``, ``error``) or ``reconnecting`` (this reader lost the connection and tries again;
    ``data`` then says why)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    id: int | None = None


def parse_events(lines: Iterator[bytes]) -> Iterator[StreamItem]:
    """The events of a text/event-stream, line by line (comments and ``retry:`` skipped).

    >>> list(parse_events(iter([b"id: 3\\n", b"event: event\\n", b'data: {"a": 1}\\n', b"\\n"])))
    [StreamItem(kind='event', data={'a': 1}, id=3)]
    """
    kind, seq = "message", None
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if data:
                yield StreamItem(kind, _json_object("\n".join(data)), seq)
            kind, data, seq = "message", [], None
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            kind = value
        elif name == "data":
            data.append(value)
        elif name == "id" and value.isdigit():
            seq = int(value)


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {"text": text}
    return value if isinstance(value, dict) else {"value": value}


class MatchStream:
    """The stream of one match on a server; ``follow()`` yields until the match ends.

    ``after`` is the seq of the last event already seen (-1: from the genesis). A dropped
    connection is retried every ``retry_s`` seconds, at most ``retries`` times in a row before
    ``ConnectionError``; the first connection is not retried (a wrong address fails at once).
    """

    def __init__(self, base_url: str, match_id: str, after: int = -1, *, timeout: float = 60.0,
                 retry_s: float = 1.0, retries: int = 30,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        base = base_url.rstrip("/")
        base = base if base.endswith("/api/v1") else base + "/api/v1"
        parts = urllib.parse.urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self._parts = parts
        self.match_id = match_id
        self.after = after
        self.timeout = timeout
        self.retry_s = retry_s
        self.retries = retries
        self._sleep = sleep

    def follow(self) -> Iterator[StreamItem]:
        """Every event after ``after``, once each, then the ``end`` item; ``reconnecting``
        items between when the connection drops."""
        failures = 0
        connected_once = False
        while True:
            try:
                response = self._open()
            except OSError as e:
                if not connected_once or failures >= self.retries:
                    raise ConnectionError(f"cannot reach {self._url()}: {e}") from e
                failures += 1
                yield StreamItem("reconnecting", {"reason": str(e), "next_after": self.after})
                self._sleep(self.retry_s)
                continue
            except ApiError as e:
                if e.status not in RETRY_STATUSES or failures >= self.retries:
                    raise
                failures += 1
                yield StreamItem("reconnecting", {"reason": e.message, "next_after": self.after})
                self._sleep(self.retry_s)
                continue
            connected_once = True
            failures = 0
            reason = yield from self._read(response)
            if reason is None:
                return
            yield StreamItem("reconnecting", {"reason": reason, "next_after": self.after})
            if reason != "idle":
                self._sleep(self.retry_s)

    def _read(self, response: http.client.HTTPResponse
              ) -> Generator[StreamItem, None, str | None]:
        """Yield the items of one connection; return None at the end of the match, else why
        the connection stopped (``idle``, a server error, a dropped connection)."""
        try:
            for item in parse_events(iter(response.readline, b"")):
                if item.kind == "event" and item.id is not None:
                    if item.id <= self.after:
                        continue  # never twice, whatever a server resends
                    self.after = item.id
                yield item
                if item.kind == "end":
                    return None
                if item.kind in ("idle", "error"):
                    return item.kind
            return "the server closed the connection"
        except (OSError, http.client.HTTPException) as e:
            return f"connection lost ({type(e).__name__}: {e})" if str(e) else \
                f"connection lost ({type(e).__name__})"
        finally:
            response.close()

    def _url(self) -> str:
        return f"{self._parts.scheme}://{self._parts.netloc}{self._path()}"

    def _path(self) -> str:
        quoted = urllib.parse.quote(self.match_id, safe="")
        return f"{self._parts.path}/matches/{quoted}/stream"

    def _open(self) -> http.client.HTTPResponse:
        cls = (http.client.HTTPSConnection if self._parts.scheme == "https"
               else http.client.HTTPConnection)
        connection = cls(self._parts.netloc, timeout=self.timeout)
        headers = {"Accept": "text/event-stream"}
        if self.after >= 0:
            headers["Last-Event-ID"] = str(self.after)
        try:
            connection.request("GET", self._path(), headers=headers)
            response = connection.getresponse()
        except http.client.HTTPException as e:
            connection.close()
            raise ConnectionError(str(e) or type(e).__name__) from e
        except OSError:
            connection.close()
            raise
        if response.status != 200:
            body: IO[bytes] = response
            raise _api_error(response.status, body.read())
        return response


def _api_error(status: int, raw: bytes) -> ApiError:
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    error = value.get("error") if isinstance(value, dict) else None
    error = error if isinstance(error, dict) else {}
    code, message = error.get("code"), error.get("message")
    return ApiError(status, code if isinstance(code, str) else "http-error",
                    message if isinstance(message, str)
                    else raw[:200].decode("utf-8", "replace"), value)
