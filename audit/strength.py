"""Per game: the dealt order read off the first state, and how strong each opening hand is.

The measures (docs/audit.md):

- two-tower duel: the total cost of the six cards dealt to a seat. A fair deal draws them from
  the 102 cards (without replacement from the normal deck, with replacement from the infinite
  one), so the total's mean and variance are known exactly;
- Toy Battle: the total strength of the troops in a seat's opening rack (Kwak, who has no
  strength, counts 0), drawn without replacement from that colour's 24 troops;
- Wyrdstone deals nothing: its seats are compared by who moves first only.

Each total is standardised, ``z = (total - k·mean) / sqrt(k·variance·fpc)`` with the finite
population correction ``fpc = (N - k) / (N - 1)`` when drawn without replacement, so a fair
deal gives every seat and every player z-scores of mean 0 and variance 1 in any game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from fairdeal.games.arcomage.cards import CARDS
from fairdeal.games.toybattle.troops import full_army, strength

if TYPE_CHECKING:
    from .matchfacts import MatchFacts

__all__ = ["describe_deal", "standardise"]

_CARD_COST = {card.id: card.cost for card in CARDS}


@cache
def _population(kind: str) -> tuple[float, float, int]:
    """Mean, variance and size of the values a hand is drawn from."""
    if kind == "arcomage":
        values = [float(card.cost) for card in CARDS]
    else:
        values = [float(strength(troop) or 0) for troop in full_army()]
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    return mean, variance, len(values)


def standardise(total: float, k: int, kind: str, replacement: bool) -> float:
    """The z-score of a hand total of ``k`` values drawn fairly (see the module doc)."""
    mean, variance, size = _population(kind)
    fpc = 1.0 if replacement else (size - k) / (size - 1)
    return (total - k * mean) / math.sqrt(k * variance * fpc)


def describe_deal(facts: MatchFacts, state: Any) -> None:
    """Fill in ``facts``'s orders and hand strengths from the match's first state."""
    if facts.game == "arcomage":
        _arcomage(facts, state)
    elif facts.game == "toybattle":
        _toybattle(facts, state)


def _hands(facts: MatchFacts, totals: Sequence[int], sizes: Sequence[int], kind: str,
           replacement: bool) -> None:
    facts.hand_raw = tuple(totals)
    facts.hand_z = tuple(standardise(total, k, kind, replacement)
                         for total, k in zip(totals, sizes, strict=True))


def _arcomage(facts: MatchFacts, state: Any) -> None:
    hands = state.hands
    if state.infinite:
        facts.draws.extend(hands[0] + hands[1])
    else:  # A took the first six of the shuffled deck, B the next six, the rest is the pile
        facts.orders["deck"] = [*hands[0], *hands[1], *state.draw_pile]
    totals = [sum(_CARD_COST[card] for card in hand) for hand in hands]
    _hands(facts, totals, [len(hand) for hand in hands], "arcomage", state.infinite)


def _toybattle(facts: MatchFacts, state: Any) -> None:
    # each colour's shuffled army: the set-aside troops, then the opening rack, then the reserve
    for seat, colour in enumerate(("blue", "red")):
        facts.orders[colour] = [*state.set_aside[seat], *state.racks[seat],
                                *state.reserves[seat]]
    totals = [sum(strength(troop) or 0 for troop in rack) for rack in state.racks]
    _hands(facts, totals, [len(rack) for rack in state.racks], "toybattle", False)
