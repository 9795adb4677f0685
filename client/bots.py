"""Bots that play live matches through the /api/v1 JSON API — ``fairdeal play``: the demo
data and a load generator in one.

The bots see only what a seat sees (its view and its ``legal_actions``) and choose uniformly
among the legal actions. Every write answers with the writer's view after it, so a bot reads
(GET) only when the other seat has moved since: one POST per move, and one GET per change of
turn. With ``signed`` each seat registers an Ed25519 key and signs its seed events and moves:
what it signs is ``seat_message`` of ``{seq: next_seq, prev: head, type, seat, …}`` (for a
move ``action``, ``action_id`` and ``client_ts``, its own clock), with ``next_seq`` and ``head``
from the seat's view. Every answer's receipt is checked against what was sent, and the sealed
bundle is verified at the end with the seats' keys and the receipts.

``play_match`` reads as the match's steps, each a method of ``BotMatch``: create the match,
register the seats' keys, commit and reveal the seeds, play the moves, check the sealed bundle.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fairdeal.games import get_game
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import client_commitment, seat_message
from fairdeal.verifier.verify import verify_bytes

from .api import ApiClient, ApiError
from .receipts import ReceiptBook, TamperDetected, checked_match_id, same_match

__all__ = ["BOT_NAME", "DECLINE_CHANCE", "BotMatch", "PlayStats", "play_match", "play_matches"]

#: what the live bots call themselves (seat names "random bot 1", "random bot 2"): not the
#: simulator's "<bot>-bot", so the viewer never labels a live match "simulated"
BOT_NAME = "random bot"
#: how likely a live bot declines to add a seed of its own (`fairdeal play --decline-rate`)
DECLINE_CHANCE = 0.2

#: how often a signed write is drafted again after losing the race for its position
WRITE_TRIES = 50
#: the move loop stops after this many rounds even if the server never ends the match; what
#: it then holds is checked as any ended match's (and a server that lies is caught there)
MAX_TURNS = 100_000


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

    def count_request(self) -> None:
        with self.lock:
            self.requests += 1

    def count_conflict(self) -> None:
        with self.lock:
            self.conflicts += 1

    def count_move(self, latency: float) -> None:
        with self.lock:
            self.moves += 1
            self.latencies.append(latency)

    def count_match(self, result: dict[str, Any]) -> None:
        with self.lock:
            self.matches += 1
            self.results.append(result)


def play_match(client: ApiClient, game: str, *, rng: random.Random,
               params: dict[str, Any] | None = None, turn_limit_ms: int | None = 60_000,
               signed: bool = False, stats: PlayStats | None = None,
               on_response: Callable[[Any], None] | None = None,
               pace: float = 0.0, server_key: str | None = None,
               verify: bool = True,
               on_move: Callable[[dict[str, Any]], None] | None = None,
               on_start: Callable[[dict[str, Any]], None] | None = None,
               decline_chance: float = DECLINE_CHANCE) -> dict[str, Any]:
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
    ``decline_chance`` is how likely each seat declines to add a seed of its own.
    """
    match = BotMatch(client, rng, signed=signed, stats=stats, on_response=on_response,
                     decline_chance=decline_chance)
    match.create(game, params or {}, turn_limit_ms, server_key, on_start)
    match.register_keys()
    match.add_seeds()
    moves = match.play_moves(pace, on_move)
    return match.finish(moves, verify)


