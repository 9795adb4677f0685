"""What every game's tests share: replaying a golden game-level fixture, and the states of a
random bot game."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games import Game, SimpleRng, get_bots, get_game
from fairdeal.verifier.rng import RandomStream


def random_play_states(name: str, count: int, seed: str) -> list[Any]:
    """Up to ``count`` states of a game of ``name`` between random bots (``seed`` picks their
    moves), from its default set-up: the deal first."""
    game = get_game(name)
    bots = get_bots(name)
    source = random.Random(seed)
    state = game.setup(game.default_params(), RandomStream(bytes(32), "setup"))
    states = [state]
    while game.result(state) is None and len(states) < count:
        state = game.apply(state, bots["random"].choose(state, source), SimpleRng(source))
        states.append(state)
    return states


def replay_golden(game: Game, fixture: dict[str, Any]) -> Any:
    """The state after a golden fixture's events, drawn as the protocol draws: setup from
    ``RandomStream(key, "setup")``, the n-th event (0-based) from ``RandomStream(key, "ply/n")``.
    Each event but a resignation must be by the seat to act."""
    key = bytes.fromhex(fixture["key"])
    state = game.setup(fixture["params"], RandomStream(key, "setup"))
    for ply, event in enumerate(fixture["events"]):
        assert game.current_seat(state) == event["seat"] or event["type"] == "resign"
        rng = RandomStream(key, f"ply/{ply}")
        if event["type"] == "move":
            state = game.apply(state, game.parse_action(event["action"]), rng)
        elif event["type"] == "timeout":
            state = game.timeout(state, rng)
        else:
            state = game.resign(state, event["seat"])
    return state


@pytest.fixture
def golden_replay() -> Callable[[Game, dict[str, Any]], Any]:
    return replay_golden
