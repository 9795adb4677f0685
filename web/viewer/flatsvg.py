"""The games' flat SVG drawn by Pillow: rectangles, circles, lines, polygons and text, in flat
colours, which is all any game here draws (tests/web/viewer/test_flatsvg.py walks every game's
drawings), at a few milliseconds a frame instead of resvg's ~100.

Why not resvg for every picture: resvg-py renders to a PNG it encodes, and its rasterising of
even an empty 480-px canvas costs ~9 ms, a frame ~120 ms of which text is about half
(bench/bench_pictures.py); a 323-step GIF was 40 s of a core. Pillow's drawing is C over the
same DejaVu fonts, so the drawing here is the SVG's geometry painted directly: shapes on a
canvas SUPERSAMPLE times larger, shrunk by a box filter (antialiased edges, as resvg's), text
by FreeType at its final size on that canvas.

Anything outside that subset (a transform, a gradient, an opacity, a path, an attribute it
does not know, a font other than sans-serif) raises UnsupportedDrawing, and the caller
(raster.py) lets resvg draw it: a plug-in game's drawing is never drawn wrong, at worst slower.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from PIL import Image, ImageColor, ImageDraw, ImageFont

__all__ = ["SUPERSAMPLE", "FlatDrawing", "FrameDrawer", "UnsupportedDrawing", "changed_regions",
           "draw_svg", "flatten_svg", "forget", "paint", "text_width"]

#: shapes are drawn this many times larger and shrunk, for antialiased edges
SUPERSAMPLE = 2
_FONTS = {False: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
          True: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"}
_SANS = {"sans-serif", "dejavu sans", "dejavu sans, sans-serif", "'dejavu sans', sans-serif"}
_NUMBER = re.compile(r"^\s*(-?[\d.]+(?:e-?\d+)?)\s*(px)?\s*$")
_SKIPPED = {"title", "desc", "metadata"}
_WORDS = re.compile(r"( )")
#: presentation attributes an element passes to its children, and what they start as
_INHERITED = ("fill", "stroke", "stroke-width", "font-size", "font-weight", "text-anchor",
              "font-family")
_GEOMETRY = {
    "svg": {"x", "y", "width", "height", "viewBox", "style", "preserveAspectRatio", "version"},
    "g": set(), "title": set(), "desc": set(), "metadata": set(),
    "rect": {"x", "y", "width", "height", "rx", "ry"},
    "circle": {"cx", "cy", "r", "stroke-dasharray"},
    "line": {"x1", "y1", "x2", "y2", "stroke-dasharray"},
    "polygon": {"points"}, "polyline": {"points"},
    "text": {"x", "y"}, "tspan": {"x", "y"},
}


class UnsupportedDrawing(ValueError):
    """The drawing uses SVG this module does not draw (resvg draws it instead)."""


@dataclass(frozen=True)
class _Style:
    """What an element inherits, with the user-space to canvas mapping (scale, dx, dy)."""
    fill: str = "black"
    stroke: str = "none"
    stroke_width: float = 1.0
    font_size: float = 16.0
    bold: bool = False
    anchor: str = "start"
    scale: float = 1.0
    dx: float = 0.0
    dy: float = 0.0

    def x(self, value: float) -> float:
        return value * self.scale + self.dx

    def y(self, value: float) -> float:
        return value * self.scale + self.dy


def _number(element: ET.Element, name: str, default: float = 0.0) -> float:
    text = element.get(name)
    if text is None:
        return default
    value = _plain_number(text)
    if value is None:
        raise UnsupportedDrawing(f"{name}={text!r} is not a plain number")
    return value


# the two below are kept by their text: a GIF's frames say the same few hundred numbers and
# colours tens of thousands of times


@lru_cache(maxsize=4096)
def _plain_number(text: str) -> float | None:
    found = _NUMBER.match(text)
    return None if found is None else float(found.group(1))


@lru_cache(maxsize=1024)
def _colour(value: str) -> tuple[int, int, int] | None:
    if value.strip() == "none":
        return None
    try:
        rgb = ImageColor.getrgb(value.strip())
    except ValueError:
        raise UnsupportedDrawing(f"colour {value!r}") from None
    if len(rgb) != 3:
        raise UnsupportedDrawing(f"colour {value!r} has an opacity")
    return rgb[0], rgb[1], rgb[2]


@lru_cache(maxsize=256)
def _font(bold: bool, pixels: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(_FONTS[bold], max(1.0, pixels))


def forget() -> None:
    """Drop the glyphs, widths and ops kept between drawings, so that the next drawing is
    drawn as a process's first would be (for a benchmark's "uncached" figures and for tests)."""
    _lettering.cache_clear()
    _words_mask.cache_clear()
    _width_at_100.cache_clear()
    _LEAF_OPS.clear()


def text_width(text: str, size: float, bold: bool = False) -> float:
    """How wide ``text`` is at ``size`` (DejaVu Sans, as drawn here and by resvg), in the
    same units as ``size``: measured at 100 units, so a small size is not rounded."""
    return _width_at_100(text, bold) * size / 100.0


@lru_cache(maxsize=4096)
def _width_at_100(text: str, bold: bool) -> float:
    """``text``'s width at 100 units, kept: a GIF's captions are wrapped word by word, and
    the same words come back in step after step."""
    return float(_font(bold, 100.0).getlength(text))


def _inherit(element: ET.Element, style: _Style) -> _Style:
    tag = element.tag.rpartition("}")[2]
    allowed = _GEOMETRY.get(tag)
    if allowed is None:
        raise UnsupportedDrawing(f"<{tag}>")
    for name in element.attrib:
        local = name.rpartition("}")[2]
        # data-* attributes only label a part (for the page's scripts): they draw nothing
        if (local not in allowed and local not in _INHERITED and local not in ("class", "id")
                and not local.startswith("data-")):
            raise UnsupportedDrawing(f"<{tag} {local}=…>")
    changes: dict[str, object] = {}
    if "fill" in element.attrib:
        changes["fill"] = element.attrib["fill"]
    if "stroke" in element.attrib:
        changes["stroke"] = element.attrib["stroke"]
    if "stroke-width" in element.attrib:
        changes["stroke_width"] = _number(element, "stroke-width")
    if "font-size" in element.attrib:
        changes["font_size"] = _number(element, "font-size")
    if "font-weight" in element.attrib:
        weight = element.attrib["font-weight"].strip()
        if weight not in ("bold", "normal", "700", "400", "bolder"):
            raise UnsupportedDrawing(f"font-weight {weight!r}")
        changes["bold"] = weight in ("bold", "700", "bolder")
    if "text-anchor" in element.attrib:
        anchor = element.attrib["text-anchor"].strip()
        if anchor not in ("start", "middle", "end"):
            raise UnsupportedDrawing(f"text-anchor {anchor!r}")
        changes["anchor"] = anchor
    family = element.get("font-family")
    if family is not None and family.strip().lower() not in _SANS:
        raise UnsupportedDrawing(f"font-family {family!r}")
    return replace(style, **changes) if changes else style  # type: ignore[arg-type]


def _viewport(element: ET.Element, style: _Style, width: float, height: float) -> _Style:
    """The mapping into a (nested) <svg>: its viewBox fitted into its width and height (in
    the parent's units), centred keeping its shape (SVG's default xMidYMid meet)."""
    box = element.get("viewBox")
    x, y = style.x(_number(element, "x")), style.y(_number(element, "y"))
    if box is None:
        return replace(style, dx=x, dy=y)
    try:
        left, top, box_width, box_height = (float(part) for part in box.replace(",", " ").split())
    except ValueError:
        raise UnsupportedDrawing(f"viewBox {box!r}") from None
    if box_width <= 0 or box_height <= 0:
        raise UnsupportedDrawing(f"viewBox {box!r}")
    fit = min(width / box_width, height / box_height)
    offset_x = x + (width - box_width * fit) * style.scale / 2
    offset_y = y + (height - box_height * fit) * style.scale / 2
    scale = style.scale * fit
    return replace(style, scale=scale, dx=offset_x - left * scale, dy=offset_y - top * scale)


Box = tuple[int, int, int, int]
Colour = tuple[int, int, int]


class _Op(NamedTuple):
    """One thing painted, in whole canvas pixels: what and with what (``args``, which decide
    every pixel it paints, so equal ops paint equal pixels) and the box it stays within."""
    paint: str
    args: tuple[Any, ...]
    box: Box


def _px(value: float) -> int:
    return int(math.floor(value + 0.5))


#: a leaf element's ops by its source and what it inherits: a GIF's frames repeat most of
#: their elements, and turning one into ops is most of a frame's Python time
_LEAF_OPS: OrderedDict[tuple[Any, ...], list[_Op]] = OrderedDict()
_LEAF_OPS_KEPT = 8192


def _source(element: ET.Element) -> tuple[Any, ...]:
    return (element.tag, tuple(element.attrib.items()), element.text, element.tail,
            tuple(map(_source, element)) if len(element) else ())


class _Flattener:
    """A drawing's elements as the list of ops that paint it, in painting order."""

    def __init__(self) -> None:
        self.ops: list[_Op] = []

    def element(self, element: ET.Element, style: _Style) -> None:
        tag = element.tag.rpartition("}")[2]
        if tag not in ("svg", "g"):
            key = (_source(element), style)
            cached = _LEAF_OPS.get(key)
            if cached is None:
                start = len(self.ops)
                self._leaf(tag, element, style)
                cached = _LEAF_OPS[key] = self.ops[start:]
                if len(_LEAF_OPS) > _LEAF_OPS_KEPT:
                    _LEAF_OPS.popitem(last=False)
            else:
                self.ops.extend(cached)
            return
        style = _inherit(element, style)
        if tag == "svg":
            width = _number(element, "width", 100.0)
            height = _number(element, "height", 100.0)
            style = _viewport(element, style, width, height)
        for child in element:
            self.element(child, style)

    def _leaf(self, tag: str, element: ET.Element, style: _Style) -> None:
        style = _inherit(element, style)
        if tag not in _SKIPPED:
            getattr(self, "_" + tag)(element, style)

    def _stroke(self, style: _Style) -> tuple[Colour | None, int]:
        colour = _colour(style.stroke)
        if colour is None or style.stroke_width <= 0:
            return None, 0
        return colour, max(1, _px(style.stroke_width * style.scale))

    def _rect(self, element: ET.Element, style: _Style) -> None:
        x, y = _number(element, "x"), _number(element, "y")
        width, height = _number(element, "width"), _number(element, "height")
        radius = _number(element, "rx", _number(element, "ry"))
        if width <= 0 or height <= 0:
            return
        fill, (stroke, pixels) = _colour(style.fill), self._stroke(style)
        half = style.stroke_width / 2 if stroke else 0.0
        box = (_px(style.x(x - half)), _px(style.y(y - half)),
               _px(style.x(x + width + half)) - 1, _px(style.y(y + height + half)) - 1)
        corner = _px((min(radius, width / 2, height / 2) + half) * style.scale) \
            if radius > 0 else 0
        self.ops.append(_Op("rect", (box, corner, fill, stroke, pixels), box))

    def _circle(self, element: ET.Element, style: _Style) -> None:
        cx, cy, r = _number(element, "cx"), _number(element, "cy"), _number(element, "r")
        if r <= 0:
            return
        fill, (stroke, pixels) = _colour(style.fill), self._stroke(style)
        half = style.stroke_width / 2 if stroke else 0.0
        box = (_px(style.x(cx - r - half)), _px(style.y(cy - r - half)),
               _px(style.x(cx + r + half)), _px(style.y(cy + r + half)))
        dashes = _dashes(element)
        arcs: tuple[tuple[float, float], ...] = ()
        if stroke is not None and dashes:
            degrees = 360 / (2 * math.pi * r)
            arcs = tuple((start * degrees, end * degrees)
                         for start, end in _dash_runs(2 * math.pi * r, dashes))
        inner = (_px(style.x(cx - r)), _px(style.y(cy - r)), _px(style.x(cx + r)),
                 _px(style.y(cy + r)))
        self.ops.append(_Op("ellipse", (box, inner, fill, stroke, pixels, arcs), box))

    def _line(self, element: ET.Element, style: _Style) -> None:
        stroke, pixels = self._stroke(style)
        if stroke is None:
            return
        x1, y1 = _number(element, "x1"), _number(element, "y1")
        x2, y2 = _number(element, "x2"), _number(element, "y2")
        length = math.hypot(x2 - x1, y2 - y1)
        dashes = _dashes(element)
        runs = _dash_runs(length, dashes) if dashes and length > 0 else [(0.0, length)]
        segments = []
        for start, end in runs:
            a, b = (start / length, end / length) if length else (0.0, 1.0)
            segments.append((_px(style.x(x1 + (x2 - x1) * a)), _px(style.y(y1 + (y2 - y1) * a)),
                             _px(style.x(x1 + (x2 - x1) * b)), _px(style.y(y1 + (y2 - y1) * b))))
        xs = [x for segment in segments for x in segment[0::2]]
        ys = [y for segment in segments for y in segment[1::2]]
        box = (min(xs) - pixels, min(ys) - pixels, max(xs) + pixels, max(ys) + pixels)
        self.ops.append(_Op("lines", (tuple(segments), stroke, pixels), box))

    def _polygon(self, element: ET.Element, style: _Style, closed: bool = True) -> None:
        try:
            numbers = [float(part) for part in
                       re.split(r"[\s,]+", element.get("points", "").strip()) if part]
        except ValueError:
            raise UnsupportedDrawing(f"points={element.get('points')!r}") from None
        points = tuple((_px(style.x(numbers[i])), _px(style.y(numbers[i + 1])))
                       for i in range(0, len(numbers) - 1, 2))
        if len(points) < 2:
            return
        fill, (stroke, pixels) = _colour(style.fill), self._stroke(style)
        if len(points) < 3:
            fill = None
        box = (min(x for x, _ in points) - pixels, min(y for _, y in points) - pixels,
               max(x for x, _ in points) + pixels, max(y for _, y in points) + pixels)
        self.ops.append(_Op("polygon", (points, fill, stroke, pixels, closed), box))

    def _polyline(self, element: ET.Element, style: _Style) -> None:
        if _colour(style.fill) is not None:
            raise UnsupportedDrawing("a filled <polyline>")
        self._polygon(element, style, closed=False)

    def _text(self, element: ET.Element, style: _Style) -> None:
        for (x, y, anchor), runs in _chunks(element, style):
            # word by word: the words repeat between frames where whole lines do not (a
            # caption, a count), and no font kerns across a space
            pieces = [((word, run.bold, round(run.font_size * run.scale, 1)), run)
                      for text, run in runs for word in _WORDS.split(text) if word]
            letterings = [_lettering(*piece) for piece, _ in pieces]
            width = sum(lettering.advance for lettering in letterings)
            left = style.x(x) - {"start": 0.0, "middle": width / 2, "end": width}[anchor]
            baseline = _px(style.y(y))
            painted = []
            for (piece, run), lettering in zip(pieces, letterings, strict=True):
                fill = _colour(run.fill)
                if fill is not None and lettering.mask is not None:
                    at = (_px(left) + lettering.left, baseline + lettering.top)
                    painted.append((piece, at, fill, (at[0] + lettering.mask.width,
                                                      at[1] + lettering.mask.height)))
                left += lettering.advance
            if painted:
                box = (painted[0][1][0], painted[0][1][1], painted[0][3][0], painted[0][3][1])
                for _, (x, y), _, (right, bottom) in painted[1:]:
                    box = (min(box[0], x), min(box[1], y), max(box[2], right),
                           max(box[3], bottom))
                self.ops.append(_Op("words" if _one_mask(painted) else "text",
                                    tuple(painted), box))


