"""SVG to pixels, for the GIF frames (animation.py) and the link previews (preview.py) alike.

The games' drawings are flat shapes and text, which flatsvg.py draws with Pillow in a few
milliseconds; anything it does not draw (a plug-in's gradient, a transform) is drawn by resvg
(resvg-py, a wheel with no system library behind it), ~10-30x slower but complete. Both use
DejaVu Sans: resvg is handed its files instead of scanning every system font on each call (it
keeps no font database between calls); where DejaVu is missing, resvg finds what the system
has.

What a drawing costs was measured (bench/bench_pictures.py): resvg-py's rasterising and PNG
encoding grow with the pixels (an empty 480-px canvas is ~9 ms) and the text (about half of a
frame's ~120 ms); flatsvg keeps each string's glyphs once drawn, so a GIF's repeated labels
cost a paste. Pictures are drawn directly at their final size, never drawn large and shrunk
(but for flatsvg's 2x supersampling of the shapes' edges).
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import resvg_py
from PIL import Image

from .flatsvg import SUPERSAMPLE, FrameDrawer, UnsupportedDrawing, flatten_svg, paint

__all__ = ["FONT_FILES", "font_options", "svg_to_image", "svg_to_png"]

log = logging.getLogger(__name__)

#: fonts to hand resvg directly (loading every system font costs more than a GIF frame)
FONT_FILES = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
              "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def font_options() -> dict[str, Any]:
    """resvg's font arguments: DejaVu Sans as every sans-serif text, when it is installed,
    else nothing (resvg then loads the system's fonts itself)."""
    fonts = [path for path in FONT_FILES if Path(path).is_file()]
    if not fonts:
        return {}
    return {"skip_system_fonts": True, "font_files": fonts, "font_family": "DejaVu Sans",
            "sans_serif_family": "DejaVu Sans"}


def svg_to_png(svg: str, **size: Any) -> bytes:
    """``svg`` as PNG bytes drawn by resvg, sized by resvg's own arguments (``width=``,
    ``zoom=``, ``background=``), with font_options(). resvg's refusal is its ``ValueError``."""
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, **size, **font_options()))


def svg_to_image(svg: str, *, width: int | None = None, zoom: float | None = None,
                 background: str = "#ffffff", frames: FrameDrawer | None = None,
                 supersample: int = SUPERSAMPLE) -> Image.Image:
    """``svg`` as an RGB picture ``width`` pixels wide (or ``zoom`` times its own size) over
    ``background``: drawn by flatsvg where it can (by ``frames``, for the next frame of an
    animation: only what changed is repainted), else by resvg (a ``ValueError`` if resvg
    refuses it too); ``supersample`` is flatsvg's antialiasing (1: none)."""
    try:
        drawing = flatten_svg(svg, width=width, zoom=zoom, background=background,
                              supersample=supersample)
        return frames.draw(drawing) if frames is not None else paint(drawing)
    except UnsupportedDrawing as e:
        log.debug("drawing with resvg: %s", e)
    size: dict[str, Any] = {"width": width} if width is not None else {"zoom": zoom or 1.0}
    with Image.open(io.BytesIO(svg_to_png(svg, **size, background=background))) as png:
        return png.convert("RGB")
