"""Bot matches recorded offline, exactly as live ones are: commitment, client seeds, chained
moves, server-written timeouts, reveal and signature. Seats commit to their seeds, then reveal
them (fairdeal/2); a signing seat signs its seed events and its moves. With a seed, everything —
server seeds, match ids, bot choices, bot thinking times, the clock and the signing keys —
derives from it, so the output is byte-for-byte reproducible.

The events are written by the verifier's own recorder (``verifier.record.MatchRecorder``), and
nothing of the server is imported: a simulation needs no ledger, no database and no network.
"""

from __future__ import annotations

import functools
import hashlib
import random
import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal.games import Bot, get_bots, get_game
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import client_commitment
from fairdeal.verifier.record import MatchRecorder, make_genesis

__all__ = ["SimulationSettings", "simulate_matches", "simulate_match"]

#: a simulated clock starts here when the run is seeded (2026-01-01T00:00:00Z)
SEEDED_EPOCH_MS = 1_767_225_600_000
#: a simulated seat is named after its bot, "random-bot": the viewer labels such matches
#: "simulated" (a display hint read from the names, not a verified claim)
SIMULATED_SEAT_SUFFIX = "-bot"
#: an unseeded run gives each match an hour; a seeded run leaves a minute between matches
SLOT_MS = 3_600_000
GAP_MS = 60_000
#: a match that has not ended after this many plays is a bug in the rules or the bots
MAX_PLIES = 20_000


@dataclass(frozen=True)
class SimulationSettings:
    game: str
    params: Mapping[str, Any]
    bots: tuple[str, str]
    turn_limit_ms: int | None = 60_000
    #: chance that a bot lets a turn run out, and that it does so again right after
    timeout_chance: float = 0.01
    timeout_streak: float = 0.45
    #: seats register keys and sign their seeds and moves
    signed_moves: bool = False
    #: the rules version to play under (None: the game's newest; an older one rebuilds old
    #: fixtures)
    rules_version: str | None = None
    #: chance that a seat declines to add a seed of its own
    decline_chance: float = 0.2


class _Source:
    """Where a run's randomness comes from: a seed (reproducible) or the OS (not)."""

    def __init__(self, seed: str | None) -> None:
        self.seeded = seed is not None
        self._random = random.Random(
            hashlib.sha256(b"fairdeal-simulate\x00" + seed.encode()).digest()
            if seed is not None else secrets.token_bytes(32)
        )

    def token(self, size: int) -> bytes:
        if self.seeded:
            return self._random.randbytes(size)
        return secrets.token_bytes(size)

    def child(self) -> random.Random:
        return random.Random(self._random.randbytes(32))


def simulate_match(
    settings: SimulationSettings,
    *,
    server_seed: bytes,
    match_id: str,
    server_key: SigningKey,
    bot_random: random.Random,
    start_ms: int,
    seat_keys: Sequence[SigningKey] | None = None,
) -> dict[str, Any]:
    """Play one match between the settings' bots and return its sealed bundle.

    The steps are a live match's: the genesis, the seats' keys (``seat_keys``), the seeds
    committed then revealed, the moves and timeouts, the reveal and the seal. ``bot_random``
    decides every choice and every pause, in that order, so a match is its arguments.
    """
    bots = get_bots(settings.game)
    players = [bots[name] for name in settings.bots]
    genesis = make_genesis(
        game_name=settings.game,
        params=settings.params,
        seats=[f"{name}{SIMULATED_SEAT_SUFFIX}" for name in settings.bots],
        match_id=match_id,
        server_seed=server_seed,
        server_key_id=server_key.key_id,
        turn_limit_ms=settings.turn_limit_ms,
        ts=start_ms,
        rules_version=settings.rules_version,
    )
    match = _Match(settings, MatchRecorder(genesis, server_seed), match_id, bot_random,
                   list(seat_keys) if seat_keys is not None else [None] * len(players),
                   start_ms)
    if seat_keys is not None:
        match.register_keys(seat_keys)
    match.add_seeds()
    match.play(players)
    match.clock += bot_random.randint(10, 500)
    match.recorder.reveal(match.clock)
    return match.recorder.seal(server_key)


