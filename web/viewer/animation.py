"""Animated replays: one GIF frame a step, drawn by the game's own ``render_svg`` and
rasterised by raster.py (Pillow's flatsvg, repainting only what changed from the frame before;
resvg for what flatsvg does not draw); sized for a chat message.

Each frame is the step's drawing (from a seat's view, or the spectator's with everything
revealed, as the match page shows it) over a strip naming the step and what happened, wrapped
clear of the watermark (captions.py). Frames are 480 px wide — what chat apps show inline
without a click — or wider, up to 720, where the drawing's text would be too small to read,
and share one palette, so Pillow stores only what changed from the frame before: a card duel
costs about 11 kB a step at 656 px, a 327-step match about 3.7 MB (docs/browser.md has the
measured figures).
"""

from __future__ import annotations

import io
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from PIL import Image

from fairdeal.verifier.verify import chain_hashes

from .captions import MIN_WIDTH, caption_lines, frame_svg, frame_width
from .flatsvg import FrameDrawer
from .matches import LoadedMatch
from .raster import svg_to_image

__all__ = ["FRAME_MS", "LAST_FRAME_MS", "MAX_DRAWING_PROCESSES", "MAX_GIF_FRAMES",
           "RENDERER_VERSION", "WIDTH", "StepRangeError", "drawing_processes", "frame_ms",
           "gif_key", "match_gif", "parse_steps"]

log = logging.getLogger(__name__)

#: the narrowest frame in pixels (wider where the drawing's text needs it: captions.py); the
#: height follows each game's drawing
WIDTH = MIN_WIDTH
#: how long a step stays on screen, and the final one (so the result can be read); a long
#: match steps faster, down to MIN_FRAME_MS, so the clip stays near CLIP_MS
FRAME_MS = 900
MIN_FRAME_MS = 200
LAST_FRAME_MS = 3000
CLIP_MS = 60_000
#: a GIF's frames are drawn by this many processes at most, one a core (drawing holds the
#: GIL): with one drawing at a time per server process, a GIF keeps at most two cores busy
MAX_DRAWING_PROCESSES = 2
#: fewer frames than this are drawn in the calling process: starting the others costs more
_PARALLEL_FROM = 8
#: a GIF holds at most this many frames, so that the longest seeded match is one GIF: each
#: costs about 10-20 ms of a core to draw and encode, by the load (bench/bench_pictures.py),
#: so an anonymous request may ask for ~4-8 s of a core at most; a longer match's GIF without
#: a range shows its last MAX_GIF_FRAMES steps
MAX_GIF_FRAMES = 400
#: what else than the match, the range and the view decides a GIF's bytes: bump it when the
#: drawing, the frame's size or the encoding changes, so that a cached GIF is drawn again
RENDERER_VERSION = "2"
#: the frames drawn in this process, each repainting only what changed from the one before
#: (whatever it was: a frame is the same pixels however it was drawn)
_FRAMES = FrameDrawer()


#: told (frames drawn, frames) while a GIF is drawn
Progress = Callable[[int, int], None]


class StepRangeError(ValueError):
    """A step range that is not ``A:B`` within the match's steps."""


def parse_steps(text: str | None, last: int,
                max_frames: int = MAX_GIF_FRAMES) -> tuple[int, int]:
    """The first and last step of ``A:B`` (either side may be left out; ``N`` is one step),
    at most ``max_frames`` steps; no range is the whole match, or its last ``max_frames``
    steps when it is longer.

    >>> parse_steps("3:5", 10), parse_steps(":4", 10), parse_steps("7:", 10), parse_steps(None, 10)
    ((3, 5), (0, 4), (7, 10), (0, 10))
    >>> parse_steps(None, 450)
    (51, 450)
    """
    if last < 0:
        raise StepRangeError("this match has no steps to animate")
    if text is None or not text.strip():
        return max(0, last - max_frames + 1), last
    first_text, colon, last_text = text.strip().partition(":")
    try:
        first = int(first_text) if first_text.strip() else 0
        final = (int(last_text) if last_text.strip() else last) if colon else first
    except ValueError:
        raise StepRangeError(f"a step range looks like A:B (e.g. 0:20 or 10:), got "
                             f"{text!r}") from None
    outside = StepRangeError(f"step range {text!r} is outside this match's steps 0 to {last}")
    if not 0 <= first <= final:
        raise outside
    # the cap is said first: a range too long for any GIF is refused for that
    if final - first + 1 > max_frames:
        raise StepRangeError(f"step range {text!r} is {final - first + 1} steps: a GIF holds "
                             f"at most {max_frames} frames (e.g. {first}:"
                             f"{first + max_frames - 1})")
    if final > last:
        raise outside
    return first, final


