"""A small client of the /api/v1 JSON API over the standard library (no dependency), and bots
that play
live matches through it — ``fairdeal play``: the demo data and a load generator in one.

The bots see only what a seat sees (its view and its ``legal_actions``) and choose uniformly
among the legal actions. Every write answers with the writer's view after it, so a bot reads
(GET) only when the other seat has moved since: one POST per move, and one GET per change of
turn. With ``signed`` each seat registers an Ed25519 key and signs its seed events and moves:
what it signs is ``seat_message`` of ``{seq: next_seq, prev: head, type, seat, …}`` (for a
move ``action``, ``action_id`` and ``client_ts``, its own clock), with ``next_seq`` and ``head``
from the seat's view. Every answer's receipt is checked against what was sent, and the sealed
bundle is verified at the end with the seats' keys and the receipts.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fairdeal.games import get_game
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import client_commitment, event_hash, seat_message
from fairdeal.verifier.receipts import RECEIPTS_FORMAT, InvalidReceipts, Receipt, parse_receipts
from fairdeal.verifier.verify import verify_bytes

__all__ = ["BOT_NAME", "MATCH_ID", "ApiClient", "ApiError", "PlayStats", "ReceiptBook",
           "TamperDetected", "checked_match_id", "play_match", "play_matches"]

#: what the live bots call themselves (seat names "random bot 1", "random bot 2"): not the
#: simulator's "<bot>-bot", so the viewer never labels a live match "simulated"
BOT_NAME = "random bot"

#: the match ids a fairdeal server hands out (``Ledger.create_match``: ``secrets.token_hex(8)``,
#: sixteen lowercase hex digits). The client checks every id a server names against it before
#: it puts the id in a URL path or a file name: a server is not trusted to say where a client
#: writes ("../x", "/some/absolute/path")
MATCH_ID = re.compile(r"[0-9a-f]{16}\Z")


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
            value = json.loads(raw) if raw else None
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


class TamperDetected(Exception):
    """The server's answer contradicts what this client sent, or its own signed receipts."""


def checked_match_id(value: Any) -> str:
    """``value`` if it is a well-formed match id (MATCH_ID); TamperDetected otherwise."""
    if not isinstance(value, str) or not MATCH_ID.match(value):
        raise TamperDetected(f"the server named the match {_shown(value)}, which is not a match id "
                             "(16 hex digits): refused before using it in a request or a file "
                             "name")
    return value


def _same_match(value: Any, match_id: str, what: str) -> None:
    """TamperDetected unless the answer ``value`` (a view: ``{"id", …}``) names ``match_id``."""
    named = value.get("id") if isinstance(value, dict) else None
    if named != match_id:
        raise TamperDetected(f"the server answered the {what} of match {match_id} with "
                             f"match {_shown(named)}")


