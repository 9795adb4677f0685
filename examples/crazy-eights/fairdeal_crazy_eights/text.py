"""A Crazy Eights state as plain text for a terminal (what ``fairdeal replay`` prints): the
discard pile's top and the suit to follow, whose turn, the last move, and the hands the
perspective may see. Pure, like render.py.

>>> import random
>>> from fairdeal.games import SimpleRng
>>> from fairdeal_crazy_eights.rules import setup
>>> render_text(setup(True, SimpleRng(random.Random(1)))).splitlines()[0].startswith("Crazy Eights")
True
"""

from __future__ import annotations

from .cards import card_label, card_name
from .state import SEAT_NAMES, CrazyEightsState
from .words import last_words, status_words

__all__ = ["render_text"]


def render_text(state: CrazyEightsState, seat: int | None = None) -> str:
    """The state in lines of text; ``seat`` is whose eyes (None: both hands are shown)."""
    top = state.discard[-1]
    lines = [f"Crazy Eights: {card_name(top)} on the discard pile ({len(state.discard)} cards), "
             f"suit to follow {state.suit}, {len(state.stock)} cards in the stock",
             f"  {status_words(state)}", f"  last: {last_words(state)}"]
    if state.buried:
        lines.append("  buried under the stock: " + " ".join(card_label(c) for c in state.buried))
    for side in (0, 1):
        hand = state.hands[side]
        if seat is None or seat == side:
            lines.append(f"  seat {SEAT_NAMES[side]}'s hand: "
                         + " ".join(card_label(card) for card in hand))
        else:
            lines.append(f"  seat {SEAT_NAMES[side]}'s hand: {len(hand)} cards (hidden)")
    return "\n".join(lines)
