"""Link previews: the board at a step as a PNG, for the match page's ``og:image``.

The game's own SVG is drawn by raster.py (Pillow's flatsvg for the games' flat drawings, resvg
for anything else) without supersampling: at 1200 px a shape's edge shows no steps worth four
times the pixels, and the text is antialiased by FreeType anyway. The PNG is written here, its
rows unfiltered and deflated at zlib's fastest level (png_bytes: under half the time Pillow's
writer takes, which tries every row filter on every row, and no larger for a flat drawing).
The PNGs are kept in a small LRU keyed by the match and the step, since a shared link is
fetched by every chat app and crawler it is pasted into, and a drawing never changes once its
match is sealed.
"""

from __future__ import annotations

import re
import struct
import zlib
from typing import Any

from PIL import Image

from .matches import MatchCache
from .raster import svg_to_image

__all__ = ["PREVIEW_WIDTH", "PreviewError", "png_bytes", "preview_png"]

#: link previews are drawn with this many pixels on their longer side (Open Graph's
#: recommended width), keeping the drawing's own shape
PREVIEW_WIDTH = 1200
_VIEWBOX = re.compile(r'<svg[^>]*\bviewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"')
#: PNGs kept (a two-seat card duel's is ~100 kB, so this bounds the cache near 25 MB)
PREVIEW_CACHE_SIZE = 256
_BACKGROUND = "#ffffff"


class PreviewError(ValueError):
    """The drawing could not be rendered to PNG (resvg refused it)."""


def render_png(svg: str, longest: int = PREVIEW_WIDTH) -> bytes:
    """``svg`` as PNG bytes, ``longest`` pixels on its longer side (a tall board
    is not blown up to 1200 pixels wide: rendering time grows with the pixels)."""
    found = _VIEWBOX.search(svg)
    if found is None:
        raise PreviewError("the drawing has no viewBox to scale from")
    width, height = float(found.group(1)), float(found.group(2))
    if width <= 0 or height <= 0:
        raise PreviewError("the drawing has an empty viewBox")
    try:
        picture = svg_to_image(svg, zoom=longest / max(width, height), background=_BACKGROUND,
                               supersample=1)
    except ValueError as e:
        raise PreviewError(f"the drawing could not be rendered: {e}") from None
    return png_bytes(picture)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(picture: Image.Image, level: int = 1) -> bytes:
    """``picture`` as a PNG (8-bit RGB, no interlacing, PNG spec 11.2.2), every row with
    filter type 0 (none) and the whole deflated at zlib ``level``: the same pixels as Pillow's
    PNG, decoded by anything. Why not Pillow's writer: for an RGB picture it tries all five
    row filters on every row and keeps the best (its ``optimize`` and ``compress_level`` do
    not change that): 18 ms of a 1200-px board, 13 ms even stored uncompressed, against 6-8 ms
    here (docs/browser.md); a flat drawing's long runs of one colour compress as well
    unfiltered.

    >>> from PIL import Image
    >>> import io
    >>> board = Image.new("RGB", (3, 2), (0, 128, 255))
    >>> Image.open(io.BytesIO(png_bytes(board))).convert("RGB").tobytes() == board.tobytes()
    True
    """
    rgb = picture if picture.mode == "RGB" else picture.convert("RGB")
    width, height = rgb.size
    pixels = memoryview(rgb.tobytes())
    stride = width * 3
    # each row is preceded by its filter type, 0
    rows = b"\x00".join([b"", *(pixels[top:top + stride]
                                 for top in range(0, len(pixels), stride))])
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB (colour type 2)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) +
            _chunk(b"IDAT", zlib.compress(rows, level)) + _chunk(b"IEND", b""))


def preview_png(cache: MatchCache, key: tuple[Any, ...], svg: Any) -> bytes:
    """The PNG for ``key`` (match key and step), rendered from ``svg()`` on a miss."""
    png: bytes = cache.get(repr(key), lambda: render_png(str(svg())))
    return png
