"""The simulation bots: legal, deterministic for a given random.Random, and the greedy one is
better than chance."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games.arcomage import GAME, Action
from fairdeal.games.arcomage.bots import BOTS
from fairdeal.verifier.rng import RandomStream

Make = Callable[..., Any]


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_bots_choose_legal_actions_deterministically(name: str) -> None:
    bot = BOTS[name]
    assert bot.name == name
    key = bytes(range(32))
    state = GAME.setup({"deck": "infinite"}, RandomStream(key, "setup"))
    for ply in range(60):
        if GAME.result(state) is not None:
            break
        action = bot.choose(state, random.Random(ply))
        assert action in GAME.legal_actions(state)
        assert bot.choose(state, random.Random(ply)) == action
        state = GAME.apply(state, action, RandomStream(key, f"ply/{ply}"))


def test_greedy_takes_a_winning_card(make_state: Make) -> None:
    state = make_state(a={"tower": 185}, hand_a=(68, 8, 10, 12, 38, 43))  # Dragon's Eye: +20
    assert BOTS["greedy"].choose(state, random.Random(0)) == Action("play", 68)


def test_greedy_discards_when_a_discard_is_pending(make_state: Make) -> None:
    pending = GAME.apply(
        make_state(hand_a=(40, 8, 10, 12, 38, 43)), Action("play", 40), RandomStream(bytes(32), "t")
    )
    assert BOTS["greedy"].choose(pending, random.Random(0)).kind == "discard"


def test_greedy_beats_random() -> None:
    wins = 0
    for match in range(20):
        key = bytes([match]) * 32
        greedy_seat = match % 2
        state = GAME.setup({"deck": "normal"}, RandomStream(key, "setup"))
        choices = random.Random(match)
        ply = 0
        while GAME.result(state) is None:
            bot = BOTS["greedy" if state.turn == greedy_seat else "random"]
            state = GAME.apply(state, bot.choose(state, choices), RandomStream(key, f"ply/{ply}"))
            ply += 1
        wins += GAME.result(state).winner == greedy_seat
    assert wins >= 16