class BotMatch:
    """One live match two bots play through the API, one step per method, in the order
    ``play_match`` calls them: ``create``, ``register_keys``, ``add_seeds``, ``play_moves``,
    ``finish``.

    Every request goes through ``call`` (counted in ``stats``, shown to ``on_response``); every
    write's answer is checked by the match's ``ReceiptBook``; every view is refused if it names
    another match. ``rng`` is the bots' only source of choices: keys, seeds and moves.
    """

    def __init__(self, client: ApiClient, rng: random.Random, *, signed: bool = False,
                 stats: PlayStats | None = None,
                 on_response: Callable[[Any], None] | None = None,
                 decline_chance: float = DECLINE_CHANCE) -> None:
        self.client = client
        self.rng = rng
        self.signed = signed
        self.decline_chance = decline_chance
        self.stats = stats
        self.on_response = on_response
        #: set by ``create``: the match's id, its seats' names and tokens, the server's key
        #: and the book of its receipts
        self.id = ""
        self.names: list[str] = []
        self.tokens: list[str] = []
        self.server_key = ""
        self.book = ReceiptBook(None)
        #: the seats' signing keys (``signed`` only), drawn by ``register_keys``
        self.keys: list[SigningKey] = []
        #: the newest view any write was answered with: a signed write is drafted after it
        self.latest: dict[str, Any] = {}

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """The JSON answer of one request, counted and shown to ``on_response``."""
        value = self.client.call(method, path, body, token)
        if self.stats is not None:
            self.stats.count_request()
        if self.on_response is not None:
            self.on_response(value)
        return value

    def view_of(self, seat: int) -> dict[str, Any]:
        """A seat's view, refused if the server answers with another match's."""
        view: dict[str, Any] = self.call("GET", f"/matches/{self.id}", token=self.tokens[seat])
        same_match(view, self.id, "view")
        return view

    # (1) the match ------------------------------------------------------------------------

    def create(self, game: str, params: dict[str, Any], turn_limit_ms: int | None,
               server_key: str | None,
               on_start: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Create the match, its seats named after the bots, and start its receipt book; the
        server's key is ``server_key`` when pinned, else what ``GET /keys`` names."""
        if server_key is None:
            server_key = self.call("GET", "/keys")["keys"][0]["key"]
        self.server_key = server_key
        seat_count = len(get_game(game).seat_names)
        # the bots' names are the seats' names, so the viewer says who played
        self.names = [f"{BOT_NAME} {index + 1}" for index in range(seat_count)]
        created = self.call("POST", "/matches", {"game": game, "params": params,
                                                 "turn_limit_ms": turn_limit_ms,
                                                 "seats": self.names})
        # the id goes into every URL path below and into the receipts file's name: checked
        self.id = checked_match_id(created["id"])
        self.book = ReceiptBook(server_key, self.id)
        if on_start is not None:
            on_start({"id": self.id, "seats": self.names})
        self.tokens = [seat["token"] for seat in created["seats"]]

    # (2) the seats' keys ------------------------------------------------------------------

    def register_keys(self) -> None:
        """With ``signed``, each seat registers a key of its own (from the bots' stream), its
        receipt checked; then the match's newest view is known either way."""
        if self.signed:
            self.keys = [SigningKey.from_seed(self.rng.randbytes(32)) for _ in self.tokens]
        for seat, key in enumerate(self.keys):
            answer = self.call("POST", f"/matches/{self.id}/seat-key",
                               {"public_key": key.public_text}, self.tokens[seat])
            self.book.check(answer, {"type": "seat_key", "seat": seat,
                                     "public_key": key.public_text})
            self.latest.update(answer["view"])
        if not self.latest:
            self.latest.update(self.view_of(0))

    # (3) the seeds ------------------------------------------------------------------------

    def add_seeds(self) -> None:
        """Each seat commits to a seed of its own (or declines, at ``decline_chance``: one in
        five by default), and once every seat
        has committed or declined, each reveals its seed."""
        seeds: dict[int, str] = {}
        for seat in range(len(self.tokens)):
            if self.rng.random() < self.decline_chance:
                self.write("/seed", seat, {"client_seed": None}, "client_seed",
                           {"client_seed": None})
                continue
            seeds[seat] = self.rng.randbytes(32).hex()
            digest = client_commitment(self.id, seat, seeds[seat])
            self.write("/seed", seat, {"commitment": digest}, "seed_commit",
                       {"commitment": digest})
        for seat, seed in seeds.items():
            self.write("/seed", seat, {"client_seed": seed}, "seed_reveal",
                       {"client_seed": seed})

    def write(self, path: str, seat: int, body: dict[str, Any], kind: str,
              sent: dict[str, Any]) -> dict[str, Any]:
        """One signed-if-need-be write of ``seat`` before the moves, its receipt checked;
        a signed write that lost the race for its position is drafted again."""
        for _ in range(WRITE_TRIES):
            if self.signed:
                body["expected_seq"] = self.latest["next_seq"]
                draft = {"seq": self.latest["next_seq"], "prev": self.latest["head"],
                         "type": kind, "seat": seat, **sent}
                body["sig"] = self.keys[seat].sign(seat_message(draft)).hex()
            try:
                answer: dict[str, Any] = self.call("POST", f"/matches/{self.id}{path}", body,
                                                   self.tokens[seat])
            except ApiError as e:
                if e.status != 409 or not self.signed:
                    raise
                self.latest.update(self.view_of(seat))
                continue
            self.book.check(answer, {"type": kind, "seat": seat, **sent,
                                     **({"sig": body["sig"]} if self.signed else {})})
            self.latest.update(answer["view"])
            return answer
        raise ApiError(409, "conflict", "could not find a free position to write")

    # (4) the moves ------------------------------------------------------------------------

    def play_moves(self, pace: float = 0.0,
                   on_move: Callable[[dict[str, Any]], None] | None = None) -> int:
        """Let the seat to move choose among its legal actions until the match has ended;
        the number of moves the server accepted.

        Each seat keeps its latest view: every write answers with the writer's view after
        it, so a seat reads (GET) only when the other seat moved since its own last answer.
        """
        views: list[dict[str, Any]] = [dict(self.latest) for _ in self.tokens]
        moves = 0
        for _ in range(MAX_TURNS):
            newest = max(views, key=lambda view: view["next_seq"])
            if newest["status"] in ("ended", "imported"):
                break
            seat = self._seat_to_move(views, newest)
            if seat is not None and self._move(views, seat, pace, on_move):
                moves += 1
        return moves

    def _seat_to_move(self, views: list[dict[str, Any]],
                      newest: dict[str, Any]) -> int | None:
        """The seat whose turn the newest view says it is, its own view brought up to date;
        None when no seat can move yet (the server is between turns)."""
        current: int | None = newest["current_seat"]
        if current is None:
            time.sleep(0.01)
            views[0] = self.view_of(0)
            return None
        view = views[current]
        if view["next_seq"] != newest["next_seq"] or not view["legal_actions"] \
                or view["seat"] != current:
            view = views[current] = self.view_of(current)
            if not view["legal_actions"]:
                return None
        return current

    def _move(self, views: list[dict[str, Any]], seat: int, pace: float,
              on_move: Callable[[dict[str, Any]], None] | None) -> bool:
        """``seat`` chooses and sends one move: True once the server accepted it, False when
        the other seat got there first (its view is read again)."""
        action = self.rng.choice(views[seat]["legal_actions"])
        if pace:
            time.sleep(pace)
        body, sent = self._move_request(views[seat], seat, action)
        posted = time.perf_counter()
        try:
            answer = self.call("POST", f"/matches/{self.id}/actions", body, self.tokens[seat])
        except ApiError as e:
            if e.status != 409:
                raise
            if self.stats is not None:
                self.stats.count_conflict()
            views[seat] = self.view_of(seat)
            return False
        self.book.check(answer, sent)
        views[seat] = answer["view"]
        if on_move is not None:
            self._tell_move(on_move, answer["event"]["seq"], seat, action)
        if self.stats is not None:
            self.stats.count_move(time.perf_counter() - posted)
        return True

    def _move_request(self, view: dict[str, Any], seat: int,
                      action: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The move's request body, and the event fields the receipt must show as sent
        (signed: the seat's own clock and its signature over the drafted event)."""
        action_id = secrets.token_hex(8)
        body: dict[str, Any] = {"action": action, "expected_seq": view["next_seq"],
                                "action_id": action_id}
        sent: dict[str, Any] = {"type": "move", "seat": seat, "action": action,
                                "action_id": action_id}
        if self.signed:
            body["client_ts"] = sent["client_ts"] = time.time_ns() // 1_000_000
            draft = {"seq": view["next_seq"], "prev": view["head"], **sent}
            body["sig"] = sent["sig"] = self.keys[seat].sign(seat_message(draft)).hex()
        return body, sent

    def _tell_move(self, on_move: Callable[[dict[str, Any]], None], seq: int, seat: int,
                   action: Any) -> None:
        """Tell ``on_move`` of an accepted move, with the server's public caption of it."""
        captions = self.call("GET", f"/matches/{self.id}/events?after={seq - 1}&limit=1")
        on_move({"id": self.id, "seq": seq, "seat": seat, "action": action,
                 "caption": captions.get("captions", {}).get(str(seq))})

    # (4b) one seat only: the other is another party's (a tournament's player) ------------

    def play_seat(self, seat: int, pace: float = 0.0, poll: float = 0.1) -> int:
        """Play ``seat`` alone, the other seat being someone else's: commit to a seed, reveal
        it once every seat has committed (the view's ``seed_phase``), then move whenever the
        seat's view says it is its turn, until the match has ended. ``self.tokens[seat]`` and
        ``self.keys[seat]`` are the seat's; the number of moves it made."""
        seed = self.rng.randbytes(32).hex()
        view = self.view_of(seat)
        if view["seed_phase"] == "commit" and view["seeds"][seat] is None:
            digest = client_commitment(self.id, seat, seed)
            self.latest.update(view)
            self.write("/seed", seat, {"commitment": digest}, "seed_commit",
                       {"commitment": digest})
            while (view := self.view_of(seat))["seed_phase"] == "commit":
                time.sleep(poll)
            if view["seed_phase"] == "reveal":
                self.latest.update(view)
                self.write("/seed", seat, {"client_seed": seed}, "seed_reveal",
                           {"client_seed": seed})
        moves = 0
        for _ in range(MAX_TURNS):
            view = self.view_of(seat)
            if view["status"] in ("ended", "imported"):
                break
            if view["current_seat"] != seat or not view["legal_actions"]:
                time.sleep(poll)
                continue
            if self._move([view] * len(self.tokens), seat, pace, None):
                moves += 1
        return moves

    # (5) the end --------------------------------------------------------------------------

    def finish(self, moves: int, verify: bool = True,
               seat_keys: list[str] | None = None) -> dict[str, Any]:
        """The match's summary; with ``verify``, its sealed bundle checked as a player would,
        the seats' keys pinned (``seat_keys``, else the bots' own). Returns what
        ``play_match`` returns."""
        summary = self.call("GET", f"/matches/{self.id}")
        same_match(summary, self.id, "summary")
        seat_keys = seat_keys or [key.public_text for key in self.keys]
        if verify:
            _verify_sealed(self.client, self.id, self.server_key, seat_keys, self.book)
        result = {"id": self.id, "seats": self.names, "moves": moves,
                  "result": summary.get("result"),
                  "receipts": self.book.to_json(self.id, seat_keys), "seat_keys": seat_keys}
        if self.stats is not None:
            self.stats.count_match(result)
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
                 duration: float | None = None,
                 decline_chance: float = DECLINE_CHANCE) -> Iterator[dict[str, Any]]:
    """Play ``count`` matches, ``concurrency`` at a time, and yield what happens in order:
    ``{"started": {"id", "seats"}}`` when a match is created, ``{"move": ...}`` for each move
    (only with ``moves``; see play_match's ``on_move``), each match's result (play_match's
    answer) as it ends, and last ``{"stats": PlayStats}``. With ``duration``, no match starts
    after that many seconds (the ones under way finish): a load run of a set length, ``count``
    its cap."""
    stats = PlayStats()
    master = random.Random(seed)
    # each match's seed drawn as it starts, in order: a load run's cap of a million matches
    # (bench_load's -n) drawn up front cost the bots 3 CPU-seconds before the first move
    left = count
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
        nonlocal left
        while True:
            with queue_lock:
                if not left or errors or (deadline is not None
                                          and time.perf_counter() > deadline):
                    return
                left -= 1
                match_seed = master.randbytes(16)
            try:
                news.append(play_match(client, game, rng=random.Random(match_seed),
                                       turn_limit_ms=turn_limit_ms, signed=signed,
                                       stats=stats, pace=pace, server_key=server_key,
                                       on_start=started, on_move=moved if moves else None,
                                       decline_chance=decline_chance))
            except BaseException as e:  # noqa: BLE001  surfaced to the caller below
                errors.append(e)
                return

    start = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, concurrency))]
    for thread in threads:
        thread.start()
    yield from _follow(threads, news)
    stats.seconds = time.perf_counter() - start
    if errors:
        raise errors[0]
    yield {"stats": stats}


def _follow(threads: list[threading.Thread], news: list[dict[str, Any]]
            ) -> Iterator[dict[str, Any]]:
    """What the workers report, in order, as it comes, until every worker has stopped and
    every report is out."""
    reported = 0
    while any(thread.is_alive() for thread in threads) or reported < len(news):
        while reported < len(news):
            yield news[reported]
            reported += 1
        time.sleep(0.05)
