"""``/m/<id>.gif``: a sealed match's replay as an animated GIF (animation.py), cached.

Drawing is the one costly thing an anonymous request can ask for, so it is bounded four ways:
at most MAX_GIF_FRAMES frames; cached by what decides the bytes (``gif_key``: the match's head
hash, the range, the view, the width and the renderer's version) in a bounded cache; drawn
one at a time per process (a request that would wait is answered 202 with ``Retry-After``
instead of holding a worker); and each GIF drawn counts against the ``gif`` rate limit of the
client address (security.py, as uploads do; a cached GIF is free).

A GIF is drawn on a thread of its own, so that no request outlives a worker's timeout however
long the drawing: the request that started it waits DRAW_WAIT_S for it, and past that is
answered 202 with ``Retry-After`` while the drawing goes on into the cache, where the retry
finds it. Every 202 for a GIF being drawn says how far it is ("120 of 327 frames drawn", and
the numbers in ``X-Frames-Drawn`` and ``X-Frames``), so the share box can show it; a request
sent with ``Prefer: respond-async`` (RFC 7240) is answered so at once instead of waiting.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Response, abort, current_app, request

from ..security import rate_limited
from .animation import StepRangeError, gif_key, match_gif, parse_steps
from .blueprint import bp
from .loading import load_stored
from .matches import MatchCache
from .page import perspective

__all__ = ["DRAW_WAIT_S", "GIF_CACHE_SIZE", "RETRY_AFTER_S", "gif_url"]

#: GIFs kept per process (a 100-frame one is a few hundred kB)
GIF_CACHE_SIZE = 32
#: what a request that found another GIF being drawn is told to wait (a GIF takes seconds)
RETRY_AFTER_S = 3
#: how long the request that starts a drawing waits for it (a worker's request timeout is
#: commonly 30 s: gunicorn's default)
DRAW_WAIT_S = 10


def _cache() -> MatchCache:
    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.gifs",
                                                          MatchCache(GIF_CACHE_SIZE))
    return cache


def _drawing() -> threading.Lock:
    """The process's one drawing slot (dict.setdefault is atomic: one lock per app)."""
    lock: threading.Lock = current_app.extensions.setdefault("fairdeal.viewer.gif_drawing",
                                                             threading.Lock())
    return lock


def _in_progress() -> dict[str, _Drawing]:
    """The GIFs being drawn in this process, by key (one at most: the drawing slot)."""
    drawings: dict[str, _Drawing] = current_app.extensions.setdefault(
        "fairdeal.viewer.gifs_drawing", {})
    return drawings


def _wait() -> float:
    """How long a request waits for a drawing: not at all when it asked to be told at once."""
    prefer = request.headers.get("Prefer", "")
    return 0.0 if "respond-async" in prefer.lower() else DRAW_WAIT_S


def gif_url(match_id: str) -> str:
    """The absolute address of a match's GIF, for the share box."""
    return request.url_root.rstrip("/") + f"/m/{match_id}.gif"


class _Drawing(threading.Thread):
    """One GIF drawn into the cache on its own thread, which owns the drawing slot (it releases
    it when done); the request that started it waits for it a while (``answer``)."""

    def __init__(self, match: Any, steps: tuple[int, int], seat: int | None,
                 cache: MatchCache, key: str, slot: threading.Lock,
                 registry: dict[str, _Drawing]) -> None:
        super().__init__(name=f"fairdeal-gif {key}", daemon=True)
        self.match, self.steps, self.seat = match, steps, seat
        self.cache, self.key, self.slot, self.registry = cache, key, slot, registry
        self.data: bytes | None = None
        self.error: BaseException | None = None
        self.drawn, self.frames = 0, steps[1] - steps[0] + 1
        registry[key] = self

    def _progress(self, drawn: int, frames: int) -> None:
        self.drawn, self.frames = drawn, frames

    def run(self) -> None:
        try:
            self.data = match_gif(self.match, *self.steps, self.seat,
                                  progress=self._progress)
            self.cache.put(self.key, self.data)
        except BaseException as e:  # raised again in the waiting request, as drawn there
            self.error = e
        finally:
            self.registry.pop(self.key, None)
            self.slot.release()

    def answer(self, wait: float) -> Response:
        """The GIF, once drawn within ``wait`` seconds; else a 202 saying how far it is."""
        self.join(wait)
        if self.is_alive():
            drawn, frames = self.drawn, self.frames
            state = (f"{drawn} of {frames} frames drawn" if drawn < frames
                     else f"all {frames} frames drawn, being put together")
            busy = _retry_later(f"this replay GIF is being drawn ({state}): retry in "
                                f"{RETRY_AFTER_S} s\n")
            busy.headers["X-Frames-Drawn"] = str(drawn)
            busy.headers["X-Frames"] = str(frames)
            return busy
        if self.error is not None:
            raise self.error
        assert self.data is not None
        return _gif(self.data)


def _retry_later(message: str) -> Response:
    busy = Response(message, 202, mimetype="text/plain")
    busy.headers["Retry-After"] = str(RETRY_AFTER_S)
    busy.headers["Cache-Control"] = "no-store"
    return busy


def _gif(data: bytes) -> Response:
    response = Response(data, mimetype="image/gif")
    # a sealed match never changes: its drawing may be kept a day
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@bp.route("/m/<match_id>.gif")
def match_gif_page(match_id: str) -> Any:
    """Every step (or ``?steps=A:B``, at most MAX_GIF_FRAMES) from the spectator's view (or
    ``?view=a``)."""
    match = load_stored(match_id)
    if match.live or match.bundle_bytes is None:
        abort(404, description="a match in play has no replay GIF yet: it is drawn once the "
                               "match is sealed")
    try:
        first, last = parse_steps(request.args.get("steps"), match.last_step)
    except StepRangeError as e:
        return Response(f"{e}\n", 400, mimetype="text/plain")
    seat = perspective(match)["seat"]
    key = gif_key(match, first, last, seat)
    cache = _cache()
    cached = cache.peek(key)
    if cached is not None:
        return _gif(cached)
    underway = _in_progress().get(key)
    if underway is not None:  # this very GIF: say how far it is (or wait for it a while)
        return underway.answer(_wait())
    slot = _drawing()
    if not slot.acquire(blocking=False):
        return _retry_later(f"another replay GIF is being drawn here; this one is not drawn "
                            f"yet: retry in {RETRY_AFTER_S} s\n")
    drawing = None
    try:
        cached = cache.peek(key)  # drawn by the request that held the slot just before
        if cached is not None:
            return _gif(cached)
        limited = rate_limited("gif")
        if limited is not None:
            return limited
        started = _Drawing(match, (first, last), seat, cache, key, slot, _in_progress())
        started.start()  # the slot is the drawing's now: it releases it when done
        drawing = started
    finally:
        if drawing is None:
            slot.release()
    return drawing.answer(_wait())