@dataclass
class _Match:
    """One simulated match being recorded: its recorder, the bots' stream and the clock, which
    every event moves on by a pause drawn from the stream."""

    settings: SimulationSettings
    recorder: MatchRecorder
    match_id: str
    bot_random: random.Random
    #: each seat's signing key, None for a seat that does not sign
    signers: list[SigningKey | None]
    clock: int

    def register_keys(self, seat_keys: Sequence[SigningKey]) -> None:
        """Each signing seat registers its key before anything else it writes."""
        for seat, key in enumerate(seat_keys):
            self.clock += self.bot_random.randint(50, 900)
            self.recorder.append("seat_key", self.clock, seat=seat, public_key=key.public_text)

    def add_seeds(self) -> None:
        """Every seat commits (or declines) first; the seeds are revealed once all are fixed."""
        seeds: dict[int, str] = {}
        for seat, signer in enumerate(self.signers):
            self.clock += self.bot_random.randint(100, 3_000)
            if self.bot_random.random() < self.settings.decline_chance:
                self.recorder.append("client_seed", self.clock, signer=signer, seat=seat,
                                     client_seed=None)
                continue
            seeds[seat] = self.bot_random.randbytes(32).hex()
            self.recorder.append("seed_commit", self.clock, signer=signer, seat=seat,
                                 commitment=client_commitment(self.match_id, seat, seeds[seat]))
        for seat, seed in seeds.items():
            self.clock += self.bot_random.randint(100, 1_500)
            self.recorder.append("seed_reveal", self.clock, signer=self.signers[seat], seat=seat,
                                 client_seed=seed)

    def play(self, players: Sequence[Bot]) -> None:
        """The bots move, or let a turn run out, until the rules say the match has ended."""
        lagging = [False] * len(players)
        while self.recorder.replayer.outcome is None:
            if self.recorder.replayer.plies > MAX_PLIES:
                raise RuntimeError(f"match {self.match_id} did not end in {MAX_PLIES} plays")
            seat = self.recorder.game.current_seat(self.recorder.state)
            assert seat is not None
            chance = (self.settings.timeout_streak if lagging[seat]
                      else self.settings.timeout_chance)
            # the rules' deadline: per action, or for the whole turn (a rune then a scroll)
            deadline = self.recorder.replayer.deadline_ms()
            lagging[seat] = deadline is not None and self.bot_random.random() < chance
            if lagging[seat]:
                assert deadline is not None
                self.clock = deadline + self.bot_random.randint(0, 2_000)
                self.recorder.append("timeout", self.clock, seat=seat)
            else:
                self.move(players[seat], seat, deadline)

    def move(self, player: Bot, seat: int, deadline: int | None) -> None:
        """``player`` thinks (never past the deadline) and moves; a signing seat signs the move
        and stamps it with its own clock, a little behind the server's."""
        state = self.recorder.state
        action = player.choose(state, self.bot_random)
        think = self.bot_random.randint(300, 12_000)
        self.clock = self.clock + think if deadline is None else min(self.clock + think,
                                                                      deadline)
        signer = self.signers[seat]
        fields: dict[str, Any] = {"seat": seat,
                                  "action": self.recorder.game.action_to_json(action)}
        if signer is not None:
            fields["client_ts"] = self.clock - self.bot_random.randint(0, 250)
        self.recorder.append("move", self.clock, signer=signer, **fields)


def simulate_matches(
    settings: SimulationSettings,
    count: int,
    *,
    seed: str | None,
    server_key: SigningKey | None,
    now_ms: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield ``count`` sealed bundles. With ``seed`` the run is reproducible, and the server key
    (when none is given) is derived from the seed too.

    No timestamp lies in the future. A seeded run's clock starts at SEEDED_EPOCH_MS and each
    match begins a minute after the one before it ended, so the output never depends on when
    it is made. An unseeded run gives each match an hour's slot, the last slot ending an hour
    before ``now_ms`` (default: the wall clock); a match longer than its slot is played again
    from the same choices, earlier, so that it ends before now.
    """
    get_game(settings.game)
    source = _Source(seed)
    if server_key is None:
        server_key = SigningKey.from_seed(source.token(32))
    now = int(time.time() * 1000) if now_ms is None else now_ms
    start = SEEDED_EPOCH_MS if source.seeded else now - (count + 1) * SLOT_MS
    for index in range(count):
        server_seed = source.token(32)
        match_id = source.token(8).hex()
        bot_random = source.child()
        seat_keys = None
        if settings.signed_moves:
            seat_keys = [SigningKey.from_seed(source.token(32)) for _ in settings.bots]
        choices = bot_random.getstate()
        if not source.seeded:
            start = now - (count + 1 - index) * SLOT_MS
        match = functools.partial(simulate_match, settings, server_seed=server_seed,
                                  match_id=match_id, server_key=server_key,
                                  bot_random=bot_random, seat_keys=seat_keys)
        bundle = match(start_ms=start)
        end = bundle["events"][-1]["ts"]
        if end > now:
            # the same choices, shifted back (a seeded run only gets here past ~10^4 matches)
            bot_random.setstate(choices)
            bundle = match(start_ms=start - (end - now))
            end = bundle["events"][-1]["ts"]
        if source.seeded:
            start = end + GAP_MS
        yield bundle
