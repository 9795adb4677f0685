"""A small client of the /api/v1 JSON API over the standard library (no dependency), and bots
that play
live matches through it — ``fairdeal play``: the demo data and a load generator in one.

The bots see only what a seat sees (its view and its ``legal_actions``) and choose uniformly
among the legal actions. Every write answers with the writer's view after it, so a bot reads
(GET) only when the other seat has moved since: one POST per move, and one GET per change of
turn. With ``signed`` each seat registers an Ed25519 key and signs its moves:
the event it signs is ``{seq: next_seq, prev: head, type: "move", ts, seat, action, action_id}``,
with ``next_seq`` and ``head`` from the seat's view and ``ts`` its own clock.
"""

from __future__ import annotations

import http.client
import json
import random
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import move_message

__all__ = ["ApiClient", "ApiError", "PlayStats", "play_match", "play_matches"]


class ApiError(Exception):
    """The server answered with an error (``status``, ``code``, ``message``)."""

    def __init__(self, status: int, code: str, message: str, body: Any = None) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body


class ApiClient:
    """``ApiClient("http://127.0.0.1:5000").call("GET", "/matches/ID")``.

    Each thread keeps one HTTP/1.1 connection alive (``http.client``, the layer under
    ``urllib``), so a stream of moves does not pay a TCP handshake per request.
    """

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        base = base_url.rstrip("/")
        self.base = base if base.endswith("/api/v1") else base + "/api/v1"
        parts = urllib.parse.urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self._scheme = parts.scheme
        self._netloc = parts.netloc
        self._prefix = parts.path
        self.timeout = timeout
        self._local = threading.local()

    def _connection(self) -> tuple[http.client.HTTPConnection, bool]:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            return connection, True
        cls = (http.client.HTTPSConnection if self._scheme == "https"
               else http.client.HTTPConnection)
        connection = cls(self._netloc, timeout=self.timeout)
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
                connection.request(method, self._prefix + path, body=data, headers=headers)
                response = connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as e:
                self._drop()
                # a kept-alive connection the server closed meanwhile: one fresh try
                if reused and attempt == 0 and isinstance(
                        e, (http.client.RemoteDisconnected, BrokenPipeError,
                            ConnectionResetError)):
                    continue
                raise ConnectionError(f"{method} {self.base}{path}: {e}") from e
            if response.will_close:
                self._drop()
            return response.status, body
        raise AssertionError("unreachable")

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """The JSON answer; ApiError for an error status."""
        data = None if body is None else json.dumps(body).encode()
        status, raw = self.raw(method, path, data, token)
        try:
            value = json.loads(raw) if raw else None
        except ValueError:
            value = None
        if status >= 400:
            error = (value or {}).get("error", {}) if isinstance(value, dict) else {}
            raise ApiError(status, error.get("code", "http-error"),
                           error.get("message", raw[:200].decode("utf-8", "replace")), value)
        return value


@dataclass
class PlayStats:
    """What a run of bot matches did."""

    matches: int = 0
    moves: int = 0
    conflicts: int = 0
    #: HTTP requests answered (every call, whatever it was)
    requests: int = 0
    seconds: float = 0.0
    results: list[dict[str, Any]] = field(default_factory=list)
    #: seconds from sending each move to its acknowledgement (the load figures' latency)
    latencies: list[float] = field(default_factory=list, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0

    def latency_ms(self, quantile: float) -> float:
        """The move latency at ``quantile`` (0.5: the median), in milliseconds."""
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(quantile * len(ordered)))]


