"""What every game's tests share: replaying a golden game-level fixture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games import Game
from fairdeal.verifier.rng import RandomStream


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
