"""A two-tower duel state drawn as a standalone SVG string. Pure: no I/O, no Flask.

Both towers and walls are drawn to one scale, with the victory height marked; under each
seat its producers and resources; in the middle whose turn it is (or the result) and the card
just played. Hands are drawn only for the seats allowed to see them: ``seat=None`` shows
everything (after the reveal), ``seat=0`` or ``1`` shows that seat's hand and the other's size.

>>> from fairdeal.games.arcomage.rules import setup
>>> from fairdeal.games.arcomage.cards import BATTLEFIELDS
>>> from fairdeal.games.base import SimpleRng
>>> import random
>>> render_svg(setup(BATTLEFIELDS[0], False, SimpleRng(random.Random(1)))).startswith("<svg")
True
"""

from __future__ import annotations

from html import escape

from ..svgtext import SCALABLE, text_block, title
from .cards import CARD_BY_ID, Card
from .state import DISCARD, SEAT_NAMES, ArcomageState

__all__ = ["card_text", "render_svg"]

_WIDTH, _HEIGHT = 820, 700
#: a hand's row: where the first card starts, the widest a card is, the gap between cards
_HAND_X, _CARD_W, _CARD_GAP = 110, 112, 5
_CARD_H = 96
_GROUND = 330  # y of the ground line
_SKY = 70  # y the highest thing on the scale reaches
_COLOURS = {"red": "#b03a2e", "blue": "#2e5fb0", "green": "#2e7d4f"}
_PRODUCERS = (("mines", "ore"), ("monasteries", "mana"), ("barracks", "troops"))
_LAST_WORDS = {
    "play": "plays",
    "discard": "discards",
    "timeout": "timed out, discarding",
    "resign": "resigned",
}


def _text(
    x: float,
    y: float,
    content: str,
    size: int = 14,
    anchor: str = "start",
    weight: str = "normal",
    fill: str = "#222",
) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}">{escape(content)}</text>'
    )


def _rect(x: float, y: float, w: float, h: float, fill: str, extra: str = "") -> str:
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}"{extra}/>'


def _castle(state: ArcomageState, seat: int, scale: float) -> list[str]:
    """One seat's tower and wall, to scale; the wall stands on the side facing the enemy."""
    player = state.player(seat)
    tower_x = 70 if seat == 0 else _WIDTH - 70 - 60
    wall_x = tower_x + 90 if seat == 0 else tower_x - 90 + 60 - 20
    tower_h, wall_h = player["tower"] * scale, player["wall"] * scale
    colour = "#8a6d4b" if seat == 0 else "#6b6f80"
    parts = [
        _rect(tower_x, _GROUND - tower_h, 60, tower_h, colour, ' stroke="#333"'),
        (
            f'<polygon points="{tower_x - 6},{_GROUND - tower_h:.1f} {tower_x + 30},'
            f'{_GROUND - tower_h - 30:.1f} {tower_x + 66},{_GROUND - tower_h:.1f}" fill="#7b2d26"/>'
        ),
        _rect(wall_x, _GROUND - wall_h, 20, wall_h, "#9e9e9e", ' stroke="#333"'),
        _text(tower_x + 30, _GROUND + 18, f"tower {player['tower']}", 13, "middle"),
        _text(wall_x + 10, _GROUND + 34, f"wall {player['wall']}", 13, "middle"),
    ]
    victory_y = _GROUND - state.battlefield.victory_tower * scale
    parts.append(
        f'<line x1="{tower_x - 10}" x2="{tower_x + 70}" y1="{victory_y:.1f}" '
        f'y2="{victory_y:.1f}" stroke="#c9a227" stroke-dasharray="4 3"/>'
    )
    return parts


def _economy(state: ArcomageState, seat: int) -> list[str]:
    player = state.player(seat)
    x = 30 if seat == 0 else _WIDTH - 250
    parts = [_text(x, _GROUND + 62, f"Seat {SEAT_NAMES[seat]}", 16, weight="bold")]
    for row, (producer, resource) in enumerate(_PRODUCERS):
        parts.append(
            _text(
                x,
                _GROUND + 84 + 18 * row,
                f"{producer} {player[producer]}  ·  {resource} {player[resource]}",
                13,
            )
        )
    if state.timeouts[seat]:
        parts.append(
            _text(x, _GROUND + 138, f"timeouts in a row: {state.timeouts[seat]}", 12, fill="#a33")
        )
    return parts


