"""flatsvg.py draws every game's drawings (the plug-in's too) without resvg, looking like
resvg's drawing; a frame repainted where it changed is the same pixels as one painted whole;
and a drawing outside flatsvg's subset is drawn by resvg, not drawn wrong."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

from fairdeal.web.viewer.flatsvg import (
    FrameDrawer,
    UnsupportedDrawing,
    changed_regions,
    flatten_svg,
    paint,
)
from fairdeal.web.viewer.matches import load_bundle
from fairdeal.web.viewer.raster import svg_to_image, svg_to_png

from . import conftest as helpers

GAMES = ["arcomage", "toybattle", "wyrdstone", "crazy-eights"]


@pytest.fixture(scope="module")
def matches() -> dict[str, Any]:
    return {game: load_bundle(helpers.bundle_bytes(
        helpers.simulate(game, 1, seed=f"flat-{game}")[0])) for game in GAMES}


@pytest.mark.parametrize("game", GAMES)
def test_every_games_drawings_are_drawn_by_flatsvg_like_resvg(matches: dict[str, Any],
                                                            game: str) -> None:
    match = matches[game]
    steps = sorted({0, match.last_step // 2, match.last_step})
    for step in steps:
        for seat in (None, 0):
            svg = str(match.svg(step, seat))
            drawn = paint(flatten_svg(svg, width=480))  # raises UnsupportedDrawing if not
            with Image.open(io.BytesIO(svg_to_png(svg, width=480, background="#ffffff"))) as png:
                reference = png.convert("RGB")
            assert drawn.size == reference.size
            # the same picture: antialiasing and glyph placement differ by a pixel here and
            # there, a misplaced shape or text would not (it moves ~4% of the pixels at least)
            difference = ImageChops.difference(drawn, reference).convert("L")
            changed = sum(difference.point(lambda v: 255 if v > 64 else 0).histogram()[255:])
            share = changed / (drawn.width * drawn.height)
            assert share < 0.02, f"{game} step {step} seat {seat}: {share:.1%} of pixels differ"
            assert ImageStat.Stat(difference).mean[0] < 4


@pytest.mark.parametrize("game", ["arcomage", "toybattle", "wyrdstone"])
def test_a_frame_repainted_where_it_changed_is_the_frame_painted_whole(
        matches: dict[str, Any], game: str) -> None:
    match = matches[game]
    frames = FrameDrawer()
    before = None
    partly = 0  # steps that repainted less than the whole picture
    for step in range(match.last_step + 1):
        drawing = flatten_svg(str(match.svg(step, None)), width=480)
        whole = paint(drawing)
        assert frames.draw(drawing).tobytes() == whole.tobytes(), f"{game} step {step}"
        if before is not None:
            regions = changed_regions(before, drawing)
            area = sum((r[2] - r[0]) * (r[3] - r[1]) for r in regions)
            partly += area < FrameDrawer.WHOLE_FROM * whole.width * whole.height * 4
        before = drawing
    # the point of it: most steps change a part of the picture
    assert partly >= match.last_step // 2, (partly, match.last_step)


def test_what_flatsvg_does_not_draw_resvg_does() -> None:
    # a rotated square: flatsvg has no transforms, so resvg draws it
    rotated = ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
               '<rect width="100" height="100" fill="#ffffff"/>'
               '<rect x="35" y="35" width="30" height="30" fill="#ff0000" '
               'transform="rotate(45 50 50)"/></svg>')
    with pytest.raises(UnsupportedDrawing, match="transform"):
        flatten_svg(rotated, width=100)
    picture = svg_to_image(rotated, width=100)
    assert picture.getpixel((50, 31)) == (255, 0, 0)  # a corner the rotation put there
    assert picture.getpixel((36, 36)) == (255, 255, 255)  # the unrotated corner is empty
    gradient = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                '<rect width="10" height="10" fill="url(#g)"/></svg>')
    with pytest.raises(UnsupportedDrawing, match="colour"):
        flatten_svg(gradient, width=10)
    with pytest.raises(ValueError):  # neither draws what is not SVG
        svg_to_image("<svg", width=10)


def test_shapes_land_where_the_svg_puts_them() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" '
           'viewBox="0 0 200 100"><rect width="200" height="100" fill="#000000"/>'
           '<rect x="10" y="10" width="40" height="20" fill="#00ff00" stroke="#0000ff" '
           'stroke-width="4"/><circle cx="150" cy="50" r="20" fill="#ff0000"/>'
           '<line x1="0" y1="90" x2="200" y2="90" stroke="#ffffff" stroke-width="2"/></svg>')
    picture = paint(flatten_svg(svg, width=400))  # twice the size
    assert picture.size == (400, 200)
    assert picture.getpixel((60, 40)) == (0, 255, 0)  # the rect's inside
    assert picture.getpixel((20, 22)) == (0, 0, 255)  # its stroke, centred on its edge
    assert picture.getpixel((300, 100)) == (255, 0, 0)  # the circle's centre
    assert picture.getpixel((300, 145)) == (0, 0, 0)  # outside the circle
    assert picture.getpixel((200, 180)) == (255, 255, 255)  # the line
