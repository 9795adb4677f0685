"""Benchmark: what a picture costs — the first GIF of a whole long match, a frame by its parts,
and an og:image preview uncached — against the game's own ``render_svg`` in the same run.

    python bench/bench_pictures.py [--runs 5] [--frames 12]

The match is bench_browser_verify's ~300-event two-tower duel (327 steps, the longest seeded
one); with no range its first GIF is the whole match (MAX_GIF_FRAMES is 400). Every figure is
a median of ``--runs`` runs, the variants alternating within each run, with the anchor (the
game's own ``render_svg``, which every picture starts from) measured in the same run, since the
machine may be loaded; each figure is given as wall time and as CPU time (``time.process_time``,
plus the drawing processes' CPU by ``getrusage`` for a GIF drawn by several: the CPU is what the
load disturbs least). "Uncached" is honest: before each GIF and each preview, flatsvg's kept
glyphs and ops are dropped (flatsvg.forget), as in a process that has drawn nothing yet.

- the first GIF of the match, its frames drawn by the calling process alone and by
  ``drawing_processes`` processes (the bytes must be equal);
- the way frames were drawn before (resvg-py rasterising to PNG, then decoding it), timed on
  ``--frames`` frames and scaled to the match: what the same GIF's drawing alone would cost;
- a frame's parts now: its SVG, flatsvg's ops, painting (whole, and only where it changed);
- the og:image PNG uncached, now (flatsvg, no supersampling, zlib level 1) and by resvg: in
  a process that has drawn nothing, and for a step not drawn before in a process that has
  drawn the match's other steps (what a server mostly meets: the words' glyphs are kept).
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

from PIL import Image

from fairdeal.web.viewer import flatsvg
from fairdeal.web.viewer.animation import (
    MAX_GIF_FRAMES,
    drawing_processes,
    match_gif,
    parse_steps,
)
from fairdeal.web.viewer.captions import caption_lines, frame_svg, frame_width
from fairdeal.web.viewer.matches import LoadedMatch, load_bundle
from fairdeal.web.viewer.preview import PREVIEW_WIDTH, render_png
from fairdeal.web.viewer.raster import svg_to_png

sys.path.insert(0, str(Path(__file__).parent))
from bench_browser_verify import long_match  # noqa: E402
from benchlib import cpu_seconds  # noqa: E402

#: CPU seconds of each figure timed, by its name (filled by run_once beside the wall times)
CPU: dict[str, float] = {}


def timed(work: Callable[[], Any], repeat: int = 1, name: str | None = None) -> float:
    """Seconds a call of ``work``, the mean of ``repeat`` calls; with ``name``, its CPU
    seconds a call are kept in CPU[name]."""
    start, cpu = time.perf_counter(), cpu_seconds()
    for _ in range(repeat):
        work()
    if name is not None:
        CPU[name] = (cpu_seconds() - cpu) / repeat
    return (time.perf_counter() - start) / repeat


def frame_svgs(match: LoadedMatch, count: int) -> tuple[list[str], int]:
    """The first ``count`` frames' SVGs, as match_gif builds them, and their width."""
    drawings = [match.svg(n, None) for n in range(count)]
    width = frame_width(drawings[0])
    captions = [caption_lines(n, match.last_step, match.steps[n].caption, width)
                for n in range(count)]
    lines = max(len(caption) for caption in captions)
    return [frame_svg(d, c, width, lines) for d, c in zip(drawings, captions, strict=True)], width


def frame_parts(match: LoadedMatch, frames: int) -> dict[str, float]:
    """Milliseconds a frame for each part, over the match's first ``frames`` steps."""
    steps = range(frames)
    svgs, width = frame_svgs(match, frames)
    flatsvg.forget()
    parts = {"frame: render_svg (anchor)": timed(lambda: [match.game.render_svg(
        match.steps[n].state, None) for n in steps])}
    drawings: list[flatsvg.FlatDrawing] = []
    parts["frame: SVG to ops (flatsvg, uncached)"] = timed(lambda: drawings.extend(
        flatsvg.flatten_svg(svg, width=width) for svg in svgs))
    parts["frame: painted whole"] = timed(lambda: [flatsvg.paint(d) for d in drawings])
    frames_drawer = flatsvg.FrameDrawer()
    parts["frame: painted where it changed"] = timed(lambda: [frames_drawer.draw(d)
                                                             for d in drawings])
    parts["frame: before, resvg to PNG and decoded"] = timed(lambda: [
        Image.open(io.BytesIO(svg_to_png(svg, width=width))).convert("RGB") for svg in svgs])
    return {name: seconds / frames * 1000 for name, seconds in parts.items()}