def card_text(card: Card) -> str:
    """A card's full text, as its ``<title>`` (what hovering shows)."""
    return f"{card.name} ({card.colour}, {card.cost} {card.resource}): {card.effect}"


def _card_box(card: Card, x: float, y: float, w: float, h: float) -> list[str]:
    """One card: its name, colour and cost, and its whole effect wrapped to fit the box."""
    colour = _COLOURS[card.colour]
    return [
        f'<g class="card">{title(card_text(card))}',
        _rect(x, y, w, h, "#fbf8f1", f' stroke="{colour}" stroke-width="2" rx="6"'),
        text_block(card.name, x + 6, y + 3, w - 12, 16, sizes=(12, 11, 10, 9), fill=colour,
                   weight="bold"),
        _text(x + 6, y + 30, f"{card.colour}, {card.cost} {card.resource}", 10, fill=colour),
        text_block(card.effect, x + 6, y + 34, w - 12, h - 38, sizes=(10, 9, 8, 7, 6)),
        "</g>",
    ]


def _middle(state: ArcomageState) -> list[str]:
    centre = _WIDTH / 2
    result = state.result
    if result is not None:
        headline = (
            "Draw" if result.winner is None else f"{SEAT_NAMES[result.winner]} wins"
        ) + f" ({result.reason})"
    elif state.phase == DISCARD:
        headline = f"{SEAT_NAMES[state.turn]} must discard a card"
    else:
        headline = f"{SEAT_NAMES[state.turn]} to act"
    parts = [_text(centre, 62, headline, 16, "middle", "bold")]
    last = state.last
    if last is not None:
        seat, kind, card_id = last
        words = f"{SEAT_NAMES[seat]} {_LAST_WORDS.get(kind, kind)}"
        if card_id is not None:
            words += f" a {CARD_BY_ID[card_id].colour} card"
            parts.extend(_card_box(CARD_BY_ID[card_id], centre - 105, 102, 210, 92))
        parts.append(_text(centre, 92, words, 13, "middle"))
    return parts


def _hand(state: ArcomageState, seat: int, shown: bool, y: float) -> list[str]:
    hand = state.hands[seat]
    label = f"{SEAT_NAMES[seat]}'s hand"
    if not shown:
        return [_text(20, y + 20, f"{label}: {len(hand)} cards", 13)]
    parts = [_text(20, y + 20, label, 13, weight="bold")]
    # a hand of more than six (drawn, before a discard) narrows its cards to stay in the frame
    room = _WIDTH - 8 - _HAND_X
    width = min(_CARD_W, room / max(len(hand), 1) - _CARD_GAP)
    for index, card_id in enumerate(hand):
        parts.extend(_card_box(CARD_BY_ID[card_id], _HAND_X + (width + _CARD_GAP) * index, y,
                               width, _CARD_H))
    return parts


def render_svg(state: ArcomageState, seat: int | None = None, *, spectator: bool = False) -> str:
    """The state as SVG text; ``seat`` is whose eyes (None: everything is shown, unless
    ``spectator`` is set: then no hand is shown, as a spectator sees a match in play)."""
    field = state.battlefield
    tallest = max(field.victory_tower, *state.stats[0:2], *state.stats[8:10])
    scale = (_GROUND - _SKY) / tallest if tallest else 1.0
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
            f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" {SCALABLE}>'
        ),
        f"<title>{escape(f'Two-tower duel on {field.name}')}</title>",
        _rect(0, 0, _WIDTH, _HEIGHT, "#eef3f8"),
        _rect(0, _GROUND, _WIDTH, _HEIGHT - _GROUND, "#dfe6d5"),
        _text(
            _WIDTH / 2,
            28,
            f"{field.name} — victory: tower {field.victory_tower}, "
            f"resource {field.victory_resource}",
            15,
            "middle",
        ),
    ]
    for shown_seat in (0, 1):
        parts.extend(_castle(state, shown_seat, scale))
        parts.extend(_economy(state, shown_seat))
    parts.extend(_middle(state))
    for hand_seat in (0, 1):
        shown = not spectator and (seat is None or seat == hand_seat)
        parts.extend(_hand(state, hand_seat, shown, _GROUND + 148 + (_CARD_H + 10) * hand_seat))
    parts.append("</svg>")
    return "\n".join(parts)
