"""Bot matches recorded exactly as live ones are: commitment, client seeds, chained moves,
server-written timeouts, reveal and signature. Seats commit to their seeds, then reveal them
(fairdeal/2); a signing seat signs its seed events and its moves. With a seed, everything —
server seeds, match ids, bot choices, bot thinking times, the clock and the signing keys —
derives from it, so the output is byte-for-byte reproducible.
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

from fairdeal.games import get_bots, get_game
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
    """Play one match between the settings' bots and return its sealed bundle."""
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
    recorder = MatchRecorder(genesis, server_seed)
    clock = start_ms
    seats = range(len(players))
    signers: list[SigningKey | None] = list(seat_keys) if seat_keys is not None else [
        None] * len(players)
    if seat_keys is not None:
        for seat in seats:
            clock += bot_random.randint(50, 900)
            recorder.append("seat_key", clock, seat=seat, public_key=seat_keys[seat].public_text)
    # every seat commits (or declines) first; the seeds are revealed once all are fixed
    seeds: dict[int, str] = {}
    for seat in seats:
        clock += bot_random.randint(100, 3_000)
        if bot_random.random() < settings.decline_chance:
            recorder.append("client_seed", clock, signer=signers[seat], seat=seat,
                            client_seed=None)
            continue
        seeds[seat] = bot_random.randbytes(32).hex()
        recorder.append("seed_commit", clock, signer=signers[seat], seat=seat,
                        commitment=client_commitment(match_id, seat, seeds[seat]))
    for seat, seed in seeds.items():
        clock += bot_random.randint(100, 1_500)
        recorder.append("seed_reveal", clock, signer=signers[seat], seat=seat, client_seed=seed)

    game = recorder.game
    lagging = [False] * len(players)
    while recorder.replayer.outcome is None:
        if recorder.replayer.plies > MAX_PLIES:
            raise RuntimeError(f"match {match_id} did not end in {MAX_PLIES} plays")
        state = recorder.state
        seat = game.current_seat(state)
        assert seat is not None
        chance = settings.timeout_streak if lagging[seat] else settings.timeout_chance
        # the rules' deadline: per action, or for the whole turn (a rune then a scroll)
        deadline = recorder.replayer.deadline_ms()
        if deadline is not None and bot_random.random() < chance:
            lagging[seat] = True
            clock = deadline + bot_random.randint(0, 2_000)
            recorder.append("timeout", clock, seat=seat)
            continue
        lagging[seat] = False
        action = players[seat].choose(state, bot_random)
        think = bot_random.randint(300, 12_000)
        clock = clock + think if deadline is None else min(clock + think, deadline)
        signer = signers[seat]
        fields: dict[str, Any] = {"seat": seat, "action": game.action_to_json(action)}
        if signer is not None:  # the player's own clock, a little behind the server's
            fields["client_ts"] = clock - bot_random.randint(0, 250)
        recorder.append("move", clock, signer=signer, **fields)
    clock += bot_random.randint(10, 500)
    recorder.reveal(clock)
    return recorder.seal(server_key)


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
