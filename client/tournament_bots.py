"""Bots in a tournament — ``fairdeal play --tournament ID``: register N bots, each with an
Ed25519 key of its own, then play every match the tournament pairs them in until it is over.

A tournament match is an ordinary match the server created with the two players' registered
keys as its seat keys and each player's token as its seat token, so each match is played by
client/bots.py's driver (``BotMatch``) from its seeds on: every seed and move signed with the
seat's tournament key, every receipt checked, and the sealed bundle verified at the end with
both players' keys pinned — a server that changed anything is caught as in any live match.
A match both of whose seats are these bots is played by one driver; a match against another
party (a person who registered with ``fairdeal tournament register``) by the bot's seat alone.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from fairdeal.verifier.keys import SigningKey

from .api import ApiClient, ApiError
from .bots import BOT_NAME, BotMatch, PlayStats
from .receipts import ReceiptBook, TamperDetected, checked_match_id
from .tournaments import TournamentClient

__all__ = ["TournamentBot", "enter_bots", "play_one_seat", "play_paired_match",
           "play_tournament"]

#: how long the bots wait between two reads of a tournament whose next round is not paired yet
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class TournamentBot:
    """One bot's entry: its name, its key, its key id (the player) and its player token."""

    name: str
    key: SigningKey
    player: str
    token: str


def enter_bots(tournaments: TournamentClient, tournament_id: str, count: int,
               rng: random.Random, name: str = BOT_NAME,
               keys: list[SigningKey] | None = None) -> list[TournamentBot]:
    """Register ``count`` bots named ``"<name> 1"``, ``"<name> 2"``…, each with a key (drawn
    from ``rng`` unless given in ``keys``) and entropy of its own from ``rng``."""
    bots = []
    for number in range(count):
        key = keys[number] if keys else SigningKey.from_seed(rng.randbytes(32))
        label = f"{name} {number + 1}"
        answer = tournaments.register(tournament_id, key, label, rng.randbytes(32).hex())
        if answer.get("player") != key.key_id:
            raise TamperDetected(f"the server registered {label} as player "
                                 f"{answer.get('player')!r}, not its key id {key.key_id}")
        bots.append(TournamentBot(label, key, key.key_id, answer["player_token"]))
    return bots


def play_paired_match(client: ApiClient, match_id: str, seats: list[TournamentBot], *,
                      rng: random.Random, server_key: str, pace: float = 0.0,
                      stats: PlayStats | None = None,
                      on_move: Callable[[dict[str, Any]], None] | None = None
                      ) -> dict[str, Any]:
    """Play the tournament match ``match_id`` whose seats (in order) are ``seats``: the seat
    keys are the players' own, registered by the server when it created the match, so the
    driver starts at the seeds. Returns what ``play_match`` returns."""
    match = BotMatch(client, rng, signed=True, stats=stats, decline_chance=0.0)
    match.id = checked_match_id(match_id)
    match.server_key = server_key
    match.book = ReceiptBook(server_key, match.id)
    match.names = [bot.name for bot in seats]
    match.tokens = [bot.token for bot in seats]
    match.keys = [bot.key for bot in seats]
    match.latest.update(match.view_of(0))
    match.add_seeds()
    moves = match.play_moves(pace, on_move)
    return match.finish(moves)


def play_one_seat(client: ApiClient, match_id: str, seat: int, bot: TournamentBot,
                  seat_keys: list[str], *, rng: random.Random, server_key: str,
                  pace: float = 0.0, stats: PlayStats | None = None) -> dict[str, Any]:
    """Play ``bot``'s seat of the tournament match ``match_id``, the other seat being another
    party's; the sealed bundle is verified with both players' registered keys (``seat_keys``,
    seat 0 first) pinned. Returns what ``play_match`` returns."""
    match = BotMatch(client, rng, signed=True, stats=stats, decline_chance=0.0)
    match.id = checked_match_id(match_id)
    match.server_key = server_key
    match.book = ReceiptBook(server_key, match.id)
    match.names = [bot.name if index == seat else f"seat {index}" for index in range(2)]
    match.tokens = [bot.token, bot.token]  # only this seat's entry is ever used
    match.keys = [bot.key, bot.key]
    moves = match.play_seat(seat, pace)
    return match.finish(moves, seat_keys=seat_keys)


def play_tournament(base_url: str, tournament_id: str, bots: list[TournamentBot], *,
                    seed: int | None = None, pace: float = 0.0,
                    server_key: str | None = None, moves: bool = False,
                    poll: float = POLL_SECONDS, timeout: float | None = None,
                    organiser_token: str | None = None) -> Iterator[dict[str, Any]]:
    """Play every match the tournament pairs ``bots`` against each other in, each round's
    matches at once, until the tournament is finished; yield what happens, in order:
    ``{"round": n, "pairings": […], "byes": […]}`` when a round is first seen,
    ``{"started": {"id", "seats", "round", "table"}}``, ``{"move": …}`` (only with
    ``moves``), each match's result (``play_match``'s answer, with ``round`` and ``table``),
    ``{"disputes_until": ms, "open": [dispute numbers]}`` when the server's auto finish
    waits for the last round's dispute window (docs/tournaments.md §8), and last
    ``{"finished": the tournament}`` and ``{"stats": PlayStats}``. ``timeout``: give up
    (TimeoutError) when the tournament is not over after that many seconds.

    With ``organiser_token`` the bots' runner also acts for the organiser: once every match
    of the rounds so far has its result it asks for the next round (harmless when the server
    pairs by itself: it answers ``round-not-complete``), and it stops when the server says the
    last round is played (``tournament-over``), leaving ``finish`` to the organiser — unless
    the server finishes by itself (``auto``: a dispute window is shown), which it waits for."""
    run = _TournamentRun(ApiClient(base_url), tournament_id, bots, seed=seed, pace=pace,
                         server_key=server_key, moves=moves)
    begun = time.perf_counter()
    all_played = False
    window: tuple[Any, ...] = ()
    while True:
        tournament = run.tournaments.get(tournament_id)
        run.start_matches(tournament)
        yield from run.news()
        if organiser_token and not all_played and _complete(tournament):
            all_played = _pair_next(run.tournaments, tournament_id, organiser_token)
        until = tournament.get("disputes_until")
        if until is not None and not run.playing() and (until, *_open(tournament)) != window:
            window = (until, *_open(tournament))
            yield {"disputes_until": until, "open": list(window[1:])}
        # every round played, and no window: the organiser finishes (else the server does)
        handed_over = all_played and until is None
        if (tournament["status"] == "finished" or handed_over) and not run.playing():
            yield from run.news()
            break
        if timeout is not None and time.perf_counter() - begun > timeout:
            raise TimeoutError(f"tournament {tournament_id} is not over after {timeout:.0f} s")
        time.sleep(poll)
    run.stats.seconds = time.perf_counter() - begun
    yield {"finished": tournament}
    yield {"stats": run.stats}


