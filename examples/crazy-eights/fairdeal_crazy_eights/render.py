"""A Crazy Eights state drawn as a standalone SVG string. Pure: no I/O, no Flask.

B's hand along the top, A's along the bottom, the stock and the discard pile's top card in the
middle with the suit to follow, whose turn (or the result) and the last move. A hand is drawn
face up only for the perspective allowed to see it: ``seat=None`` shows both (after the
reveal) unless ``spectator`` is set; ``seat=0`` or ``1`` shows that seat's own hand. A hidden
hand is a row of card backs: its size is public, its cards are not.

>>> import random
>>> from fairdeal.games import SimpleRng
>>> from fairdeal_crazy_eights.rules import setup
>>> render_svg(setup(True, SimpleRng(random.Random(1)))).startswith("<svg")
True
"""

from __future__ import annotations

from html import escape

from fairdeal.games.svgtext import SCALABLE, text_block, title

from .cards import SYMBOLS, card_label, card_name, suit_of
from .state import SEAT_NAMES, CrazyEightsState
from .words import last_words, status_words

__all__ = ["render_svg"]

_WIDTH, _HEIGHT = 640, 420
_CARD_W, _CARD_H = 44, 62
#: a hand's row: where its first card starts, and the right margin it keeps
_HAND_X, _MARGIN = 110, 12
_HAND_Y = {1: 60, 0: 320}
_RED = ("diamonds", "hearts")


def _text(x: float, y: float, content: str, size: int = 13, anchor: str = "start",
          weight: str = "normal", fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(content)}</text>')


def _face(card: str, x: float, y: float, highlight: bool = False) -> str:
    """One card face up: its rank and suit in the corner, red or black."""
    colour = "#b0282e" if suit_of(card) in _RED else "#1d1d1d"
    stroke = "#d4a017" if highlight else "#555"
    return (f'<g class="card">{title(card_name(card))}'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{_CARD_W}" height="{_CARD_H}" rx="4" '
            f'fill="#fff" stroke="{stroke}" stroke-width="{3 if highlight else 1}"/>'
            + _text(x + 4, y + 17, card_label(card), 14, weight="bold", fill=colour) + "</g>")


def _back(x: float, y: float) -> str:
    """One card face down."""
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{_CARD_W}" height="{_CARD_H}" rx="4" '
            f'fill="#2e5fb0" stroke="#1b3a6e"/>')


def _hand(state: CrazyEightsState, side: int, shown: bool) -> list[str]:
    """One seat's hand in a row, overlapped to stay inside the frame however large it grows."""
    hand, y = state.hands[side], _HAND_Y[side]
    parts = [_text(16, y + 20, f"{SEAT_NAMES[side]}'s hand", 13, weight="bold"),
             _text(16, y + 38, f"{len(hand)} cards", 12)]
    room = _WIDTH - _MARGIN - _HAND_X - _CARD_W
    step = min(_CARD_W + 4, room / max(len(hand) - 1, 1))
    for index, card in enumerate(hand):
        x = _HAND_X + step * index
        drawn = shown and card == state.drawn and side == state.turn
        parts.append(_face(card, x, y, drawn) if shown else _back(x, y))
    return parts


def _middle(state: CrazyEightsState) -> list[str]:
    """The stock, the discard pile's top, the suit to follow and the last move."""
    top = state.discard[-1]
    parts = [_back(200, 170) if state.stock else
             f'<rect x="200" y="170" width="{_CARD_W}" height="{_CARD_H}" rx="4" fill="none" '
             f'stroke="#999" stroke-dasharray="4 3"/>',
             _text(222, 250, f"stock {len(state.stock)}", 12, "middle"),
             _face(top, 290, 170),
             _text(312, 250, f"discard {len(state.discard)}", 12, "middle"),
             _text(360, 190, f"suit to follow: {state.suit} {SYMBOLS[state.suit]}", 14,
                   weight="bold"),
             text_block(f"last: {last_words(state)}", 360, 200, _WIDTH - 360 - _MARGIN, 40,
                        sizes=(12, 11, 10, 9))]
    if state.buried:
        parts.append(_text(360, 262, "buried: " + " ".join(card_label(c) for c in state.buried),
                           11))
    return parts


def render_svg(state: CrazyEightsState, seat: int | None = None, *,
               spectator: bool = False) -> str:
    """The state as SVG text; ``seat`` is whose eyes (None: both hands are shown, unless
    ``spectator`` is set: then no hand is shown, as a spectator sees a match in play)."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" {SCALABLE}>',
        "<title>Crazy Eights</title>",
        f'<rect x="0" y="0" width="{_WIDTH}" height="{_HEIGHT}" fill="#2f6b3f"/>',
        f'<rect x="8" y="44" width="{_WIDTH - 16}" height="{_HEIGHT - 52}" rx="10" '
        f'fill="#e8efe6"/>',
        text_block(f"Crazy Eights — {status_words(state)}", _WIDTH / 2, 6, _WIDTH - 24, 34,
                   sizes=(15, 13, 11, 10), fill="#fff", anchor="middle", weight="bold"),
    ]
    for side in (1, 0):
        parts.extend(_hand(state, side, not spectator and (seat is None or seat == side)))
    parts.extend(_middle(state))
    parts.append("</svg>")
    return "\n".join(parts)
