"""A two-tower duel state as plain text for a terminal: towers, walls and resources, whose turn,
the last card, and the hands the perspective may see. Pure, like render.py.

>>> import random
>>> from fairdeal.games.arcomage.rules import setup
>>> from fairdeal.games.arcomage.cards import BATTLEFIELDS
>>> from fairdeal.games.base import SimpleRng
>>> print(render_text(setup(BATTLEFIELDS[0], False, SimpleRng(random.Random(1)))).splitlines()[0])
Archmage Citadel: victory at tower 50 or 150 of a resource
"""

from __future__ import annotations

from .cards import CARD_BY_ID
from .state import DISCARD, SEAT_NAMES, ArcomageState

__all__ = ["render_text"]

_LAST_WORDS = {"play": "played", "discard": "discarded", "timeout": "timed out, discarding",
               "resign": "resigned"}


def _card(card_id: int) -> str:
    card = CARD_BY_ID[card_id]
    return f"{card.name} ({card.cost} {card.resource}: {card.effect})"


def render_text(state: ArcomageState, seat: int | None = None) -> str:
    """The state in lines of text; ``seat`` is whose eyes (None: both hands are shown)."""
    field = state.battlefield
    lines = [f"{field.name}: victory at tower {field.victory_tower} or "
             f"{field.victory_resource} of a resource"]
    for side in (0, 1):
        p = state.player(side)
        lines.append(f"  seat {SEAT_NAMES[side]}: tower {p['tower']}, wall {p['wall']} | "
                     f"mines {p['mines']} ore {p['ore']} | monasteries {p['monasteries']} "
                     f"mana {p['mana']} | barracks {p['barracks']} troops {p['troops']}"
                     + (f" | timeouts in a row {state.timeouts[side]}"
                        if state.timeouts[side] else ""))
    if state.result is not None:
        winner = state.result.winner
        lines.append(("  draw" if winner is None else f"  seat {SEAT_NAMES[winner]} wins")
                     + f" ({state.result.reason})")
    else:
        must = "must discard a card" if state.phase == DISCARD else "to act"
        lines.append(f"  seat {SEAT_NAMES[state.turn]} {must}")
    if state.last is not None:
        who, kind, card_id = state.last
        what = f" {_card(card_id)}" if card_id is not None else ""
        lines.append(f"  last: seat {SEAT_NAMES[who]} {_LAST_WORDS.get(kind, kind)}{what}")
    for side in (0, 1):
        hand = state.hands[side]
        if seat is None or seat == side:
            lines.append(f"  seat {SEAT_NAMES[side]}'s hand:")
            lines.extend(f"    {_card(card_id)}" for card_id in hand)
        else:
            lines.append(f"  seat {SEAT_NAMES[side]}'s hand: {len(hand)} cards (hidden)")
    return "\n".join(lines)