class _TournamentRun:
    """The bots' matches under way: one thread per match, started when its pairing is first
    seen; what the threads report, and the first error one of them met."""

    def __init__(self, client: ApiClient, tournament_id: str, bots: list[TournamentBot], *,
                 seed: int | None, pace: float, server_key: str | None,
                 moves: bool) -> None:
        self.client = client
        self.tournaments = TournamentClient(client)
        self.server_key = server_key if server_key is not None else \
            str(client.call("GET", "/keys")["keys"][0]["key"])
        self.ours = {bot.player: bot for bot in bots}
        self.master = random.Random(seed)
        self.pace = pace
        self.moves = moves
        self.stats = PlayStats()
        self.reports: list[dict[str, Any]] = []
        self.errors: list[BaseException] = []
        self.threads: list[threading.Thread] = []
        self.seen_rounds: set[int] = set()
        self.started: set[str] = set()

    def start_matches(self, tournament: dict[str, Any]) -> None:
        """Report each round first seen, and start playing each of its matches a bot sits
        in and that has not started yet: both seats when both are bots, else the bot's."""
        keys = {player["player"]: player["public_key"] for player in tournament["players"]}
        for round_ in tournament["rounds"]:
            if round_["round"] not in self.seen_rounds:
                self.seen_rounds.add(round_["round"])
                self.reports.append(round_)
            for pairing in round_["pairings"]:
                match_id = pairing.get("match_id")
                if (not match_id or match_id in self.started
                        or pairing.get("result") is not None
                        or not any(seat in self.ours for seat in pairing["seats"])):
                    continue
                self.started.add(match_id)
                self.reports.append({"started": {
                    "id": match_id, "round": round_["round"], "table": pairing["table"],
                    "seats": [self.ours[seat].name if seat in self.ours else seat
                              for seat in pairing["seats"]]}})
                thread = threading.Thread(target=self._play, daemon=True, args=(
                    pairing, [keys[seat] for seat in pairing["seats"]], round_["round"],
                    self.master.randbytes(16)))
                thread.start()
                self.threads.append(thread)

    def _play(self, pairing: dict[str, Any], seat_keys: list[str], round_number: int,
              match_seed: bytes) -> None:
        seats = pairing["seats"]
        rng = random.Random(match_seed)
        try:
            if all(seat in self.ours for seat in seats):
                result = play_paired_match(
                    self.client, pairing["match_id"], [self.ours[seat] for seat in seats],
                    rng=rng, server_key=self.server_key, pace=self.pace, stats=self.stats,
                    on_move=self._moved if self.moves else None)
            else:
                seat = 0 if seats[0] in self.ours else 1
                result = play_one_seat(self.client, pairing["match_id"], seat,
                                       self.ours[seats[seat]], seat_keys, rng=rng,
                                       server_key=self.server_key, pace=self.pace,
                                       stats=self.stats)
            self.reports.append({**result, "round": round_number, "table": pairing["table"]})
        except BaseException as e:  # noqa: BLE001  surfaced to the caller by news()
            self.errors.append(e)

    def _moved(self, move: dict[str, Any]) -> None:
        self.reports.append({"move": move})

    def news(self) -> Iterator[dict[str, Any]]:
        """What the threads reported since the last call, in order (list.pop(0) is atomic
        under the GIL, as their list.append is); then the first error one of them met."""
        while self.reports:
            yield self.reports.pop(0)
        if self.errors:
            raise self.errors[0]

    def playing(self) -> bool:
        return any(thread.is_alive() for thread in self.threads)


def _complete(tournament: dict[str, Any]) -> bool:
    """Every match of the rounds paired so far has its result (and the tournament runs)."""
    return tournament["status"] == "running" and all(
        pairing.get("result") is not None
        for round_ in tournament["rounds"] for pairing in round_["pairings"])


def _open(tournament: dict[str, Any]) -> list[int]:
    """The numbers of the disputes without a ruling."""
    return [item["dispute"] for item in tournament.get("disputes") or []
            if item.get("ruling") is None]


def _pair_next(tournaments: TournamentClient, tournament_id: str, token: str) -> bool:
    """Ask for the next round as the organiser: True when every round is played already."""
    try:
        tournaments.pair(tournament_id, token)
    except ApiError as e:
        if e.code == "tournament-over":
            return True
        if e.code != "round-not-complete":  # the server paired it first (auto)
            raise
    return False
