"""Simulation bots for the two-tower duel. Not part of the protocol.

A bot only ever draws from the ``random.Random`` it is handed, never from the match stream:
the greedy bot's look-ahead simulates each action with a SimpleRng over that same source.

>>> import random
>>> from fairdeal.games.arcomage import GAME
>>> from fairdeal.games.base import SimpleRng
>>> state = GAME.setup({}, SimpleRng(random.Random(7)))
>>> BOTS["greedy"].choose(state, random.Random(7)) in GAME.legal_actions(state)
True
"""

from __future__ import annotations

import random

from ..base import Bot, RandomBot, SimpleRng
from . import rules
from .effects import BARRACKS, MANA, MINES, MONASTERIES, ORE, TOWER, TROOPS, WALL
from .state import DISCARD, Action, ArcomageState

__all__ = ["BOTS", "GreedyBot", "RandomBot", "score"]

_WON = 1_000_000.0


def _side(stats: tuple[int, ...], base: int, victory_tower: int, victory_resource: int) -> float:
    """How well one side stands: progress to both victories, defence and economy."""
    tower, wall = stats[base + TOWER], stats[base + WALL]
    producers = stats[base + MINES] + stats[base + MONASTERIES] + stats[base + BARRACKS]
    resources = stats[base + ORE] + stats[base + MANA] + stats[base + TROOPS]
    richest = max(stats[base + ORE], stats[base + MANA], stats[base + TROOPS])
    return (
        4.0 * tower
        + 60.0 * tower / victory_tower
        + 1.5 * min(wall, 40)
        + 0.3 * max(wall - 40, 0)
        + 9.0 * producers
        + 0.4 * resources
        + 40.0 * richest / victory_resource
        - (25.0 if tower < 10 else 0.0)
    )


def score(state: ArcomageState, seat: int) -> float:
    """The heuristic value of ``state`` for ``seat`` (higher is better; a win dwarfs all)."""
    result = state.result
    if result is not None:
        if result.winner is None:
            return 0.0
        return _WON if result.winner == seat else -_WON
    field = state.battlefield
    vt, vr = field.victory_tower, field.victory_resource
    me, enemy = 8 * seat, 8 - 8 * seat
    return _side(state.stats, me, vt, vr) - _side(state.stats, enemy, vt, vr)


class GreedyBot:
    """Plays the action whose simulated outcome scores best for its seat (ties at random)."""

    name = "greedy"

    def choose(self, state: ArcomageState, rng: random.Random) -> Action:
        """The best-scoring legal action after a one-step simulation."""
        seat = state.turn
        simulate = SimpleRng(rng)
        best: list[Action] = []
        best_score = float("-inf")
        for action in rules.legal_actions(state):
            value = score(rules.apply(state, action, simulate), seat)
            if action.kind == "discard" and state.phase != DISCARD:
                # discarding keeps the card's value out of play: a small penalty, so a bot
                # only discards when nothing it can play helps
                value -= 0.5
            if value > best_score:
                best, best_score = [action], value
            elif value == best_score:
                best.append(action)
        return rng.choice(best)


BOTS: dict[str, Bot] = {"random": RandomBot(rules.legal_actions), "greedy": GreedyBot()}