def _paint(canvas: Image.Image, ops: Sequence[_Op], left: int = 0, top: int = 0) -> None:
    """``ops`` painted on ``canvas``, whose top left is the drawing's (left, top): the same
    pixels wherever the canvas starts, since every op is in whole pixels."""
    draw = ImageDraw.Draw(canvas)

    def shift(box: Box) -> Box:
        return box[0] - left, box[1] - top, box[2] - left, box[3] - top

    for op in ops:
        if op.paint == "rect":
            box, corner, fill, stroke, pixels = op.args
            if corner > 0:
                draw.rounded_rectangle(shift(box), radius=corner, fill=fill, outline=stroke,
                                       width=pixels)
            else:
                draw.rectangle(shift(box), fill=fill, outline=stroke, width=pixels)
        elif op.paint == "ellipse":
            box, inner, fill, stroke, pixels, arcs = op.args
            if not arcs:
                draw.ellipse(shift(box), fill=fill, outline=stroke, width=pixels)
                continue
            if fill is not None:
                draw.ellipse(shift(inner), fill=fill)
            for start, end in arcs:
                draw.arc(shift(box), start, end, fill=stroke, width=pixels)
        elif op.paint == "lines":
            segments, stroke, pixels = op.args
            for x1, y1, x2, y2 in segments:
                draw.line([(x1 - left, y1 - top), (x2 - left, y2 - top)], fill=stroke,
                          width=pixels)
        elif op.paint == "polygon":
            points, fill, stroke, pixels, closed = op.args
            moved = [(x - left, y - top) for x, y in points]
            if fill is not None:
                draw.polygon(moved, fill=fill)
            if stroke is not None:
                draw.line(moved + (moved[:1] if closed else []), fill=stroke, width=pixels,
                          joint="curve")
        elif op.paint == "words":
            canvas.paste(op.args[0][2], (op.box[0] - left, op.box[1] - top),
                         _words_mask(op.args, op.box))
        else:
            for piece, (x, y), fill, (right, bottom) in op.args:
                # a repainted region meets few of a long text's words: the others would
                # paste nothing, at a Python call each
                if right > left and bottom > top and x < left + canvas.width and \
                        y < top + canvas.height:
                    canvas.paste(fill, (x - left, y - top), _lettering(*piece).mask)


