"""One kept-alive HTTP/1.1 connection, as lean as the API's requests allow.

``http.client`` writes a request with a body in two ``send`` calls (the headers, then the
body: on loopback each also runs the server's side of the network stack, and the server wakes
twice for one request), makes a file object per answer and parses every answer's headers
through the ``email`` package. The load bots make two requests a move, so that was a good part
of their CPU. Here a request is one ``sendall``, an answer is read through one buffered reader
kept for the connection's life, and of its headers only the three that frame the body are
interpreted: ``Content-Length``, ``Transfer-Encoding: chunked`` and ``Connection``.

    connection = Connection("http", "127.0.0.1", 5000, timeout=30)
    status, body, will_close = connection.request("GET", "/api/v1/keys", {})

Failures are ``OSError``: the network's own, ``ConnectionResetError`` when the server closed
the connection before answering (so a kept-alive connection it dropped meanwhile can be retried
once), and ``ProtocolError`` (a ``ConnectionError``) for an answer that is not HTTP/1.x.
"""

from __future__ import annotations

import io
import re
import socket
import ssl
from collections.abc import Mapping

__all__ = ["Connection", "ProtocolError"]

#: http.client's limits on an answer's header block
MAX_LINE = 65_536
MAX_HEADERS = 100
#: the largest answer body read: twice a bundle's limit (verifier.bundle.MAX_BUNDLE_BYTES), the
#: largest thing the API returns. A server is not trusted: a Content-Length of a petabyte, or a
#: body that never ends, is refused before it is read instead of filling the memory.
MAX_BODY = 128 * 1024 * 1024
#: what may not appear in a request's target or a header value (http.client refuses them too:
#: a CR or LF would start a header or a request of the caller's choosing)
_UNSAFE_TARGET = re.compile(rb"[\x00-\x20\x7f]")
_UNSAFE_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")


class ProtocolError(ConnectionError):
    """The server's answer is not well-formed HTTP/1.x."""


class Connection:
    """One HTTP/1.1 connection to ``host:port``, opened on the first request and kept alive
    until the server says it closes (``will_close``) or ``close`` is called."""

    def __init__(self, scheme: str, host: str, port: int | None, timeout: float) -> None:
        self.scheme = scheme
        self.host = host
        self.port = port or (443 if scheme == "https" else 80)
        self.timeout = timeout
        default = (scheme == "https" and self.port == 443) or (scheme == "http"
                                                               and self.port == 80)
        shown = f"[{host}]" if ":" in host else host
        self._host_header = (shown if default else f"{shown}:{self.port}").encode("idna")
        self._socket: socket.socket | None = None
        self._buffered: _Reader | None = None

    def close(self) -> None:
        """Close the connection (the next request opens another)."""
        sock, self._socket, self._buffered = self._socket, None, None
        if sock is not None:
            sock.close()

    def request(self, method: str, target: str, headers: Mapping[str, str],
                body: bytes | None = None) -> tuple[int, bytes, bool]:
        """Send one request and read its whole answer: the status, the body, and whether the
        server closes the connection after it (then it is closed here already)."""
        head = self._head(method, target, headers, body)
        reader = self._open()
        assert self._socket is not None
        self._socket.sendall(head + body if body else head)
        status, body_bytes, will_close = reader.answer(method)
        if will_close:
            self.close()
        return status, body_bytes, will_close

    def _head(self, method: str, target: str, headers: Mapping[str, str],
              body: bytes | None) -> bytes:
        """The request line and headers, refused (ValueError) if the target or a header
        value would smuggle a CR, a LF or a space into them."""
        path = target.encode("ascii")
        if _UNSAFE_TARGET.search(path):
            raise ValueError(f"not a URL path: {target!r}")
        lines = [b"%s %s HTTP/1.1" % (method.encode("ascii"), path),
                 b"Host: " + self._host_header, b"Accept-Encoding: identity"]
        for name, value in headers.items():
            raw = value.encode("latin-1")
            if _UNSAFE_VALUE.search(raw):
                raise ValueError(f"not a header value for {name}: {value!r}")
            lines.append(b"%s: %s" % (name.encode("ascii"), raw))
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(b"Content-Length: %d" % len(body or b""))
        lines.append(b"\r\n")
        return b"\r\n".join(lines)

    def _open(self) -> _Reader:
        if self._buffered is None:
            sock = socket.create_connection((self.host, self.port), self.timeout)
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self.scheme == "https":
                    sock = ssl.create_default_context().wrap_socket(
                        sock, server_hostname=self.host)
            except BaseException:
                sock.close()
                raise
            self._socket = sock
            self._buffered = _Reader(sock.makefile("rb"))
        return self._buffered