def play_match(client: ApiClient, game: str, *, rng: random.Random,
               params: dict[str, Any] | None = None, turn_limit_ms: int | None = 60_000,
               signed: bool = False, stats: PlayStats | None = None,
               on_response: Callable[[Any], None] | None = None,
               pace: float = 0.0) -> dict[str, Any]:
    """Create a match and let two random bots play it to the end through the API.

    Returns ``{"id", "moves", "result"}``. ``on_response`` sees every JSON answer (the secrecy
    test records them). ``pace`` is how many seconds a bot thinks before each move (0: none),
    so that people can watch the match live.
    """
    def call(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        value = client.call(method, path, body, token)
        if stats is not None:
            with stats.lock:
                stats.requests += 1
        if on_response is not None:
            on_response(value)
        return value

    created = call("POST", "/matches", {"game": game, "params": params or {},
                                        "turn_limit_ms": turn_limit_ms})
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    keys = [SigningKey.from_seed(rng.randbytes(32)) for _ in tokens] if signed else []
    # each seat's latest view: every write answers with the writer's view after it, so a seat
    # reads (GET) only when the other seat moved since its own last answer
    views: list[dict[str, Any]] = []
    for seat, token in enumerate(tokens):
        if signed:
            call("POST", f"/matches/{match_id}/seat-key", {"public_key": keys[seat].public_text},
                 token)
        seed = None if rng.random() < 0.2 else rng.randbytes(32).hex()
        views.append(call("POST", f"/matches/{match_id}/seed", {"client_seed": seed},
                          token)["view"])
    moves = 0
    for _ in range(100_000):
        latest = max(views, key=lambda view: view["next_seq"])
        if latest["status"] in ("ended", "imported"):
            break
        current = latest["current_seat"]
        if current is None:
            time.sleep(0.01)
            views[0] = call("GET", f"/matches/{match_id}", token=tokens[0])
            continue
        view = views[current]
        if view["next_seq"] != latest["next_seq"] or not view["legal_actions"]:
            view = views[current] = call("GET", f"/matches/{match_id}", token=tokens[current])
            if not view["legal_actions"]:
                continue
        action = rng.choice(view["legal_actions"])
        if pace:
            time.sleep(pace)
        body: dict[str, Any] = {"action": action, "expected_seq": view["next_seq"],
                                "action_id": secrets.token_hex(8)}
        if signed:
            body["ts"] = time.time_ns() // 1_000_000
            draft = {"seq": view["next_seq"], "prev": view["head"], "type": "move",
                     "ts": body["ts"], "seat": current, "action": action,
                     "action_id": body["action_id"]}
            body["sig"] = keys[current].sign(move_message(draft)).hex()
        sent = time.perf_counter()
        try:
            answer = call("POST", f"/matches/{match_id}/actions", body, tokens[current])
        except ApiError as e:
            if e.status != 409:
                raise
            if stats is not None:
                with stats.lock:
                    stats.conflicts += 1
            views[current] = call("GET", f"/matches/{match_id}", token=tokens[current])
            continue
        views[current] = answer["view"]
        moves += 1
        if stats is not None:
            took = time.perf_counter() - sent
            with stats.lock:
                stats.moves += 1
                stats.latencies.append(took)
    summary = call("GET", f"/matches/{match_id}")
    result = {"id": match_id, "moves": moves, "result": summary.get("result")}
    if stats is not None:
        with stats.lock:
            stats.matches += 1
            stats.results.append(result)
    return result


def play_matches(base_url: str, game: str, count: int, *, concurrency: int = 1,
                 seed: int | None = None, turn_limit_ms: int | None = 60_000,
                 signed: bool = False, pace: float = 0.0,
                 duration: float | None = None) -> Iterator[dict[str, Any]]:
    """Play ``count`` matches, ``concurrency`` at a time; yield each result as it ends, then the
    final PlayStats (as the generator's return value via ``stats``). With ``duration``, no
    match starts after that many seconds (the ones under way finish): a load run of a set
    length, ``count`` its cap."""
    stats = PlayStats()
    master = random.Random(seed)
    queue = [master.randbytes(16) for _ in range(count)]
    queue.reverse()
    queue_lock = threading.Lock()
    deadline = None if duration is None else time.perf_counter() + duration
    done: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    client = ApiClient(base_url)

    def worker() -> None:
        while True:
            with queue_lock:
                if not queue or errors or (deadline is not None
                                           and time.perf_counter() > deadline):
                    return
                match_seed = queue.pop()
            try:
                done.append(play_match(client, game, rng=random.Random(match_seed),
                                       turn_limit_ms=turn_limit_ms, signed=signed,
                                       stats=stats, pace=pace))
            except BaseException as e:  # noqa: BLE001  surfaced to the caller below
                errors.append(e)
                return

    start = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, concurrency))]
    for thread in threads:
        thread.start()
    reported = 0
    while any(thread.is_alive() for thread in threads) or reported < len(done):
        while reported < len(done):
            yield done[reported]
            reported += 1
        time.sleep(0.05)
    stats.seconds = time.perf_counter() - start
    if errors:
        raise errors[0]
    yield {"stats": stats}