_Piece = tuple[tuple[str, bool, float], tuple[int, int], Colour, tuple[int, int]]


def _one_mask(painted: Sequence[_Piece]) -> bool:
    """Whether a text's words can be painted through one mask: several words, one colour,
    no two masks sharing a pixel (then each pixel is painted by one word's coverage alone,
    as when the words are pasted one by one)."""
    if len(painted) < 2 or len({fill for _, _, fill, _ in painted}) > 1:
        return False
    return not any(x < other_right and other_x < right and y < other_bottom and other_y < bottom
                   for index, (_, (x, y), _, (right, bottom)) in enumerate(painted)
                   for _, (other_x, other_y), _, (other_right, other_bottom)
                   in painted[index + 1:])


@lru_cache(maxsize=4096)
def _words_mask(painted: tuple[_Piece, ...], box: Box) -> Image.Image:
    """A text's word masks side by side in one mask covering ``box``, kept: pasting a
    frame's ~85 words one by one is most of repainting it (Pillow's paste costs ~10x its
    pixels' work in Python), a mask a line is a quarter of the pastes."""
    mask = Image.new("L", (box[2] - box[0], box[3] - box[1]))
    for piece, (x, y), _, _ in painted:
        word = _lettering(*piece).mask
        if word is not None:
            mask.paste(word, (x - box[0], y - box[1]))
    return mask


