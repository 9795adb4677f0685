"""A GIF frame's size and the strip beneath its drawing: the step number and what happened,
wrapped so that it never runs under the watermark or off the edge, in text a person can read.

Two things decide readability, both in pixels of the final GIF: the caption is drawn at
CAPTION_PX whatever the frame's size, and the frame is made wide enough that the drawing's
body text (the smallest font size a fifth of its text uses at least) comes out at
MIN_TEXT_PX or more: a card duel's 10-unit card text, 820 units wide, was 5.9 px in a 480-px
frame, and a 900-unit board's 5.3 px. Widths are measured with DejaVu Sans, the font the
frames are drawn with (flatsvg.text_width).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from xml.sax.saxutils import escape

from .flatsvg import text_width

__all__ = ["CAPTION_PX", "MAX_CAPTION_LINES", "MAX_WIDTH", "MIN_TEXT_PX", "MIN_WIDTH",
           "Caption", "caption_lines", "drawing_size", "frame_svg", "frame_width", "strip_px"]

#: frames are at least this wide (what chat apps show inline) and at most MAX_WIDTH
MIN_WIDTH = 480
MAX_WIDTH = 720
#: the drawing's body text is at least this many pixels high, where MAX_WIDTH allows
MIN_TEXT_PX = 8
#: the caption's size, its line step, the watermark's size and the margins, in pixels
CAPTION_PX = 13
LINE_PX = 17
WATERMARK_PX = 12
MARGIN_PX = 8
GAP_PX = 12
#: a caption longer than this many lines ends in "…"
MAX_CAPTION_LINES = 3
WATERMARK = "fairdeal"
_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"')
_FONT_SIZE = re.compile(r'font-size="([\d.]+)')

#: a caption as lines; the first begins with the step number, in bold
Caption = list[str]


def drawing_size(drawing: str) -> tuple[float, float]:
    """The game drawing's own width and height (800 x 600 where it does not say)."""
    size = _SIZE.search(drawing)
    return (float(size.group(1)), float(size.group(2))) if size else (800.0, 600.0)


def frame_width(drawing: str) -> int:
    """How many pixels wide a GIF of this drawing is: MIN_WIDTH, or wider so that its body
    text is MIN_TEXT_PX high, MAX_WIDTH at most.

    >>> frame_width('<svg width="820" height="700"><text font-size="10">x</text></svg>')
    656
    >>> frame_width('<svg width="400" height="300"><text font-size="14">x</text></svg>')
    480
    """
    width = drawing_size(drawing)[0]
    sizes = Counter(float(size) for size in _FONT_SIZE.findall(drawing))
    total = sum(sizes.values())
    body = next((size for size in sorted(sizes) if sizes[size] * 5 >= total), None)
    if body is None or body <= 0:
        return MIN_WIDTH
    return max(MIN_WIDTH, min(MAX_WIDTH, math.ceil(width * MIN_TEXT_PX / body)))


def _room(pixel_width: int) -> float:
    """The caption's width in pixels: the frame less the margins and the watermark."""
    return pixel_width - 2 * MARGIN_PX - GAP_PX - text_width(WATERMARK, WATERMARK_PX)


def caption_lines(number: int, last: int, caption: str, pixel_width: int) -> Caption:
    """``"number/last caption"`` wrapped at words into lines that fit beside the watermark,
    MAX_CAPTION_LINES at most (the last ending in "…" when the caption is longer); a word
    wider than a line is broken where it must be.

    >>> caption_lines(3, 9, "A plays Apprentice", 480)
    ['3/9 A plays Apprentice']
    >>> len(caption_lines(3, 9, "word " * 200, 480))
    3
    """
    room = _room(pixel_width)
    prefix = f"{number}/{last}"
    lead = text_width(prefix + " ", CAPTION_PX, bold=True)
    lines: list[str] = []
    line, used = prefix, lead - text_width(" ", CAPTION_PX)
    for word in caption.split():
        while word:
            gap = text_width(" ", CAPTION_PX) if line else 0.0
            size = text_width(word, CAPTION_PX)
            if used + gap + size <= room:
                line, used = (f"{line} {word}" if line else word), used + gap + size
                word = ""
            elif not line or size > room:
                cut = _fitting(word, room - used - gap)
                if cut == 0 and line:
                    lines.append(line)
                    line, used = "", 0.0
                    continue
                cut = max(1, cut)
                line = f"{line} {word[:cut]}" if line else word[:cut]
                lines.append(line)
                line, used, word = "", 0.0, word[cut:]
            else:
                lines.append(line)
                line, used = "", 0.0
    if line:
        lines.append(line)
    if len(lines) > MAX_CAPTION_LINES:
        kept = lines[:MAX_CAPTION_LINES]
        end = kept[-1]
        while end and text_width(end + "…", CAPTION_PX) > room:
            end = end[:-1]
        kept[-1] = end.rstrip() + "…"
        lines = kept
    return lines


def _fitting(word: str, room: float) -> int:
    """How many of ``word``'s first characters fit in ``room`` pixels."""
    count = 0
    while count < len(word) and text_width(word[:count + 1], CAPTION_PX) <= room:
        count += 1
    return count


def strip_px(lines: int) -> int:
    """The strip's height in pixels for ``lines`` caption lines."""
    return 2 * MARGIN_PX + CAPTION_PX + 5 + LINE_PX * (max(1, lines) - 1)


def frame_svg(drawing: str, caption: Caption, pixel_width: int, lines: int) -> str:
    """The game's drawing with the strip beneath it, ``lines`` lines high (the most any
    frame of the GIF needs, so every frame has the same size): the caption on the left, its
    step number in bold, the watermark on the right of the first line."""
    width, height = drawing_size(drawing)
    unit = width / pixel_width  # the drawing's units a pixel
    # whole pixels high, so that no half-covered row is left at the bottom
    total = (math.ceil(height / unit - 1e-6) + strip_px(lines)) * unit
    height = total - strip_px(lines) * unit
    left, right = MARGIN_PX * unit, width - MARGIN_PX * unit
    rows = []
    for row, text in enumerate(caption):
        y = height + (MARGIN_PX + CAPTION_PX + LINE_PX * row) * unit
        if row == 0:
            number, _, rest = text.partition(" ")
            body = f'<tspan font-weight="bold">{escape(number)}</tspan> {escape(rest)}'
        else:
            body = escape(text)
        rows.append(f'<text x="{left:g}" y="{y:g}" font-size="{CAPTION_PX * unit:g}" '
                    f'fill="#ffffff">{body}</text>')
    mark_y = height + (MARGIN_PX + CAPTION_PX) * unit
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{total:g}" '
            f'viewBox="0 0 {width:g} {total:g}" font-family="DejaVu Sans, sans-serif">'
            f'<rect width="{width:g}" height="{total:g}" fill="#1f3a5f"/>'
            f'{drawing}{"".join(rows)}'
            f'<text x="{right:g}" y="{mark_y:g}" font-size="{WATERMARK_PX * unit:g}" '
            f'fill="#c9d6e8" text-anchor="end">{WATERMARK}</text></svg>')
