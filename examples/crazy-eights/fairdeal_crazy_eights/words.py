"""The words a board says about a match, shared by the drawing and the text: whose turn, how
it ended, what happened last. Pure."""

from __future__ import annotations

from .cards import card_name
from .state import SEAT_NAMES, CrazyEightsState

__all__ = ["last_words", "status_words"]


def status_words(state: CrazyEightsState) -> str:
    """``"A to play"``, ``"A drew a card: play it or pass"``, or how the match ended."""
    result = state.result
    if result is not None:
        who = "draw" if result.winner is None else f"{SEAT_NAMES[result.winner]} wins"
        return f"{who} ({result.reason}{': ' + result.detail if result.detail else ''})"
    seat = SEAT_NAMES[state.turn]
    if state.drawn is not None:
        return f"{seat} drew a card: play it or pass"
    return f"{seat} to play"


def last_words(state: CrazyEightsState) -> str:
    """What the last move was, in words; a drawn card is never named."""
    if state.last is None:
        return "the starter is turned up"
    seat, kind, card, suit = state.last
    who = SEAT_NAMES[seat]
    if kind == "play" and card is not None:
        named = f" and named {suit}" if suit is not None else ""
        return f"{who} played {card_name(card)}{named}"
    return {"draw": f"{who} drew a card", "pass": f"{who} passed",
            "timeout": f"{who} timed out", "resign": f"{who} resigned"}.get(kind, kind)
