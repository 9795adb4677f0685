"""Per game: the dealt order read off the first state, and how strong each opening hand is.

What is dealt and how a hand's strength is measured belong to each game (its plug-in's
``read_deal`` and ``hand_values``, games/plugin.py; docs/audit.md lists the built-in games'
measures). A fair deal draws a hand's ``k`` values from the game's population (with or without
replacement), so the total's mean and variance are known exactly; a game that deals nothing
is compared by who moves first only.

Each total is standardised, ``z = (total - k·mean) / sqrt(k·variance·fpc)`` with the finite
population correction ``fpc = (N - k) / (N - 1)`` when drawn without replacement, so a fair
deal gives every seat and every player z-scores of mean 0 and variance 1 in any game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from fairdeal.games import get_plugin

if TYPE_CHECKING:
    from .matchfacts import MatchFacts

__all__ = ["describe_deal", "standardise"]


@cache
def _population(kind: str) -> tuple[float, float, int]:
    """Mean, variance and size of the values a hand of game ``kind`` is drawn from."""
    values = [float(value) for value in get_plugin(kind).hand_values()]
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    return mean, variance, len(values)


def standardise(total: float, k: int, kind: str, replacement: bool) -> float:
    """The z-score of a hand total of ``k`` values drawn fairly from game ``kind``'s
    population (see the module doc)."""
    mean, variance, size = _population(kind)
    fpc = 1.0 if replacement else (size - k) / (size - 1)
    return (total - k * mean) / math.sqrt(k * variance * fpc)


def describe_deal(facts: MatchFacts, state: Any) -> None:
    """Fill in ``facts``'s orders, draws and hand strengths from the match's first state."""
    deal = get_plugin(facts.game).read_deal(state)
    facts.orders.update(deal.orders)
    facts.draws.extend(deal.draws)
    if deal.hand_totals is not None and deal.hand_sizes is not None:
        _hands(facts, deal.hand_totals, deal.hand_sizes, facts.game, deal.replacement)


def _hands(facts: MatchFacts, totals: Sequence[int], sizes: Sequence[int], kind: str,
           replacement: bool) -> None:
    facts.hand_raw = tuple(totals)
    facts.hand_z = tuple(standardise(total, k, kind, replacement)
                         for total, k in zip(totals, sizes, strict=True))
