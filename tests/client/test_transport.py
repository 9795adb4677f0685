"""client.transport against a scripted server: each test's server answers a request with the
bytes it is given, so every way of framing an answer (and of breaking it) is held here."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from fairdeal.client import ApiClient
from fairdeal.client.transport import Connection, ProtocolError


class Scripted:
    """A server on a free port: for each connection, reads one request per answer in
    ``answers`` (a list per connection) and writes that answer's bytes, then closes the
    connection. What it read is kept in ``requests``."""

    def __init__(self, *connections: list[bytes]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = list(connections)
        self.requests: list[bytes] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        for answers in self.connections:
            conn, _ = self.listener.accept()
            with conn:
                for answer in answers:
                    self.requests.append(_request(conn))
                    conn.sendall(answer)

    def close(self) -> None:
        self.listener.close()


def _request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.fixture
def scripted() -> Iterator[type[Scripted]]:
    made: list[Scripted] = []

    def make(*connections: list[bytes]) -> Scripted:
        server = Scripted(*connections)
        made.append(server)
        return server

    yield make  # type: ignore[misc]
    for server in made:
        server.close()


def _ok(body: bytes, *headers: bytes) -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + b"".join(
        header + b"\r\n" for header in headers)
        + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def test_answers_by_length_on_one_kept_alive_connection(scripted) -> None:
    server = scripted([_ok(b'{"a":1}'), _ok(b'{"b":2}')])
    connection = Connection("http", "127.0.0.1", server.port, timeout=5)
    assert connection.request("GET", "/x", {}) == (200, b'{"a":1}', False)
    assert connection.request("POST", "/y", {"Content-Type": "application/json"},
                              b"{}") == (200, b'{"b":2}', False)
    assert server.requests[1].startswith(b"POST /y HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nContent-Length: 2\r\n\r\n{}" in server.requests[1]


def test_a_chunked_answer_is_joined(scripted) -> None:
    server = scripted([b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
                       b"3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: t\r\n\r\n" + _ok(b"next")])
    connection = Connection("http", "127.0.0.1", server.port, timeout=5)
    assert connection.request("GET", "/", {}) == (201, b"abcde", False)


def test_connection_close_and_http_1_0_close_the_connection(scripted) -> None:
    server = scripted([_ok(b"one", b"Connection: close")],
                      [b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\ntwo"],
                      [b"HTTP/1.1 200 OK\r\n\r\nto the end"])
    connection = Connection("http", "127.0.0.1", server.port, timeout=5)
    assert connection.request("GET", "/", {}) == (200, b"one", True)
    assert connection.request("GET", "/", {}) == (200, b"two", True)
    assert connection.request("GET", "/", {}) == (200, b"to the end", True)


def test_an_interim_answer_is_skipped(scripted) -> None:
    server = scripted([b"HTTP/1.1 100 Continue\r\n\r\n" + _ok(b"done")])
    connection = Connection("http", "127.0.0.1", server.port, timeout=5)
    assert connection.request("POST", "/", {}, b"x") == (200, b"done", False)


@pytest.mark.parametrize(("answer", "message"), [
    (b"SPDY/3 200 OK\r\n\r\n", "not an HTTP/1.x status line"),
    (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "not a header line"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "not a Content-Length"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "ended after 5 of its 10 bytes"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not a chunk size"),
    (b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n", "more than 100 headers"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n", "past the 134,217,728"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8000001\r\n", "past the"),
    (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000 + b"\r\n\r\n", "longer than 65,536"),
])
def test_a_malformed_answer_is_a_protocol_error(scripted, answer: bytes, message: str) -> None:
    server = scripted([answer])
    connection = Connection("http", "127.0.0.1", server.port, timeout=5)
    with pytest.raises(ProtocolError, match=message):
        connection.request("GET", "/", {})


@pytest.mark.parametrize(("target", "headers"), [
    ("/a b", {}), ("/a\r\nX: y", {}), ("/", {"Authorization": "Bearer t\r\nX-Injected: 1"}),
])
def test_a_target_or_header_that_would_split_the_request_is_refused(target: str,
                                                                    headers: dict) -> None:
    connection = Connection("http", "127.0.0.1", 9, timeout=5)
    with pytest.raises(ValueError, match="not a"):
        connection.request("GET", target, headers)


def test_a_kept_alive_connection_the_server_closed_is_retried_once(scripted) -> None:
    # the first connection answers once, then closes without answering the second request
    server = scripted([_ok(b'{"n":1}'), b""], [_ok(b'{"n":2}')])
    client = ApiClient(f"http://127.0.0.1:{server.port}", timeout=5)
    assert client.call("GET", "/keys") == {"n": 1}
    assert client.call("GET", "/keys") == {"n": 2}
    assert len(server.requests) == 3


def test_a_server_that_never_answers_is_a_connection_error(scripted) -> None:
    server = scripted([b""])
    client = ApiClient(f"http://127.0.0.1:{server.port}", timeout=5)
    with pytest.raises(ConnectionError, match="closed the connection without answering"):
        client.call("GET", "/keys")
