"""Benchmark: what a picture costs — a GIF frame by its parts, a long match's first GIF, and
an og:image preview uncached.

    python bench/bench_pictures.py [--runs 5] [--frames 12]

The match is bench_browser_verify's ~300-event two-tower duel (327 steps). Every figure is a
median of ``--runs`` runs, the variants alternating within each run, with the anchor (the
game's own ``render_svg``, which the pictures start from) measured in the same run, since the
machine may be loaded:

- a frame's parts: its SVG (the drawing and the strip), resvg's rasterising to PNG, the PNG
  decoded to RGB, and the GIF encoding (one palette, quantising, the delta frames) a frame;
- the first GIF of the match (no range: its last MAX_GIF_FRAMES steps), its frames drawn by
  the calling process alone and by ``drawing_processes`` processes; the bytes must be equal;
- the og:image PNG uncached (``render_png``, the fonts handed in) against resvg scanning the
  system's fonts itself, as previews were drawn before.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import resvg_py
from PIL import Image

from fairdeal.web.viewer.animation import (
    MAX_GIF_FRAMES,
    WIDTH,
    drawing_processes,
    match_gif,
    parse_steps,
)
from fairdeal.web.viewer.matches import LoadedMatch, load_bundle
from fairdeal.web.viewer.preview import PREVIEW_WIDTH, render_png
from fairdeal.web.viewer.raster import svg_to_png

sys.path.insert(0, str(Path(__file__).parent))
from bench_browser_verify import long_match  # noqa: E402


def timed(work: Callable[[], Any], repeat: int = 1) -> float:
    """Seconds a call of ``work``, the mean of ``repeat`` calls."""
    start = time.perf_counter()
    for _ in range(repeat):
        work()
    return (time.perf_counter() - start) / repeat


def frame_parts(match: LoadedMatch, frames: int) -> dict[str, float]:
    """Milliseconds a frame for each part, over the match's first ``frames`` steps."""
    steps = range(frames)
    svgs: list[str] = []
    pngs: list[bytes] = []
    # the frame's SVG as the GIF draws it: a one-frame GIF's drawing minus its rasterising
    # is not separable from outside, so the drawing alone stands for it (the strip is text)
    parts = {"render_svg (anchor)": timed(lambda: [svgs.append(match.game.render_svg(
        match.steps[n].state, None)) for n in steps])}
    parts["resvg rasterise to PNG"] = timed(lambda: [pngs.append(svg_to_png(svg, width=WIDTH))
                                                     for svg in svgs])
    parts["PNG decoded to RGB"] = timed(lambda: [Image.open(io.BytesIO(png)).convert("RGB")
                                                 for png in pngs])
    one = timed(lambda: match_gif(match, 0, frames - 1, processes=1))
    parts["GIF encoding (the rest)"] = one - parts["resvg rasterise to PNG"] - \
        parts["PNG decoded to RGB"] - parts["render_svg (anchor)"]
    parts["a whole frame"] = one
    return {name: seconds / frames * 1000 for name, seconds in parts.items()}


def old_preview(svg: str) -> bytes:
    """The og:image as drawn before: resvg left to scan the system's fonts on each call."""
    zoom = PREVIEW_WIDTH / 820  # the two-tower board's width
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff"))


def run_once(match: LoadedMatch, args: argparse.Namespace) -> dict[str, float]:
    """One run: every figure once, the variants alternating."""
    first, last = parse_steps(None, match.last_step)
    processes = drawing_processes(last - first + 1)
    figures = frame_parts(match, args.frames)
    board = str(match.svg(match.last_step, None))
    figures["og:image: the SVG alone (anchor) ms"] = timed(lambda: match.game.render_svg(
        match.steps[-1].state, None), 5) * 1000
    figures["og:image before (system fonts) ms"] = timed(lambda: old_preview(board), 3) * 1000
    figures["og:image uncached now ms"] = timed(lambda: render_png(board), 3) * 1000
    gifs: dict[int, bytes] = {}
    for count in (1, processes):
        start = time.perf_counter()
        gifs[count] = match_gif(match, first, last, processes=count)
        figures[f"first GIF, {count} process(es) s"] = time.perf_counter() - start
    assert gifs[1] == gifs[processes], "the GIF's bytes depend on how many processes drew it"
    figures["first GIF kB"] = len(gifs[1]) / 1024
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--frames", type=int, default=12, help="frames timed by their parts")
    args = parser.parse_args()
    match = load_bundle(long_match(300))
    first, last = parse_steps(None, match.last_step)
    runs = [run_once(match, args) for _ in range(args.runs)]
    print(f"match: {len(match.events)} events, {match.last_step + 1} steps; first GIF: steps "
          f"{first} to {last} ({last - first + 1} frames, at most {MAX_GIF_FRAMES}), {WIDTH} px "
          f"wide; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians "
          f"of {args.runs} runs")
    anchor = statistics.median(run["render_svg (anchor)"] for run in runs)
    for name in runs[0]:
        value = statistics.median(run[name] for run in runs)
        unit = "" if name.endswith(("ms", " s", "kB")) else " ms a frame"
        ratio = f"   ({value / anchor:6.1f}x render_svg)" if unit else ""
        print(f"{name:>42}: {value:9.2f}{unit}{ratio}")


if __name__ == "__main__":
    main()
