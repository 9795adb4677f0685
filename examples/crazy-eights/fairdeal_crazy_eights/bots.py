"""Simulation bots for Crazy Eights. Not part of the protocol.

A bot only ever draws from the ``random.Random`` it is handed, never from the match stream.

>>> import random
>>> from fairdeal.games import SimpleRng
>>> from fairdeal_crazy_eights.rules import legal_actions, setup
>>> state = setup(True, SimpleRng(random.Random(7)))
>>> BOTS["greedy"].choose(state, random.Random(7)) in legal_actions(state)
True
"""

from __future__ import annotations

import random
from collections import Counter

from fairdeal.games import Bot
from fairdeal.games.base import RandomBot

from . import rules
from .cards import EIGHT, POINTS, rank_of, suit_of
from .state import Action, CrazyEightsState

__all__ = ["BOTS", "GreedyBot"]


class GreedyBot:
    """Sheds the costliest card it can play, keeps its eights for when nothing else goes, names
    the suit it holds most of, and draws only when it cannot play (ties at random)."""

    name = "greedy"

    def choose(self, state: CrazyEightsState, rng: random.Random) -> Action:
        """The best legal action by that rule of thumb."""
        legal = rules.legal_actions(state)
        plays = [action for action in legal if action.kind == "play"]
        if not plays:
            return legal[-1]  # draw if it may, else pass
        plain = [action for action in plays if rank_of(action.card or "") != EIGHT]
        if plain:
            best = max(POINTS[action.card or ""] for action in plain)
            return rng.choice([action for action in plain if POINTS[action.card or ""] == best])
        hand = state.hands[state.turn]
        held = Counter(suit_of(card) for card in hand if rank_of(card) != EIGHT)
        most = max((held[action.suit or ""] for action in plays), default=0)
        return rng.choice([action for action in plays if held[action.suit or ""] == most])


BOTS: dict[str, Bot] = {"random": RandomBot(rules.legal_actions), "greedy": GreedyBot()}
