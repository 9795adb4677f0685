"""A drawing of a live match from its public view alone (no state, no hidden cards).

The rules packages draw full states; a spectator of a match in play has only the public view
JSON. For views that carry a tower and a wall per seat (the two-tower duel), this draws both
castles to one scale with the victory height marked, so a live match looks like the replay it
will become. Other views get the plain tables instead (present.state_tables).

>>> svg = towers_svg({"victory": {"tower": 50}, "players": [{"tower": 20, "wall": 5},
...                                                         {"tower": 25, "wall": 0}]})
>>> svg.startswith("<svg") and "tower 25" in svg
True
>>> towers_svg({"stacks": []}) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["towers_svg"]

_WIDTH, _HEIGHT, _GROUND, _SKY = 720, 300, 250, 30
_COLOURS = ("#8b6b4a", "#6b6f80")


def _number(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return max(0, value)


def towers_svg(view: Any, seat_labels: Sequence[str] = ("A", "B")) -> str | None:
    """Two castles drawn to scale from a public view, or None when the view has no towers."""
    if not isinstance(view, Mapping):
        return None
    players = view.get("players")
    if not isinstance(players, list) or len(players) != 2:
        return None
    heights = []
    for player in players:
        if not isinstance(player, Mapping):
            return None
        tower, wall = _number(player.get("tower")), _number(player.get("wall"))
        if tower is None or wall is None:
            return None
        heights.append((tower, wall))
    victory_raw = view.get("victory")
    victory = _number(victory_raw.get("tower")) if isinstance(victory_raw, Mapping) else None
    tallest = max([victory or 0] + [max(pair) for pair in heights]) or 1
    scale = (_GROUND - _SKY) / tallest
    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif">'),
        "<title>The towers and walls now (public view)</title>",
        f'<rect width="{_WIDTH}" height="{_GROUND}" fill="#eef3f8"/>',
        f'<rect y="{_GROUND}" width="{_WIDTH}" height="{_HEIGHT - _GROUND}" fill="#dfe6d5"/>',
    ]
    for seat, (tower, wall) in enumerate(heights):
        tower_x = 90 if seat == 0 else _WIDTH - 90 - 60
        wall_x = tower_x + 90 if seat == 0 else tower_x - 50
        tower_h, wall_h = tower * scale, wall * scale
        label = escape(seat_labels[seat] if seat < len(seat_labels) else str(seat))
        parts += [
            (f'<rect x="{tower_x}" y="{_GROUND - tower_h:.1f}" width="60" height="{tower_h:.1f}" '
            f'fill="{_COLOURS[seat]}" stroke="#333"/>'),
            (f'<rect x="{wall_x}" y="{_GROUND - wall_h:.1f}" width="20" height="{wall_h:.1f}" '
            'fill="#a0a0a0" stroke="#555"/>'),
            (f'<text x="{tower_x + 30}" y="{_GROUND + 20}" font-size="13" '
            f'text-anchor="middle">tower {tower}</text>'),
            (f'<text x="{wall_x + 10}" y="{_GROUND + 38}" font-size="12" '
            f'text-anchor="middle">wall {wall}</text>'),
            (f'<text x="{tower_x + 30}" y="{_GROUND - tower_h - 10:.1f}" font-size="14" '
            f'font-weight="bold" text-anchor="middle">{label}</text>'),
        ]
    if victory:
        y = _GROUND - victory * scale
        parts.append(f'<line x1="20" x2="{_WIDTH - 20}" y1="{y:.1f}" y2="{y:.1f}" '
                     'stroke="#c9971c" stroke-dasharray="6 5"/>')
        parts.append(f'<text x="{_WIDTH / 2:.0f}" y="{y - 6:.1f}" font-size="12" '
                     f'text-anchor="middle" fill="#7a5b12">victory: tower {victory}</text>')
    parts.append("</svg>")
    return "".join(parts)
