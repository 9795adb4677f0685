"""Issue 21 (6): a GIF frame's caption wraps beside the watermark, never under it nor off the
right edge, and the text stays readable: the caption at 13 px, and the frame wide enough that
the drawing's body text is 8 px. Frames of every game, a long caption's included, are written
to test-output/gif-frames/ for a person to look at."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from fairdeal.web.viewer.animation import match_gif
from fairdeal.web.viewer.captions import (
    CAPTION_PX,
    MARGIN_PX,
    MAX_CAPTION_LINES,
    MAX_WIDTH,
    MIN_TEXT_PX,
    WATERMARK,
    WATERMARK_PX,
    caption_lines,
    drawing_size,
    frame_svg,
    frame_width,
    strip_px,
)
from fairdeal.web.viewer.flatsvg import text_width
from fairdeal.web.viewer.matches import load_bundle
from fairdeal.web.viewer.raster import svg_to_image

from . import conftest as helpers

FRAMES = Path(__file__).resolve().parents[3] / "test-output" / "gif-frames"
GAMES = ["arcomage", "toybattle", "wyrdstone", "crazy-eights"]
LONG = ("A plays Wrath of the Gods (12 Death), 4/10, into slot 3: when summoned: 4 damage to "
        "every enemy creature and 2 to the enemy mage; when it dies: poison each enemy "
        "creature 1 a turn for 3 turns, then discard a card at random, then draw two cards, "
        "and the next creature summoned by either mage this turn enters with half its health")


@pytest.fixture(scope="module")
def matches() -> dict[str, Any]:
    return {game: load_bundle(helpers.bundle_bytes(
        helpers.simulate(game, 1, seed=f"captions-{game}")[0])) for game in GAMES}


def _strip(picture: Image.Image, lines: int) -> Image.Image:
    return picture.crop((0, picture.height - strip_px(lines), picture.width, picture.height))


@pytest.mark.parametrize("game", GAMES)
def test_a_long_caption_wraps_clear_of_the_watermark_and_the_edge(
        matches: dict[str, Any], game: str) -> None:
    match = matches[game]
    drawing = str(match.svg(match.last_step, None))
    width = frame_width(drawing)
    lines = caption_lines(999, 999, LONG, width)
    assert len(lines) == MAX_CAPTION_LINES and lines[-1].endswith("…")
    assert " ".join(lines).startswith("999/999 A plays Wrath of the Gods")
    captioned = svg_to_image(frame_svg(drawing, lines, width, len(lines)), width=width)
    bare = svg_to_image(frame_svg(drawing, [""], width, len(lines)), width=width)
    assert captioned.width == width
    # the caption's own pixels: what the frame has that the uncaptioned one has not
    drawn = ImageChops.difference(_strip(captioned, len(lines)), _strip(bare, len(lines)))
    box = drawn.getbbox()
    assert box is not None
    watermark_left = width - MARGIN_PX - text_width(WATERMARK, WATERMARK_PX)
    assert box[2] <= watermark_left - 4, f"the caption reaches x={box[2]}, the watermark " \
                                         f"starts at {watermark_left:.0f}"
    assert box[0] >= MARGIN_PX - 2 and box[2] <= width - MARGIN_PX
    assert box[3] - box[1] > 2 * CAPTION_PX  # it wrapped onto three lines
    # the watermark is drawn, right-aligned inside the frame
    mark = ImageChops.difference(_strip(bare, len(lines)),
                                 Image.new("RGB", (width, strip_px(len(lines))), "#1f3a5f"))
    mark_box = mark.getbbox()
    assert mark_box is not None and mark_box[0] >= watermark_left - 2 and \
        mark_box[2] <= width - MARGIN_PX + 1
    FRAMES.mkdir(parents=True, exist_ok=True)
    captioned.save(FRAMES / f"{game}-long-caption.png")


@pytest.mark.parametrize("game", GAMES)
def test_the_drawings_text_is_readable_in_the_gif(matches: dict[str, Any], game: str) -> None:
    match = matches[game]
    drawing = str(match.svg(0, None))
    width = frame_width(drawing)
    sizes = [float(size) for size in __import__("re").findall(r'font-size="([\d.]+)', drawing)]
    body = sorted(sizes)[len(sizes) // 5]  # most of the text is at least this size
    shown = body * width / drawing_size(drawing)[0]
    assert shown >= MIN_TEXT_PX or width == MAX_WIDTH, (game, width, shown)
    assert shown >= 7.5, f"{game}: the body text is {shown:.1f} px high in the GIF"
    gif = Image.open(io.BytesIO(match_gif(match, 0, min(4, match.last_step))))
    assert gif.width == width
    FRAMES.mkdir(parents=True, exist_ok=True)
    for index in range(gif.n_frames):
        gif.seek(index)
        gif.convert("RGB").save(FRAMES / f"{game}-step-{index}.png")


def test_caption_lines_fit_and_break_words_that_cannot() -> None:
    room = 480 - 2 * MARGIN_PX
    for text in (LONG, "x" * 300, "short", ""):
        lines = caption_lines(7, 80, text, 480)
        assert 1 <= len(lines) <= MAX_CAPTION_LINES
        assert lines[0].startswith("7/80")
        for line in lines:
            assert text_width(line, CAPTION_PX, bold=True) < room
    assert caption_lines(7, 80, "short", 480) == ["7/80 short"]
