"""A Wyrdstone duel drawn as a standalone SVG string. Pure: no I/O, no Flask.

Seat A's mage is at the bottom, B's at the top, each with a health bar and five energy counters;
between them the two rows of five slots (slot n of A faces slot n of B) with each creature's
attack/health and icons for poison, stun and buffs; on the right, beside each mage's row, its
equipment (artifacts, skills, the rune belt with the runes used so far, and from wyrdstone/2 the
tavern effects, each item's text its ``<title>``), and between them the turn, the Wrath of the
Gods countdown and the last scroll cast. Nothing in a Wyrdstone state is hidden, so every
perspective (a seat, everything, a spectator) draws the same picture, apart from the title
line naming the perspective.

>>> import random
>>> from fairdeal.games.base import SimpleRng
>>> from fairdeal.games.wyrdstone.game import GAME
>>> render_svg(GAME.setup({}, SimpleRng(random.Random(1)))).startswith("<svg")
True
"""

from __future__ import annotations

from collections import Counter
from html import escape

from ..svgtext import SCALABLE, fit_lines, text_block, title
from .book import (
    ARTIFACT_BY_ID,
    ELEMENT_NAMES,
    RUNE_BY_ID,
    SCROLL_BY_ID,
    SKILL_BY_ID,
    TAVERN_BY_ID,
    Equipment,
)
from .engine import WRATH_FROM
from .state import HEALTH, SEAT_NAMES, SLOTS, Creature, WyrdState

__all__ = ["render_svg"]

_WIDTH, _HEIGHT = 900, 560
_COLOURS = {"fire": "#c0392b", "water": "#2e6fb0", "air": "#7fb3d5", "earth": "#7d6b3a",
            "death": "#5b4a68", "neutral": "#888888"}
_SLOT_W, _SLOT_H, _SLOT_X = 104, 110, 40
#: the right-hand column: each mage's equipment beside its row, the turn panel between them
_SIDE_X = _SLOT_X + 5 * (_SLOT_W + 12) + 20
_SIDE_W = _WIDTH - _SIDE_X - 10


def _text(x: float, y: float, content: str, size: int = 13, anchor: str = "start",
          weight: str = "normal", fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(content)}</text>')


def _rect(x: float, y: float, w: float, h: float, fill: str, extra: str = "") -> str:
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}"{extra}/>'


def _mage(state: WyrdState, seat: int, y: float) -> list[str]:
    """Name, school, health bar and the five energy counters."""
    loadout = state.loadouts[seat]
    school = loadout.school.capitalize()
    if loadout.patron:
        school += f" ({loadout.patron})"
    acting = state.result is None and state.seat == seat
    health = max(state.health[seat], 0)
    parts = [
        _text(_SLOT_X, y, f"Mage {SEAT_NAMES[seat]} · {school}{'  ◀ to act' if acting else ''}",
              15, weight="bold"),
        _rect(_SLOT_X, y + 8, 300, 14, "#eee", ' stroke="#555"'),
        _rect(_SLOT_X, y + 8, 300 * min(health, HEALTH) / HEALTH, 14, "#3c9d4a"),
        _text(_SLOT_X + 310, y + 20, f"health {state.health[seat]}/{HEALTH}", 13),
    ]
    for n, (element, amount) in enumerate(state.energy_of(seat).items()):
        x = _SLOT_X + 460 + 70 * n
        parts.append(f'<circle cx="{x}" cy="{y + 10}" r="13" fill="{_COLOURS[element]}"/>')
        parts.append(_text(x, y + 15, str(amount), 13, "middle", "bold", "#fff"))
        parts.append(_text(x + 16, y + 15, ELEMENT_NAMES[element][:2], 10))
    return parts


def _icons(creature: Creature) -> str:
    icons = []
    if creature.poison_turns:
        icons.append(f"☠{creature.poison}×{creature.poison_turns}")
    if creature.stunned:
        icons.append(f"✷{creature.stun + (1 if creature.held else 0)}")
    if creature.buff:
        icons.append(f"▲+{creature.buff}×{creature.buff_turns}")
    return " ".join(icons)


def _slot(state: WyrdState, seat: int, slot: int, y: float) -> list[str]:
    x = _SLOT_X + (slot - 1) * (_SLOT_W + 12)
    creature = state.creature(seat, slot)
    parts = [_rect(x, y, _SLOT_W, _SLOT_H, "#f7f4ec", ' stroke="#999" rx="6"'),
             _text(x + 4, y + 14, str(slot), 10, fill="#999")]
    if creature is None:
        return parts
    scroll = SCROLL_BY_ID[creature.scroll]
    parts += [
        f'<g class="scroll">{title(scroll_text(scroll.id))}',
        _rect(x, y + 20, _SLOT_W, 6, _COLOURS[scroll.element]),
        text_block(creature.name, x + _SLOT_W / 2, y + 29, _SLOT_W - 6, 26,
                   sizes=(11, 10, 9, 8), anchor="middle", weight="bold"),
        _text(x + _SLOT_W / 2, y + 68, f"⚔{creature.strength}  ♥{creature.health}", 15,
              "middle", "bold"),
        _text(x + _SLOT_W / 2, y + 88, _icons(creature), 11, "middle", fill="#7b2d26"),
    ]
    if creature.summoned == state.turn:
        parts.append(_text(x + _SLOT_W / 2, y + 104, "summoned", 10, "middle", fill="#777"))
    parts.append("</g>")
    return parts