class _Lettering(NamedTuple):
    """A string drawn once at one size: its coverage mask, where the mask's top left sits
    from the pen's start on the baseline, and how far the pen moves."""
    mask: Image.Image | None
    left: int
    top: int
    advance: float


@lru_cache(maxsize=2048)
def _lettering(text: str, bold: bool, pixels: float) -> _Lettering:
    """``text`` drawn by FreeType, kept: a GIF's frames repeat most of their words (the
    labels, the cards in hand), and drawing the glyphs is most of a frame's cost."""
    font = _font(bold, pixels)
    advance = float(font.getlength(text))
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor="ls"))
    if right <= left or bottom <= top:
        return _Lettering(None, 0, 0, advance)
    mask = Image.new("L", (right - left, bottom - top))
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor="ls")
    return _Lettering(mask, left, top, advance)


def _dashes(element: ET.Element) -> list[float]:
    text = element.get("stroke-dasharray", "none").strip()
    if text == "none":
        return []
    try:
        dashes = [float(part) for part in re.split(r"[\s,]+", text) if part]
    except ValueError:
        raise UnsupportedDrawing(f"stroke-dasharray {text!r}") from None
    if len(dashes) % 2:
        dashes *= 2
    if any(dash < 0 for dash in dashes) or sum(dashes) <= 0:
        raise UnsupportedDrawing(f"stroke-dasharray {text!r}")
    return dashes


