"""Simulation bots for the Wyrdstone duel. Not part of the protocol.

A bot only ever draws from the ``random.Random`` it is handed, never from the match stream:
the greedy bot's look-ahead simulates actions with a SimpleRng over that same source.

>>> import random
>>> from fairdeal.games.wyrdstone import GAME
>>> from fairdeal.games.base import SimpleRng
>>> state = GAME.setup({}, SimpleRng(random.Random(7)))
>>> BOTS["greedy"].choose(state, random.Random(7)) in GAME.legal_actions(state)
True
"""

from __future__ import annotations

import random

from ..base import Bot, RandomBot, SimpleRng
from . import rules
from .book import SCROLL_BY_ID
from .state import SLOTS, Action, WyrdState

__all__ = ["BOTS", "GreedyBot", "RandomBot", "score"]

_WON = 1_000_000.0
#: a rune is only worth its single use when it gains at least this much score
_RUNE_MARGIN = 4.0
#: slots the greedy bot tries per scroll (the rest of a scroll's slots are not simulated)
_SLOTS_TRIED = 2


def _side(state: WyrdState, seat: int) -> float:
    board = 0.0
    for creature in state.board[seat * SLOTS : seat * SLOTS + SLOTS]:
        if creature is not None:
            board += 2.0 * creature.strength + 0.5 * creature.health
            board -= 1.5 * creature.poison * creature.poison_turns + 2.0 * creature.stun
    energy = sum(state.energy[5 * seat : 5 * seat + 5])
    return 3.0 * state.health[seat] + board + 0.2 * energy


def score(state: WyrdState, seat: int) -> float:
    """The heuristic value of ``state`` for ``seat`` (higher is better; a win dwarfs all)."""
    result = state.result
    if result is not None:
        if result.winner is None:
            return 0.0
        return _WON if result.winner == seat else -_WON
    return _side(state, seat) - _side(state, 1 - seat)


def _candidates(actions: list[Action], rng: random.Random) -> list[Action]:
    """A few slots per scroll, at random, so a look-ahead stays cheap."""
    by_scroll: dict[str | None, list[Action]] = {}
    for action in actions:
        if action.kind == "cast":
            by_scroll.setdefault(action.scroll, []).append(action)
    picked = [action for action in actions if action.kind != "cast"]
    for options in by_scroll.values():
        if len(options) > _SLOTS_TRIED:
            options = rng.sample(options, _SLOTS_TRIED)
        picked += options
    return picked


class GreedyBot:
    """Casts the scroll (or skips) whose one-turn simulation scores best for its seat, ties at
    random; uses a rune first when the rune alone gains enough."""

    name = "greedy"

    def choose(self, state: WyrdState, rng: random.Random) -> Action:
        """The best-scoring legal action after a one-step simulation."""
        seat = state.seat
        simulate = SimpleRng(rng)
        candidates = _candidates(rules.legal_actions(state), rng)
        runes = [action for action in candidates if action.kind == "rune"]
        if runes:
            now = score(state, seat)
            gains = [(score(rules.apply(state, rune, simulate), seat) - now, rune)
                     for rune in runes]
            gain, rune = max(gains, key=lambda pair: pair[0])
            if gain >= _RUNE_MARGIN:
                return rune
        best: list[Action] = []
        best_score = float("-inf")
        for action in candidates:
            if action.kind == "rune":
                continue
            value = score(rules.apply(state, action, simulate), seat)
            if action.kind == "cast" and SCROLL_BY_ID[action.scroll or ""].kind == "creature":
                value += 1.0  # a creature keeps working after this turn
            if value > best_score:
                best, best_score = [action], value
            elif value == best_score:
                best.append(action)
        return rng.choice(best)


BOTS: dict[str, Bot] = {"random": RandomBot(rules.legal_actions), "greedy": GreedyBot()}
