"""Benchmark: an animated replay of a long match — its size and the time to draw it.

The match is bench_browser_verify's 300-event two-tower duel; the anchor is drawing the
steps' SVG alone (render_svg), in the same run, since the machine may be loaded; wall time and
CPU time (this process's and its drawing processes', which the load disturbs least) for both.

    python bench/bench_gif.py
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

from PIL import Image

from fairdeal.web.viewer.animation import MAX_GIF_FRAMES, match_gif
from fairdeal.web.viewer.matches import load_bundle

sys.path.insert(0, str(Path(__file__).parent))
from bench_browser_verify import long_match  # noqa: E402
from benchlib import cpu_seconds  # noqa: E402


def main() -> None:
    match = load_bundle(long_match(300))
    # a GIF holds at most MAX_GIF_FRAMES frames (issue 18): the longest one there can be
    steps = min(match.last_step + 1, MAX_GIF_FRAMES)
    t0, c0 = time.perf_counter(), cpu_seconds()
    for number in range(steps):
        match.game.render_svg(match.steps[number].state, None)
    svg_seconds, svg_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    t0, c0 = time.perf_counter(), cpu_seconds()
    data = match_gif(match, 0, steps - 1)
    gif_seconds, gif_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    print(f"match: {len(match.events)} events, {steps} steps drawn (load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    width = Image.open(io.BytesIO(data)).width
    print(f"GIF: {width} px wide, {steps} frames, {len(data) / 1024:.0f} kB "
          f"({len(data) / steps / 1024:.1f} kB a frame)")
    print(f"drawn in {gif_seconds:.1f} s ({gif_seconds / steps * 1000:.0f} ms a frame); "
          f"anchor render_svg alone {svg_seconds / steps * 1000:.1f} ms a step "
          f"(ratio {gif_seconds / svg_seconds:.0f}x)")
    print(f"CPU: {gif_cpu:.2f} s, all processes; anchor {svg_cpu:.3f} s "
          f"(ratio {gif_cpu / svg_cpu:.0f}x)")


if __name__ == "__main__":
    main()
