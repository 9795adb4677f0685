"""Link previews: the board at a step as a PNG, for the match page's ``og:image``.

The game's own SVG is drawn by raster.py (Pillow's flatsvg for the games' flat drawings, resvg
for anything else) without supersampling: at 1200 px a shape's edge shows no steps worth four
times the pixels, and the text is antialiased by FreeType anyway; the PNG is written with
zlib's fastest level (a flat picture compresses well at any). The PNGs are kept in a small LRU
keyed by the match and the step, since a shared link is fetched by every chat app and crawler
it is pasted into, and a drawing never changes once its match is sealed.
"""

from __future__ import annotations

import io
import re
from typing import Any

from .matches import MatchCache
from .raster import svg_to_image

__all__ = ["PREVIEW_WIDTH", "PreviewError", "preview_png"]

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
    out = io.BytesIO()
    picture.save(out, "PNG", compress_level=1)
    return out.getvalue()


def preview_png(cache: MatchCache, key: tuple[Any, ...], svg: Any) -> bytes:
    """The PNG for ``key`` (match key and step), rendered from ``svg()`` on a miss."""
    png: bytes = cache.get(repr(key), lambda: render_png(str(svg())))
    return png