def _dash_runs(length: float, dashes: list[float]) -> list[tuple[float, float]]:
    """The drawn stretches (start, end) along a stroke of ``length``, dashes from its start."""
    runs: list[tuple[float, float]] = []
    at, index = 0.0, 0
    while at < length:
        dash = dashes[index % len(dashes)]
        if index % 2 == 0 and dash > 0:
            runs.append((at, min(length, at + dash)))
        at += dash
        index += 1
    return runs


_Chunk = tuple[tuple[float, float, str], list[tuple[str, _Style]]]


def _chunks(element: ET.Element, style: _Style) -> Iterator[_Chunk]:
    """A <text>'s runs, grouped into chunks that start where an x or y is given (each chunk
    anchored on its own, as SVG does); whitespace collapsed, as SVG does by default."""
    position = [_number(element, "x"), _number(element, "y")]
    anchor = style.anchor
    runs: list[tuple[str, _Style]] = []

    def add(text: str | None, run: _Style) -> None:
        if text:
            runs.append((re.sub(r"\s+", " ", text), run))

    def flush() -> Iterator[_Chunk]:
        if runs:
            runs[0] = (runs[0][0].lstrip(), runs[0][1])
            runs[-1] = (runs[-1][0].rstrip(), runs[-1][1])
            yield (position[0], position[1], anchor), list(runs)
            runs.clear()

    add(element.text, style)
    for span in element:
        if span.tag.rpartition("}")[2] in _SKIPPED:
            add(span.tail, style)
            continue
        if span.tag.rpartition("}")[2] != "tspan" or len(span):
            raise UnsupportedDrawing("text other than <tspan> lines")
        run = _inherit(span, style)
        if "x" in span.attrib or "y" in span.attrib:
            yield from flush()
            position = [_number(span, "x", position[0]), _number(span, "y", position[1])]
            anchor = run.anchor
        add(span.text, run)
        add(span.tail, style)
    yield from flush()


