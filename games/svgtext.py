"""Text that fits a box in the games' SVG drawings: wrapped at word boundaries, the font made
smaller until every word fits, never cut. Pure; shared by every game's render module.

SVG has no text flow, so the width of a line is estimated from its length: AVERAGE_ADVANCE of
the font size per character, a little wider than a sans-serif's average, so that the estimate
errs on the side of room to spare.

>>> fit_lines("6 damage to the enemy, 3 damage to you", 100, 40, sizes=(10, 8))
(10, 12, ['6 damage to the', 'enemy, 3 damage', 'to you'])
>>> fit_lines("6 damage to the enemy, 3 damage to you", 100, 30, sizes=(10, 8))
(8, 10, ['6 damage to the enemy,', '3 damage to you'])
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from textwrap import wrap

__all__ = ["AVERAGE_ADVANCE", "SCALABLE", "fit_lines", "text_block", "title"]

#: on every drawing's root: it fits the width it is given (a phone's too), scaling down and
#: keeping its shape; width and height stay its natural size (for PNGs and files)
SCALABLE = 'style="max-width:100%;height:auto"'

#: the estimated advance of one character, as a fraction of the font size
AVERAGE_ADVANCE = 0.56
#: line height as a multiple of the font size
LEADING = 1.2


def fit_lines(text: str, width: float, height: float,
              sizes: Sequence[int] = (11, 10, 9, 8, 7, 6)) -> tuple[int, int, list[str]]:
    """The largest of ``sizes`` at which ``text`` wraps into ``width`` x ``height``: (font
    size, line step, lines). At the smallest size the text is wrapped whole even if it then
    runs lower than ``height``: a drawing may crowd, but never drops words."""
    lines: list[str] = []
    size = sizes[-1]
    for size in sizes:
        columns = max(1, int(width / (size * AVERAGE_ADVANCE)))
        lines = wrap(text, columns, break_long_words=False, break_on_hyphens=False)
        step = round(size * LEADING)
        fits_width = all(len(line) <= columns for line in lines)
        if fits_width and len(lines) * step <= height:
            return size, step, lines
    return size, round(size * LEADING), lines


def text_block(text: str, x: float, y: float, width: float, height: float, *,
               sizes: Sequence[int] = (11, 10, 9, 8, 7, 6), fill: str = "#222",
               anchor: str = "start", weight: str = "normal") -> str:
    """``text`` as one ``<text>`` of ``<tspan>`` lines filling the box whose top left is
    (x, y); ``anchor="middle"`` centres each line on ``x``."""
    size, step, lines = fit_lines(text, width, height, sizes)
    spans = "".join(
        f'<tspan x="{x:.0f}" y="{y + size + step * row:.0f}">{escape(line)}</tspan>'
        for row, line in enumerate(lines)
    )
    return (f'<text font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}">{spans}</text>')


def title(text: str) -> str:
    """An SVG ``<title>``: the full text a pointer hovering over the element shows."""
    return f"<title>{escape(text)}</title>"
