"""``/m/<id>.gif``: a sealed match's replay as an animated GIF (animation.py), cached."""

from __future__ import annotations

from typing import Any

from flask import Response, abort, current_app, request

from . import bp
from .animation import StepRangeError, match_gif, parse_steps
from .loading import load_stored
from .matches import MatchCache
from .page import perspective

__all__ = ["gif_url"]


def _cache() -> MatchCache:
    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.gifs", MatchCache(16))
    return cache


def gif_url(match_id: str) -> str:
    """The absolute address of a match's GIF, for the share box."""
    return request.url_root.rstrip("/") + f"/m/{match_id}.gif"


@bp.route("/m/<match_id>.gif")
def match_gif_page(match_id: str) -> Any:
    """Every step (or ``?steps=A:B``) from the spectator's view (or ``?view=a``)."""
    match = load_stored(match_id)
    if match.live or match.bundle_bytes is None:
        abort(404, description="a match in play has no replay GIF yet: it is drawn once the "
                               "match is sealed")
    try:
        first, last = parse_steps(request.args.get("steps"), match.last_step)
    except StepRangeError as e:
        return Response(f"{e}\n", 400, mimetype="text/plain")
    seat = perspective(match)["seat"]
    data = _cache().get(f"{match.key}:{first}:{last}:{seat}",
                        lambda: match_gif(match, first, last, seat))
    response = Response(data, mimetype="image/gif")
    # a sealed match never changes: its drawing may be kept a day
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
