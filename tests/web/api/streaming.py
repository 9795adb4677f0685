"""What the live-stream tests share: a `fairdeal serve` process on SQLite or PostgreSQL with
stream settings of the test's choosing, a raw reader of a text/event-stream over http.client
(not the client under test), and a match played by bots in a thread."""

from __future__ import annotations

import http.client
import json
import random
import socket
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairdeal.client import ApiClient, play_match

from ...processes import ServeProcess, fresh_database


@contextmanager
def served(tmp_path: Path, backend: str = "sqlite",
           env: Mapping[str, str] | None = None) -> Iterator[ServeProcess]:
    """`fairdeal serve` on ``backend`` with the stream settings ``env``."""
    with fresh_database(backend) as url:
        server = ServeProcess(tmp_path, url, env=env)
        server.start()
        try:
            yield server
        finally:
            server.stop()


@dataclass
class Frame:
    """One server-sent event as it came: ``kind`` (the ``event:`` field), id, parsed data."""

    kind: str
    id: int | None
    data: dict[str, Any]
    raw: str


@dataclass
class RawStream:
    """One GET of a stream, read line by line; ``comments`` counts the ``:`` lines."""

    connection: http.client.HTTPConnection
    response: http.client.HTTPResponse
    comments: int = 0
    text: list[str] = field(default_factory=list)

    def frames(self) -> Iterator[Frame]:
        kind, seq, data, lines = "message", None, [], []
        while True:
            raw = self.response.readline()
            if not raw:
                return
            line = raw.decode().rstrip("\n")
            self.text.append(line)
            if line.startswith(":"):
                self.comments += 1
                continue
            if line:
                lines.append(line)
                name, _, value = line.partition(": ")
                if name == "event":
                    kind = value
                elif name == "id":
                    seq = int(value)
                elif name == "data":
                    data.append(value)
                continue
            if data:
                yield Frame(kind, seq, json.loads("\n".join(data)), "\n".join(lines))
            kind, seq, data, lines = "message", None, [], []

    def drop(self) -> None:
        """Go away as a client that lost its network does: the socket closed, no goodbye."""
        # http.client hands a connection that will close to its response: the socket is there
        sock = self.connection.sock or getattr(getattr(self.response.fp, "raw", None),
                                               "_sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # the server closed it first
        self.response.close()
        self.connection.close()


def open_stream(port: int, match_id: str, *, after: int | None = None,
                last_event_id: str | None = None, source: str = "127.0.0.1",
                headers: Mapping[str, str] | None = None, timeout: float = 20
                ) -> tuple[int, http.client.HTTPResponse, RawStream]:
    """GET the stream from the address ``source`` (any 127.x.y.z: a client address of its
    own); the status, the response and its reader."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                            source_address=(source, 0))
    query = "" if after is None else f"?after={after}"
    sent = {"Accept": "text/event-stream", **(headers or {})}
    if last_event_id is not None:
        sent["Last-Event-ID"] = last_event_id
    connection.request("GET", f"/api/v1/matches/{match_id}/stream{query}", headers=sent)
    response = connection.getresponse()
    return response.status, response, RawStream(connection, response)


class BotMatch(threading.Thread):
    """A match two bots play through the API in a thread, ``pace`` seconds a move; ``id`` is
    set (and ``started`` set) as soon as the match exists."""

    def __init__(self, url: str, game: str = "toybattle", pace: float = 0.01,
                 seed: int = 7) -> None:
        super().__init__(daemon=True)
        self.url, self.game, self.pace, self.seed = url, game, pace, seed
        self.id: str | None = None
        self.started_match = threading.Event()
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        def on_start(match: dict[str, Any]) -> None:
            self.id = match["id"]
            self.started_match.set()

        try:
            self.result = play_match(ApiClient(self.url, timeout=20), self.game,
                                     rng=random.Random(self.seed), pace=self.pace,
                                     on_start=on_start)
        except BaseException as e:  # the test thread reports it
            self.error = e
            self.started_match.set()

    def wait_started(self) -> str:
        assert self.started_match.wait(30), "the match was never created"
        assert self.error is None, self.error
        assert self.id is not None
        return self.id