def scroll_text(scroll_id: str) -> str:
    """A scroll's full text, as its ``<title>`` (what hovering shows)."""
    scroll = SCROLL_BY_ID[scroll_id]
    return f"{scroll.name} ({scroll.cost_text}): {scroll.text}"


def _names(items: list[Equipment]) -> str:
    return ", ".join(item.name for item in items) or "none"


def _equipment(state: WyrdState, seat: int, y: float) -> list[str]:
    """Mage ``seat``'s equipment in the right-hand column from ``y`` down: one block per kind,
    each with its items' rules texts as its ``<title>``; runes used from the belt are named
    apart."""
    loadout = state.loadouts[seat]
    left = Counter(state.belts[seat])
    used: list[str] = []
    for rune in loadout.runes:
        if left[rune]:
            left[rune] -= 1
        else:
            used.append(rune)
    unused = list(state.belts[seat])
    used_items = [RUNE_BY_ID[rune] for rune in used]
    belt = ", ".join(RUNE_BY_ID[rune].name for rune in unused) or "empty"
    # (kind, the words drawn, the items whose texts the hover shows)
    kinds: list[tuple[str, str, list[Equipment]]] = [
        ("artifacts", _names([ARTIFACT_BY_ID[item] for item in loadout.artifacts]),
         [ARTIFACT_BY_ID[item] for item in loadout.artifacts]),
        ("skills", _names([SKILL_BY_ID[item] for item in loadout.skills]),
         [SKILL_BY_ID[item] for item in loadout.skills]),
        ("rune belt", belt + (f"; used: {_names(used_items)}" if used else ""),
         [RUNE_BY_ID[rune] for rune in loadout.runes]),
    ]
    if state.rules.tavern:
        tavern = [TAVERN_BY_ID[item] for item in loadout.tavern]
        kinds.append(("tavern", _names(tavern), tavern))
    parts = [f'<g class="equipment" data-seat="{SEAT_NAMES[seat]}">',
             _text(_SIDE_X, y + 11, f"Mage {SEAT_NAMES[seat]}'s equipment", 11, weight="bold")]
    top = y + 15
    for kind, words, items in kinds:
        size, step, lines = fit_lines(f"{kind}: {words}", _SIDE_W, 3 * 12, sizes=(10, 9))
        hover = "; ".join(f"{item.name}: {item.text}" for item in items) or f"no {kind}"
        parts.append(f'<g class="equipment-{kind.replace(" ", "-")}">{title(hover)}')
        parts += [_text(_SIDE_X, top + size + step * row, line, size)
                  for row, line in enumerate(lines)]
        parts.append("</g>")
        top += step * len(lines) + 3
    parts.append("</g>")
    return parts


def _panel(state: WyrdState) -> list[str]:
    x = _SIDE_X
    lines = [f"Turn {state.turn}"]
    if state.turn < WRATH_FROM:
        lines.append(f"Wrath of the Gods in {WRATH_FROM - state.turn} turns")
    else:
        lines.append(f"Wrath of the Gods: {state.turn - WRATH_FROM + 1} damage")
    lines.append(f"draw {state.rules.draw_when}")
    if state.last_cast is not None:
        seat, scroll, slot = state.last_cast
        where = "" if slot is None else f" (slot {slot})"
        lines.append("last scroll:")
        lines.append(f"{SEAT_NAMES[seat]} · {SCROLL_BY_ID[scroll].name}{where}")
    if state.result is not None:
        winner = state.result.winner
        lines.append("draw" if winner is None else f"{SEAT_NAMES[winner]} wins")
        lines.append(f"({state.result.reason})")
    parts = [_text(x, 214 + 16 * n, line, 13, weight="bold" if n == 0 else "normal")
             for n, line in enumerate(lines)]
    if state.last_cast is not None:
        parts.insert(0, f'<g class="scroll">{title(scroll_text(state.last_cast[1]))}')
        parts.append("</g>")
    return parts


def render_svg(state: WyrdState, seat: int | None = None, *, spectator: bool = False) -> str:
    """The duel as a standalone SVG. Every perspective shows the same public state."""
    who = "spectator" if spectator else "everything" if seat is None else SEAT_NAMES[seat]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" {SCALABLE}>',
        _rect(0, 0, _WIDTH, _HEIGHT, "#fffdf7"),
        _text(_WIDTH - 10, 16, f"Wyrdstone · view: {who}", 10, "end", fill="#999"),
    ]
    parts += _mage(state, 1, 30)
    for slot in range(1, SLOTS + 1):
        parts += _slot(state, 1, slot, 80)
        parts += _slot(state, 0, slot, 330)
    parts.append(f'<line x1="{_SLOT_X}" x2="{_SLOT_X + 5 * (_SLOT_W + 12)}" y1="270" y2="270" '
                 'stroke="#ccc" stroke-dasharray="6 4"/>')
    parts += _mage(state, 0, 480)
    parts += _equipment(state, 1, 76)
    parts += _equipment(state, 0, 326)
    parts += _panel(state)
    parts.append("</svg>")
    return "\n".join(parts)