def _shown(value: Any) -> str:
    """A server's value as an error message quotes it: its repr, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


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


class ReceiptBook:
    """What one client keeps of a match: the server's signed receipt for every write it made,
    each checked on arrival against the event the client sent.

    ``check(answer, sent)`` refuses (TamperDetected) an answer whose stored event differs from
    what was sent in any field the client chose, whose receipt is not the server's signature
    over that very event, or whose receipt (or view) is for another match than this book's
    ``match_id`` (without one, the match of the first receipt: a book is one match's)."""

    def __init__(self, server_key: str | None, match_id: str | None = None) -> None:
        self.server_key = server_key
        self.match_id = match_id
        self.receipts: list[dict[str, Any]] = []
        #: the same receipts parsed, their signatures checked (the end-of-match verification
        #: takes these, and does not check a signature twice)
        self.parsed: list[Receipt] = []

    def check(self, answer: dict[str, Any], sent: dict[str, Any]) -> None:
        event = answer.get("event")
        receipt = answer.get("receipt")
        if not isinstance(event, dict) or not isinstance(receipt, dict):
            raise TamperDetected("the server's answer carries no event or no receipt")
        for name, value in sent.items():
            if event.get(name) != value:
                raise TamperDetected(
                    f"the server stored {name}={event.get(name)!r} in event "
                    f"{event.get('seq')}, but this client sent {value!r}")
        try:
            parsed = parse_receipts(json.dumps([receipt]))[0]
        except InvalidReceipts as e:
            raise TamperDetected(f"the server's receipt is malformed: {e}") from None
        if self.server_key is not None and parsed.key != self.server_key:
            raise TamperDetected(f"the receipt is signed by {parsed.key}, not by the server "
                                 f"key {self.server_key}")
        if not parsed.signature_valid():
            raise TamperDetected("the server's receipt does not carry a valid signature")
        if self.match_id is None:
            self.match_id = parsed.match_id
        if parsed.match_id != self.match_id:
            raise TamperDetected(f"the server's receipt for event {parsed.seq} is for match "
                                 f"{parsed.match_id}, not for match {self.match_id}, the one "
                                 "this client is playing")
        if "view" in answer:
            _same_match(answer["view"], self.match_id, f"write of event {parsed.seq}")
        if parsed.seq != event.get("seq") or parsed.event != event_hash(event):
            raise TamperDetected(f"the receipt names event {parsed.seq} with hash "
                                 f"{parsed.event[:16]}…, not the event the server answered")
        self.receipts.append(receipt)
        self.parsed.append(parsed)

    def to_json(self, match_id: str, seat_keys: list[str]) -> dict[str, Any]:
        """What ``fairdeal play --receipts`` writes, and ``fairdeal verify --receipts`` reads."""
        return {"format": RECEIPTS_FORMAT, "match_id": match_id,
                "server_key": self.server_key, "seat_keys": seat_keys,
                "receipts": self.receipts}


def play_match(client: ApiClient, game: str, *, rng: random.Random,
               params: dict[str, Any] | None = None, turn_limit_ms: int | None = 60_000,
               signed: bool = False, stats: PlayStats | None = None,
               on_response: Callable[[Any], None] | None = None,
               pace: float = 0.0, server_key: str | None = None,
               verify: bool = True,
               on_move: Callable[[dict[str, Any]], None] | None = None,
               on_start: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Create a match and let two random bots play it to the end through the API.

    Every seed goes in two steps: each seat commits (or declines), then reveals once every
    seat has committed. With ``signed`` each seat registers a key and signs its seed events and
    moves. Every answer's receipt is checked against the event sent (``ReceiptBook``); with
    ``verify`` the sealed bundle is fetched at the end and verified with the server key, the
    seats' own keys pinned and the receipts — a server that changed anything is caught.

    Returns ``{"id", "seats", "moves", "result", "receipts", "seat_keys"}``. ``on_response``
    sees every JSON answer (the secrecy test records them). ``pace`` is how many seconds a bot
    thinks before each move (0: none), so that people can watch the match live.
    ``server_key`` pins the server's key (``ed25519:…``); without it the key is read from
    ``GET /keys``. ``on_move`` is told of each accepted move: ``{"id", "seq", "seat",
    "action", "caption"}``, the caption being the server's public one (one more GET per move,
    so only when asked). ``on_start`` is told ``{"id", "seats"}`` as soon as the match exists.
    """
    def call(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        value = client.call(method, path, body, token)
        if stats is not None:
            with stats.lock:
                stats.requests += 1
        if on_response is not None:
            on_response(value)
        return value

    if server_key is None:
        server_key = call("GET", "/keys")["keys"][0]["key"]
    seat_count = len(get_game(game).seat_names)
    # the bots' names are the seats' names, so the viewer says who played
    names = [f"{BOT_NAME} {index + 1}" for index in range(seat_count)]
    created = call("POST", "/matches", {"game": game, "params": params or {},
                                        "turn_limit_ms": turn_limit_ms, "seats": names})
    # the id goes into every URL path below and into the receipts file's name: checked first
    match_id = checked_match_id(created["id"])
    book = ReceiptBook(server_key, match_id)

    def view_of(seat: int) -> dict[str, Any]:
        """A seat's view, refused if the server answers with another match's."""
        view: dict[str, Any] = call("GET", f"/matches/{match_id}", token=tokens[seat])
        _same_match(view, match_id, "view")
        return view

    if on_start is not None:
        on_start({"id": match_id, "seats": names})
    tokens = [seat["token"] for seat in created["seats"]]
    keys = [SigningKey.from_seed(rng.randbytes(32)) for _ in tokens] if signed else []
    latest: dict[str, Any] = {}

    def write(path: str, seat: int, body: dict[str, Any], kind: str,
              sent: dict[str, Any]) -> dict[str, Any]:
        """One signed-if-need-be write of ``seat``, retried on a race for the position."""
        for _ in range(50):
            if signed:
                body["expected_seq"] = latest["next_seq"]
                draft = {"seq": latest["next_seq"], "prev": latest["head"], "type": kind,
                         "seat": seat, **sent}
                body["sig"] = keys[seat].sign(seat_message(draft)).hex()
            try:
                answer = call("POST", f"/matches/{match_id}{path}", body, tokens[seat])
            except ApiError as e:
                if e.status != 409 or not signed:
                    raise
                latest.update(view_of(seat))
                continue
            book.check(answer, {"type": kind, "seat": seat, **sent,
                                **({"sig": body["sig"]} if signed else {})})
            latest.update(answer["view"])
            return answer
        raise ApiError(409, "conflict", "could not find a free position to write")

    for seat, token in enumerate(tokens):
        if signed:
            answer = call("POST", f"/matches/{match_id}/seat-key",
                          {"public_key": keys[seat].public_text}, token)
            book.check(answer, {"type": "seat_key", "seat": seat,
                                "public_key": keys[seat].public_text})
            latest.update(answer["view"])
    if not latest:
        latest.update(view_of(0))
    seeds: dict[int, str] = {}
    for seat in range(len(tokens)):
        if rng.random() < 0.2:
            write("/seed", seat, {"client_seed": None}, "client_seed", {"client_seed": None})
            continue
        seeds[seat] = rng.randbytes(32).hex()
        digest = client_commitment(match_id, seat, seeds[seat])
        write("/seed", seat, {"commitment": digest}, "seed_commit", {"commitment": digest})
    for seat, seed in seeds.items():
        write("/seed", seat, {"client_seed": seed}, "seed_reveal", {"client_seed": seed})
    # each seat's latest view: every write answers with the writer's view after it, so a seat
    # reads (GET) only when the other seat moved since its own last answer
    views: list[dict[str, Any]] = [dict(latest) for _ in tokens]
    moves = 0
    for _ in range(100_000):
        newest = max(views, key=lambda view: view["next_seq"])
        if newest["status"] in ("ended", "imported"):
            break
        current = newest["current_seat"]
        if current is None:
            time.sleep(0.01)
            views[0] = view_of(0)
            continue
        view = views[current]
        if view["next_seq"] != newest["next_seq"] or not view["legal_actions"] \
                or view["seat"] != current:
            view = views[current] = view_of(current)
            if not view["legal_actions"]:
                continue
        action = rng.choice(view["legal_actions"])
        if pace:
            time.sleep(pace)
        action_id = secrets.token_hex(8)
        body: dict[str, Any] = {"action": action, "expected_seq": view["next_seq"],
                                "action_id": action_id}
        sent: dict[str, Any] = {"type": "move", "seat": current, "action": action,
                                "action_id": action_id}
        if signed:
            body["client_ts"] = sent["client_ts"] = time.time_ns() // 1_000_000
            draft = {"seq": view["next_seq"], "prev": view["head"], **sent}
            body["sig"] = sent["sig"] = keys[current].sign(seat_message(draft)).hex()
        posted = time.perf_counter()
        try:
            answer = call("POST", f"/matches/{match_id}/actions", body, tokens[current])
        except ApiError as e:
            if e.status != 409:
                raise
            if stats is not None:
                with stats.lock:
                    stats.conflicts += 1
            views[current] = view_of(current)
            continue
        book.check(answer, sent)
        views[current] = answer["view"]
        moves += 1
        if on_move is not None:
            seq = answer["event"]["seq"]
            captions = call("GET", f"/matches/{match_id}/events?after={seq - 1}&limit=1")
            on_move({"id": match_id, "seq": seq, "seat": current, "action": action,
                     "caption": captions.get("captions", {}).get(str(seq))})
        if stats is not None:
            took = time.perf_counter() - posted
            with stats.lock:
                stats.moves += 1
                stats.latencies.append(took)
    summary = call("GET", f"/matches/{match_id}")
    _same_match(summary, match_id, "summary")
    seat_keys = [key.public_text for key in keys]
    if verify:
        _verify_sealed(client, match_id, server_key, seat_keys, book)
    result = {"id": match_id, "seats": names, "moves": moves, "result": summary.get("result"),
              "receipts": book.to_json(match_id, seat_keys), "seat_keys": seat_keys}
    if stats is not None:
        with stats.lock:
            stats.matches += 1
            stats.results.append(result)
    return result


def _verify_sealed(client: ApiClient, match_id: str, server_key: str, seat_keys: list[str],
                   book: ReceiptBook) -> None:
    """Fetch the sealed bundle and verify it as a player would: the server key and the seats'
    own keys pinned, every receipt checked against it — and it must be this match's bundle."""
    status, data = client.raw("GET", f"/matches/{match_id}/bundle")
    if status != 200:
        raise TamperDetected(f"the server did not hand out the sealed bundle (HTTP {status})")
    pins = {str(seat): key for seat, key in enumerate(seat_keys)}
    report = verify_bytes(data, trusted_key=server_key, seat_keys=pins, receipts=book.parsed,
                          receipts_for=match_id)
    named = report.facts.get("match_id")
    if named is not None and named != match_id:
        raise TamperDetected(f"the server handed out the bundle of match {named} as the sealed "
                             f"bundle of match {match_id}")
    if not report.ok:
        raise TamperDetected(f"the sealed bundle of match {match_id} does not verify: "
                             f"{report.failure}")


def play_matches(base_url: str, game: str, count: int, *, concurrency: int = 1,
                 seed: int | None = None, turn_limit_ms: int | None = 60_000,
                 signed: bool = False, pace: float = 0.0,
                 server_key: str | None = None,
                 moves: bool = False,
                 duration: float | None = None) -> Iterator[dict[str, Any]]:
    """Play ``count`` matches, ``concurrency`` at a time, and yield what happens in order:
    ``{"started": {"id", "seats"}}`` when a match is created, ``{"move": ...}`` for each move
    (only with ``moves``; see play_match's ``on_move``), each match's result (play_match's
    answer) as it ends, and last ``{"stats": PlayStats}``. With ``duration``, no match starts
    after that many seconds (the ones under way finish): a load run of a set length, ``count``
    its cap."""
    stats = PlayStats()
    master = random.Random(seed)
    queue = [master.randbytes(16) for _ in range(count)]
    queue.reverse()
    queue_lock = threading.Lock()
    deadline = None if duration is None else time.perf_counter() + duration
    # what the workers did, in order; list.append is atomic, and only the caller's thread reads
    news: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    client = ApiClient(base_url)

    def started(match: dict[str, Any]) -> None:
        news.append({"started": match})

    def moved(move: dict[str, Any]) -> None:
        news.append({"move": move})

    def worker() -> None:
        while True:
            with queue_lock:
                if not queue or errors or (deadline is not None
                                           and time.perf_counter() > deadline):
                    return
                match_seed = queue.pop()
            try:
                news.append(play_match(client, game, rng=random.Random(match_seed),
                                       turn_limit_ms=turn_limit_ms, signed=signed,
                                       stats=stats, pace=pace, server_key=server_key,
                                       on_start=started, on_move=moved if moves else None))
            except BaseException as e:  # noqa: BLE001  surfaced to the caller below
                errors.append(e)
                return

    start = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, concurrency))]
    for thread in threads:
        thread.start()
    reported = 0
    while any(thread.is_alive() for thread in threads) or reported < len(news):
        while reported < len(news):
            yield news[reported]
            reported += 1
        time.sleep(0.05)
    stats.seconds = time.perf_counter() - start
    if errors:
        raise errors[0]
    yield {"stats": stats}
