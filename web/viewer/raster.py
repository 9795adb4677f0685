"""SVG to pixels with resvg (resvg-py, a wheel with no system library behind it), for the GIF
frames (animation.py) and the link previews (preview.py) alike.

Both hand resvg the same fonts: DejaVu Sans and its bold, when installed, instead of letting it
scan every system font on each call (it keeps no font database between calls). Where DejaVu is
missing, resvg finds what the system has.

What a drawing costs was measured (bench/bench_pictures.py): loading the two font files is
about 1 ms a call; the rest is resvg's own rasterising and PNG encoding, which grow with the
pixels and the text, so a frame is drawn directly at its final size, never drawn large and
shrunk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import resvg_py

__all__ = ["FONT_FILES", "font_options", "svg_to_png"]

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
    """``svg`` as PNG bytes, sized by resvg's own arguments (``width=``, ``zoom=``,
    ``background=``), with font_options(). resvg's refusal is its ``ValueError``."""
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, **size, **font_options()))
