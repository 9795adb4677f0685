"""The simulation bots: legal, confined to their own random source, quick, and the greedy one
beats the random one."""

from __future__ import annotations

import random
import time

import pytest

from fairdeal.games.base import SimpleRng
from fairdeal.games.wyrdstone import GAME
from fairdeal.games.wyrdstone.bots import BOTS
from fairdeal.verifier.rng import RandomStream


def _match(bots: tuple[str, str], seed: int) -> tuple[int | None, int]:
    source = random.Random(seed)
    state = GAME.setup({}, SimpleRng(source))
    while GAME.result(state) is None:
        action = BOTS[bots[state.seat]].choose(state, source)
        assert action in GAME.legal_actions(state)
        state = GAME.apply(state, action, SimpleRng(source))
    result = GAME.result(state)
    assert result is not None and state.turn <= 70
    return result.winner, state.turn


def test_the_bots_are_random_and_greedy() -> None:
    assert set(BOTS) == {"random", "greedy"}
    assert all(bot.name == name for name, bot in BOTS.items())


@pytest.mark.parametrize("name", sorted(BOTS))
def test_a_bot_never_touches_the_match_stream(name: str) -> None:
    state = GAME.setup({}, RandomStream(bytes(32), "setup"))
    first = BOTS[name].choose(state, random.Random(5))
    assert BOTS[name].choose(state, random.Random(5)) == first  # its own source decides


def test_greedy_beats_random() -> None:
    greedy_wins = 0
    for seed in range(20):
        greedy = seed % 2  # the greedy bot takes each seat in turn
        seats = ("random", "greedy") if greedy else ("greedy", "random")
        greedy_wins += _match(seats, seed)[0] == greedy
    assert greedy_wins >= 15


def test_two_hundred_random_matches_take_well_under_a_second_each() -> None:
    start = time.perf_counter()
    for seed in range(200):
        _match(("random", "random"), seed)
    assert time.perf_counter() - start < 12.0  # 1,000 in well under a minute