class FlatDrawing(NamedTuple):
    """A drawing as ops: its size in pixels, its background, what is painted on it, and how
    many times larger than its size the ops are (they are painted so, then shrunk)."""
    size: tuple[int, int]
    background: Colour
    ops: list[_Op]
    supersample: int


def flatten_svg(svg: str, width: int | None = None, zoom: float | None = None,
                background: str | None = None, supersample: int = SUPERSAMPLE) -> FlatDrawing:
    """``svg`` as the ops that paint it ``width`` pixels wide (or ``zoom`` times its own
    size) over ``background`` (default white), edges antialiased by ``supersample`` (1: none,
    for a large picture where they do not show). Raises UnsupportedDrawing for SVG this
    module does not draw, or when the DejaVu fonts are not installed."""
    if not all(Path(path).is_file() for path in _FONTS.values()):
        raise UnsupportedDrawing("the DejaVu Sans fonts are not installed")
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as e:
        raise UnsupportedDrawing(f"not well-formed: {e}") from None
    if root.tag.rpartition("}")[2] != "svg":
        raise UnsupportedDrawing("the root is not <svg>")
    own_width, own_height = _number(root, "width", 0.0), _number(root, "height", 0.0)
    if own_width <= 0 or own_height <= 0:
        raise UnsupportedDrawing("the drawing has no width and height")
    scale = width / own_width if width is not None else (zoom or 1.0)
    size = (max(1, round(own_width * scale)), max(1, round(own_height * scale)))
    flattener = _Flattener()
    flattener.element(root, _Style(scale=scale * supersample))
    return FlatDrawing(size, _colour(background or "#ffffff") or (255, 255, 255),
                       flattener.ops, supersample)


def paint(drawing: FlatDrawing) -> Image.Image:
    """The whole drawing, as an RGB picture of its size."""
    times = drawing.supersample
    canvas = Image.new("RGB", (drawing.size[0] * times, drawing.size[1] * times),
                       drawing.background)
    _paint(canvas, drawing.ops)
    return canvas.reduce(times) if times > 1 else canvas


def draw_svg(svg: str, width: int | None = None, zoom: float | None = None,
             background: str | None = None, supersample: int = SUPERSAMPLE) -> Image.Image:
    """``svg`` drawn as an RGB picture (flatten_svg's arguments and refusals)."""
    return paint(flatten_svg(svg, width, zoom, background, supersample))