class _Reader:
    """A connection's answers, read one after another from its buffered reader."""

    def __init__(self, stream: io.BufferedReader) -> None:
        self._stream = stream

    def _line(self) -> bytes:
        line = self._stream.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise ProtocolError("an answer's line is longer than 65,536 bytes")
        return line

    def _exactly(self, size: int) -> bytes:
        if size > MAX_BODY:
            raise ProtocolError(_too_large(size))
        data = self._stream.read(size)
        if len(data) < size:
            raise ProtocolError(f"the answer ended after {len(data)} of its {size} bytes")
        return data

    def answer(self, method: str) -> tuple[int, bytes, bool]:
        """The next answer's status, body and whether the connection closes after it (an
        interim 1xx answer is skipped, as http.client does)."""
        while True:
            status, version, headers = self._status_and_headers()
            if not 100 <= status < 200 or status == 101:
                break
        connection = headers.get(b"connection", b"").lower()
        will_close = (b"close" in connection if version == b"HTTP/1.1"
                      else b"keep-alive" not in connection)
        if method == "HEAD" or status in (101, 204, 304):
            return status, b"", will_close
        if b"chunked" in headers.get(b"transfer-encoding", b"").lower():
            return status, self._chunked(), will_close
        length = headers.get(b"content-length")
        if length is None:  # the body runs to the end of the connection
            data = self._stream.read(MAX_BODY + 1)
            if len(data) > MAX_BODY:
                raise ProtocolError(_too_large(len(data)))
            return status, data, True
        if not length.strip().isdigit():
            raise ProtocolError(f"not a Content-Length: {length!r}")
        return status, self._exactly(int(length)), will_close

    def _status_and_headers(self) -> tuple[int, bytes, dict[bytes, bytes]]:
        line = self._line()
        if not line:
            raise ConnectionResetError("the server closed the connection without answering")
        version, _, rest = line.partition(b" ")
        code = rest[:3]
        if version not in (b"HTTP/1.1", b"HTTP/1.0") or not code.isdigit():
            raise ProtocolError(f"not an HTTP/1.x status line: {line[:100]!r}")
        headers: dict[bytes, bytes] = {}
        for _ in range(MAX_HEADERS + 1):
            line = self._line()
            if line in (b"\r\n", b"\n"):
                return int(code), version, headers
            if not line:
                raise ProtocolError("the answer ended in its headers")
            name, colon, value = line.partition(b":")
            if not colon:
                raise ProtocolError(f"not a header line: {line[:100]!r}")
            key = name.strip().lower()
            if key in headers:  # repeated: the list form, as a header of one value says it
                headers[key] += b", " + value.strip()
            else:
                headers[key] = value.strip()
        raise ProtocolError(f"an answer with more than {MAX_HEADERS} headers")

    def _chunked(self) -> bytes:
        parts = []
        total = 0
        while True:
            size_line = self._line().split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise ProtocolError(f"not a chunk size: {size_line[:100]!r}") from None
            if size < 0:
                raise ProtocolError(f"not a chunk size: {size_line[:100]!r}")
            if size == 0:
                break
            total += size
            if total > MAX_BODY:
                raise ProtocolError(_too_large(total))
            parts.append(self._exactly(size))
            self._exactly(2)  # the CRLF after the chunk
        while self._line() not in (b"\r\n", b"\n", b""):  # the trailers, unread
            pass
        return b"".join(parts)


def _too_large(size: int) -> str:
    return (f"the answer's body is {size:,} bytes or more, past the {MAX_BODY:,} an answer may "
            "hold")