def old_preview(svg: str) -> bytes:
    """The og:image as drawn before: resvg (given the fonts), its own PNG."""
    return svg_to_png(svg, zoom=PREVIEW_WIDTH / 820, background="#ffffff")  # 820: the board


def uncached_preview(svg: str) -> bytes:
    """A preview in a process that has drawn nothing yet: no glyph, no op kept."""
    flatsvg.forget()
    return render_png(svg)


def another_steps_preview(match: LoadedMatch, step: int) -> Callable[[], bytes]:
    """A step's preview not drawn before, in a process that has drawn the match's other
    steps (as a server has, drawing previews all day): their words' glyphs are kept."""
    flatsvg.forget()
    for other in range(0, match.last_step, max(1, match.last_step // 10)):
        if other != step:
            render_png(str(match.svg(other, None)))
    board = str(match.svg(step, None))
    return lambda: render_png(board)


def run_once(match: LoadedMatch, args: argparse.Namespace) -> dict[str, float]:
    """One run: every figure once, the variants alternating."""
    first, last = parse_steps(None, match.last_step)
    processes = drawing_processes(last - first + 1)
    figures = frame_parts(match, args.frames)
    board = str(match.svg(match.last_step, None))
    name = "og:image: render_svg (anchor) ms"
    figures[name] = timed(lambda: match.game.render_svg(match.steps[-1].state, None), 5,
                          name) * 1000
    name = "og:image uncached now, nothing kept ms"
    figures[name] = timed(lambda: uncached_preview(board), 3, name) * 1000
    name = "og:image uncached now, another step ms"
    figures[name] = timed(another_steps_preview(match, match.last_step), 1, name) * 1000
    name = "og:image before (resvg) ms"
    figures[name] = timed(lambda: old_preview(board), 3, name) * 1000
    name = "GIF: render_svg of every step (anchor) s"
    figures[name] = timed(lambda: [match.game.render_svg(match.steps[n].state, None)
                                   for n in range(first, last + 1)], 1, name)
    gifs: dict[int, bytes] = {}
    for count in dict.fromkeys((1, processes)):
        flatsvg.forget()
        name = f"first GIF, {count} process(es) s"
        figures[name] = timed(lambda count=count: gifs.__setitem__(count, match_gif(
            match, first, last, processes=count)), 1, name)
    assert gifs[1] == gifs[processes], "the GIF's bytes depend on how many processes drew it"
    figures["first GIF kB"] = len(gifs[1]) / 1024
    figures["first GIF before (resvg frames alone, est.) s"] = \
        figures["frame: before, resvg to PNG and decoded"] * (last - first + 1) / 1000
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--frames", type=int, default=12, help="frames timed by their parts")
    args = parser.parse_args()
    match = load_bundle(long_match(300))
    first, last = parse_steps(None, match.last_step)
    width = frame_width(match.svg(first, None))
    runs, cpus = [], []
    for _ in range(args.runs):
        runs.append(run_once(match, args))
        cpus.append(dict(CPU))
    print(f"match: {len(match.events)} events, {match.last_step + 1} steps; first GIF: steps "
          f"{first} to {last} ({last - first + 1} frames, at most {MAX_GIF_FRAMES}), {width} px "
          f"wide; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians "
          f"of {args.runs} runs")
    medians = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
    anchors = {"GIF": medians["GIF: render_svg of every step (anchor) s"],
               "og:image": medians["og:image: render_svg (anchor) ms"],
               "frame": medians["frame: render_svg (anchor)"]}
    cpu = {name: statistics.median(run[name] for run in cpus) for name in cpus[0]}
    for name, value in medians.items():
        unit = "" if name.endswith(("ms", " s", "kB")) else " ms a frame"
        family = next((key for key in anchors if key in name.split(",")[0]), None)
        ratio = f"   ({value / anchors[family]:7.1f}x its anchor)" if family and \
            not name.endswith("kB") else ""
        print(f"{name:>48}: {value:9.3f}{unit}{ratio}")
        if name in cpu:
            anchor = next(cpu[key] for key in cpu if key.startswith(family or "?") and
                          "anchor" in key) if family else None
            ratio = f"   ({cpu[name] / anchor:7.1f}x its anchor's CPU)" if anchor else ""
            scale = 1000 if name.endswith("ms") else 1
            print(f"{'CPU':>48}: {cpu[name] * scale:9.3f}{ratio}")


if __name__ == "__main__":
    main()