class FrameDrawer:
    """The frames of one animation, drawn one after another: each repaints only the regions
    where its ops differ from the frame before (a step changes a few numbers and a card or
    two), with the ops that reach into them, in order. Since ops are in whole pixels and the
    regions start on whole supersampled pixels, a frame is the same, pixel for pixel, as the
    drawing painted whole (tests/web/viewer/test_flatsvg.py compares every step)."""

    #: past this share of the picture changed, the frame is painted whole
    WHOLE_FROM = 0.6

    def __init__(self) -> None:
        # the last frame and its picture, as one value: two threads drawing at once (which
        # the server does not do) would repaint more than they need, never a wrong frame
        self._last: tuple[FlatDrawing, Image.Image] | None = None
        #: how the last picture drawn came about: (the picture drawn before it, the boxes
        #: repainted on a copy of that, in the picture's pixels, the picture), or None where
        #: it was painted whole; what else is kept from a frame (its GIF colours) need only
        #: be found again in those boxes
        self.repainted: tuple[Image.Image, list[Box], Image.Image] | None = None

    def draw(self, drawing: FlatDrawing) -> Image.Image:
        """``drawing`` as an RGB picture (kept for the next frame: do not change it)."""
        last, picture = self._last if self._last is not None else (None, None)
        repainted = None
        if last is None or picture is None or last.size != drawing.size or \
                last.background != drawing.background or \
                last.supersample != drawing.supersample:
            picture = paint(drawing)
        else:
            regions = changed_regions(last, drawing)
            area = sum((right - left) * (bottom - top) for left, top, right, bottom in regions)
            whole = drawing.size[0] * drawing.size[1] * drawing.supersample ** 2
            if area > self.WHOLE_FROM * whole:
                picture = paint(drawing)
            else:
                before, times = picture, drawing.supersample
                if regions:
                    picture = picture.copy()
                    for region in regions:
                        _repaint(picture, drawing, region)
                # regions start and end on whole supersampled pixels (or the picture's edge)
                repainted = (before, [(left // times, top // times, right // times,
                                       bottom // times)
                                      for left, top, right, bottom in regions], picture)
        self._last = drawing, picture
        self.repainted = repainted
        return picture


def _repaint(picture: Image.Image, drawing: FlatDrawing, region: Box) -> None:
    left, top, right, bottom = region
    canvas = Image.new("RGB", (right - left, bottom - top), drawing.background)
    _paint(canvas, [op for op in drawing.ops if op.box[0] <= right and left <= op.box[2] and
                    op.box[1] <= bottom and top <= op.box[3]], left, top)
    times = drawing.supersample
    picture.paste(canvas.reduce(times) if times > 1 else canvas, (left // times, top // times))


def changed_regions(before: FlatDrawing, after: FlatDrawing) -> list[Box]:
    """Where ``after`` may differ from ``before``: the boxes of the ops either has and the
    other does not (in painting order), widened to whole supersampled pixels and a margin, clipped
    to the picture, overlapping ones merged."""
    times = after.supersample
    width, height = after.size[0] * times, after.size[1] * times
    boxes = [op.box for op in _unshared_ops(before.ops, after.ops)]
    margin = times + 1
    regions: list[Box] = []
    for left, top, right, bottom in boxes:
        region = (max(0, (left - margin) // times * times),
                  max(0, (top - margin) // times * times),
                  min(width, -(-(right + margin) // times) * times),
                  min(height, -(-(bottom + margin) // times) * times))
        if region[0] >= region[2] or region[1] >= region[3]:
            continue
        merging = True
        while merging:  # a region that grows may meet one it did not before
            merging = False
            left, top, right, bottom = region
            for index, (other_left, other_top, other_right, other_bottom) in enumerate(regions):
                # touching counts (boxes include their edges): an op whose edge meets a
                # region is painted in it
                if left <= other_right and other_left <= right and top <= other_bottom and \
                        other_top <= bottom:
                    region = (min(left, other_left), min(top, other_top),
                              max(right, other_right), max(bottom, other_bottom))
                    del regions[index]
                    merging = True
                    break
        regions.append(region)
    return regions


def _unshared_ops(before: Sequence[_Op], after: Sequence[_Op]) -> list[_Op]:
    """The ops of ``before`` and of ``after`` outside a common subsequence of both, by
    identity: an element seen before yields the very ops it did (the leaf cache), and two ops
    that are equal but not the same only cost a repaint, never a wrong pixel.

    Mostly a frame's ops are the last frame's less some, plus some, the rest in the same
    order: then the ops in only one of them are the answer (every pixel outside their boxes
    is painted by the same ops in the same order in both), found with two sets. Otherwise (an
    op twice in a frame, the shared ones reordered) difflib finds the common subsequence."""
    before_ids, after_ids = [id(op) for op in before], [id(op) for op in after]
    in_before, in_after = set(before_ids), set(after_ids)
    if len(in_before) == len(before_ids) and len(in_after) == len(after_ids) and \
            [key for key in before_ids if key in in_after] == \
            [key for key in after_ids if key in in_before]:
        return [op for op in before if id(op) not in in_after] + \
            [op for op in after if id(op) not in in_before]
    matcher = SequenceMatcher(None, before_ids, after_ids, autojunk=False)
    unshared: list[_Op] = []
    for tag, first, last, start, end in matcher.get_opcodes():
        if tag != "equal":
            unshared.extend(before[first:last])
            unshared.extend(after[start:end])
    return unshared