def frame_ms(frames: int) -> int:
    """How long each frame but the last is shown: a minute's clip at most, where it can.

    >>> frame_ms(17), frame_ms(100), frame_ms(323)
    (900, 600, 200)
    """
    return max(MIN_FRAME_MS, min(FRAME_MS, CLIP_MS // max(1, frames - 1) // 10 * 10))


#: what a drawing process is handed for a frame: its SVG, its width in pixels and the GIF's
#: palette (three bytes a colour), and what it hands back: the frame quantised to that palette
#: (width, height, one byte a pixel) -- a third of the RGB pixels to send back
Job = tuple[str, int, bytes]
Indexed = tuple[int, int, bytes]


def _frame_pixels(svg: str, width: int) -> Image.Image:
    """One frame as an RGB picture from its SVG and its width in pixels (raster.py), each
    repainting only what changed from the one this process drew before."""
    return svg_to_image(svg, width=width, frames=_FRAMES)


def _quantised(frame: Image.Image, palette: Image.Image) -> Image.Image:
    """``frame`` in the GIF's palette: the nearest colour, no dithering (flat drawings)."""
    return frame.quantize(palette=palette, dither=Image.Dither.NONE)


def _palette_image(colours: bytes) -> Image.Image:
    """A palette as the picture Pillow quantises to (its pixels play no part)."""
    palette = Image.new("P", (1, 1))
    palette.putpalette(colours)
    return palette


class _Indexing:
    """Frames quantised to a GIF's palette one after another in a process: a frame that
    FrameDrawer repainted from the one quantised before is quantised only in the boxes it
    repainted, the rest copied from that one's colours. The same colours as the whole frame
    quantised: with no dithering a pixel's colour is the palette's nearest to it, whatever
    its neighbours (a test compares the GIFs). The palette's picture is kept too, for the
    same colours: Pillow keeps each colour's nearest palette entry on the palette once found,
    so a palette made anew for every frame (as the drawing processes did) finds them all
    again, two thirds of quantising a frame."""

    def __init__(self) -> None:
        #: the last frame quantised, the palette's colours and the frame in them
        self._last: tuple[Image.Image, bytes, Image.Image] | None = None
        #: the palette's colours and its picture
        self._palette: tuple[bytes, Image.Image] | None = None

    def indexed(self, frame: Image.Image, colours: bytes) -> Image.Image:
        """``frame`` (the last picture _FRAMES drew, or any other) in ``colours``."""
        if self._palette is None or self._palette[0] != colours:
            self._palette = colours, _palette_image(colours)
        palette = self._palette[1]
        repainted, last = _FRAMES.repainted, self._last
        if repainted is not None and last is not None and repainted[2] is frame and \
                repainted[0] is last[0] and last[1] == colours:
            indexed = last[2].copy() if repainted[1] else last[2]
            for box in repainted[1]:
                indexed.paste(_quantised(frame.crop(box), palette), box[:2])
        else:
            indexed = _quantised(frame, palette)
        self._last = frame, colours, indexed
        return indexed


#: this process's frames quantised, each from the one before where it can
_INDEXING = _Indexing()


def _indexed_frame(job: Job) -> Indexed:
    """One frame drawn and quantised to the GIF's palette, as a drawing process sends it."""
    svg, width, colours = job
    frame = _INDEXING.indexed(_frame_pixels(svg, width), colours)
    return frame.width, frame.height, frame.tobytes()


def drawing_processes(frames: int) -> int:
    """How many processes draw a GIF of ``frames`` frames: one a core, MAX_DRAWING_PROCESSES
    at most, and only the caller's own for a short GIF or where processes cannot be forked.

    >>> drawing_processes(1)
    1
    """
    if frames < _PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(MAX_DRAWING_PROCESSES, os.cpu_count() or 1))


def _drawn_indexed(jobs: Sequence[Job], processes: int) -> Iterator[Indexed]:
    """Every job's frame drawn and quantised, in order, by ``processes`` forked processes (each
    takes short runs of frames, and the caller reads each as it comes) or, for one, here."""
    if processes <= 1:
        yield from map(_indexed_frame, jobs)
        return
    # forked, not spawned: a spawned process would import the viewer anew (seconds), and a
    # forked one starts with the glyphs and ops this one kept while drawing the palette's
    # frames; the child only draws the strings it is sent, then exits. Pillow's format
    # plug-ins are imported first, so that no child imports anything (another thread of a
    # server may hold an import's lock when it forks)
    Image.preinit()
    done = 0
    try:
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))
        try:
            for indexed in pool.map(_indexed_frame, jobs,
                                    chunksize=max(1, min(4, len(jobs) // (processes * 4)))):
                yield indexed
                done += 1
        finally:
            pool.shutdown(cancel_futures=True)
    except (OSError, BrokenProcessPool) as e:
        # no process could be forked (a limit on processes, memory) or one died: the rest is
        # drawn here, the same frames, only slower
        log.warning("drawing a GIF's frames in one process: %s", e)
        yield from map(_indexed_frame, jobs[done:])


def _palette_picks(count: int) -> list[int]:
    """The frames a GIF's one palette comes from: up to seven spread over it, and the last.

    >>> _palette_picks(100)
    [0, 16, 32, 48, 64, 80, 96, 99]
    """
    return list(range(0, count, max(1, count // 6)))[:7] + [count - 1]


def _palette(picks: Sequence[Image.Image]) -> Image.Image:
    """The palette of a few frames stacked into one picture (median cut, 255 colours)."""
    sample = Image.new("RGB", (picks[0].width, sum(frame.height for frame in picks)))
    top = 0
    for frame in picks:
        sample.paste(frame, (0, top))
        top += frame.height
    # every other pixel each way (nearest: no colour is blended into a new one) is enough
    # for flat drawings, and a quarter of median cut's work
    half = sample.resize((max(1, sample.width // 2), max(1, sample.height // 2)),
                         Image.Resampling.NEAREST)
    return half.quantize(colors=255, method=Image.Quantize.MEDIANCUT)


def _indexed_frames(svgs: Sequence[tuple[str, int]], processes: int,
                    progress: Progress | None = None) -> Iterator[Image.Image]:
    """Every frame drawn and quantised to the GIF's one palette, in order, as each is ready.
    The palette's frames are drawn here first; the others are drawn and quantised by
    ``processes`` processes (each given the palette), so that this one only puts the GIF
    together, while they draw (the encoder takes the frames as they come); the frames are
    the same whatever the count. ``progress`` is told (frames drawn, frames) as each frame
    is drawn."""
    picks = _palette_picks(len(svgs))
    first = list(dict.fromkeys(picks))
    drawn: dict[int, Image.Image] = {}
    for number in first:
        drawn[number] = _frame_pixels(*svgs[number])
        if progress is not None:
            progress(len(drawn), len(svgs))
    palette = _palette([drawn[pick] for pick in picks])
    colours = bytes(palette.getpalette() or [])
    rest = [number for number in range(len(svgs)) if number not in drawn]
    indexed = _drawn_indexed([(*svgs[number], colours) for number in rest], processes)
    count = len(drawn)
    for number in range(len(svgs)):
        if number in drawn:
            yield _quantised(drawn.pop(number), palette)
            continue
        width, height, data = next(indexed)
        count += 1
        if progress is not None:
            progress(count, len(svgs))
        frame = Image.frombytes("P", (width, height), data)
        frame.putpalette(colours)
        yield frame


def _gif_bytes(indexed: Iterator[Image.Image], count: int) -> bytes:
    """One GIF of ``count`` frames sharing one palette, so that only the changes are stored;
    the frames are taken as they come (Pillow finds each one's changes from the one before
    while the next is drawn)."""
    out = io.BytesIO()
    durations = [frame_ms(count)] * (count - 1) + [LAST_FRAME_MS]
    next(indexed).save(out, "GIF", save_all=True, append_images=indexed,
                       duration=durations, loop=0, optimize=True)
    return out.getvalue()


def gif_key(match: LoadedMatch, first: int, last: int, seat: int | None) -> str:
    """What decides a GIF's bytes, as a cache key: the match's head hash (its last event's
    chain hash, which covers every event before it), the range, the view and
    RENDERER_VERSION (the frame's size follows from the match). The same match stored,
    uploaded or imported anew draws once."""
    head = chain_hashes(match.events)[-1] if match.events else "none"
    return f"gif/{RENDERER_VERSION}/{head}/{first}:{last}/{seat}"


def match_gif(match: LoadedMatch, first: int, last: int, seat: int | None = None,
              processes: int | None = None, progress: Progress | None = None) -> bytes:
    """Steps ``first`` to ``last`` of a loaded match as an animated GIF (its bytes), its
    frames drawn by ``processes`` processes (default: drawing_processes); the bytes do not
    depend on how many. ``progress(drawn, frames)`` is called as each frame is drawn (from
    the calling thread)."""
    if match.game is None or not match.steps:
        raise StepRangeError("this match has no steps to animate")
    if last - first + 1 > MAX_GIF_FRAMES:
        raise StepRangeError(f"a GIF holds at most {MAX_GIF_FRAMES} frames, not "
                             f"{last - first + 1}")
    drawings = [match.svg(number, seat) for number in range(first, last + 1)]
    width = frame_width(drawings[0])
    captions = [caption_lines(number, match.last_step, match.steps[number].caption, width)
                for number in range(first, last + 1)]
    lines = max(len(caption) for caption in captions)
    svgs = [(frame_svg(drawing, caption, width, lines), width)
            for drawing, caption in zip(drawings, captions, strict=True)]
    if processes is None:
        processes = drawing_processes(len(svgs))
    return _gif_bytes(_indexed_frames(svgs, processes, progress), len(svgs))
