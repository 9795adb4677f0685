"""The match page's model: the step, the perspective, the drawing, the event list and the
verification rows, as one dict for the templates (match.html, embed.html, the fragments)."""

from __future__ import annotations

import math
import re
from typing import Any

from flask import current_app, render_template, request, url_for
from markupsafe import Markup, escape

from fairdeal.verifier.dispute import DisputeError, dispute_report
from fairdeal.verifier.keys import InvalidKey, key_id, parse_public_key
from fairdeal.verifier.protocol import SEAT_SIGNED_TYPES

from .browser import browser_verifier
from .loading import ledger
from .matches import LoadedMatch, check_rows
from .present import (
    badges,
    event_rows,
    game_title,
    is_simulated,
    live_secrecy,
    match_facts,
    perspectives,
    result_words,
    seat_label,
    state_tables,
)
from .words import board_words

__all__ = ["AUTOPLAY_SPEEDS", "embed_size", "int_arg", "page_context", "perspective",
           "step_context"]

#: a marker for the perspective's query in the cached event list; filled in per request
#: (escaped) — a NUL never occurs in rendered text, so nothing else can match it
_VIEW_SLOT = "\x00view\x00"
AUTOPLAY_SPEEDS = ((2000, "0.5×"), (1000, "1×"), (500, "2×"), (250, "4×"))

#: the suggested embed's width, and what the embed shows at that width besides the board: the
#: board's box is that much narrower, and the head, the caption and the stepper that much tall
#: (px, measured in Chromium; tests/web/viewer/test_browser_embed.py holds them to it)
EMBED_WIDTH, EMBED_SIDES, EMBED_CHROME = 720, 26, 270
_VIEWBOX = re.compile(r'<svg\b[^>]*\bviewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)"')


def embed_size(drawing: str) -> tuple[int, int]:
    """The suggested iframe (width, height) for an embed of ``drawing``: the board at the full
    width, the stepper below it (the embed scales to any other size; this is where nothing
    is scaled down).

    >>> embed_size('<svg viewBox="0 0 900 560">')
    (720, 710)
    >>> embed_size("<p>no drawing</p>")
    (720, 560)
    """
    found = _VIEWBOX.search(drawing)
    if found is None or not float(found.group(1)):
        return EMBED_WIDTH, 560
    ratio = float(found.group(2)) / float(found.group(1))
    height = (EMBED_WIDTH - EMBED_SIDES) * ratio + EMBED_CHROME
    return EMBED_WIDTH, int(math.ceil(height / 10) * 10)


#: no query number means anything beyond this (a page, a step): larger ones are clamped, so
#: ``?page=9223372036854775807`` shows an empty page instead of overflowing the database
MAX_QUERY_INT = 10**9


def int_arg(name: str, default: int) -> int:
    """The query argument ``name`` as an integer within +-MAX_QUERY_INT; ``default`` when
    absent or not a number (a 5,000-digit one included)."""
    raw = request.args.get(name, "")
    if len(raw) > 12:
        return default if not raw.lstrip("+-").isdigit() else (
            -MAX_QUERY_INT if raw.startswith("-") else MAX_QUERY_INT)
    try:
        return max(-MAX_QUERY_INT, min(MAX_QUERY_INT, int(raw)))
    except ValueError:
        return default


def perspective(match: LoadedMatch) -> dict[str, Any]:
    """The perspective ``?view=`` asks for, if the match offers it; else the spectator's."""
    options = perspectives(match)
    wanted = request.args.get("view", "all").lower()
    for option in options:
        if option["key"] == wanted:
            return option
    return options[0]


def _base(match: LoadedMatch) -> str:
    if match.key.startswith("u-"):
        return url_for("viewer.upload_page", key=match.key)
    return url_for("viewer.match_page", match_id=match.match_id)


def _board(match: LoadedMatch, number: int, seat: int | None) -> Markup:
    # the SVG comes from the rules package (trusted code, drawing numbers and card names it
    # owns); everything user-supplied on the page goes through Jinja2's autoescaping
    try:
        return Markup(match.svg(number, seat))
    except Exception as e:  # a drawing bug must not hide the rest of the page
        current_app.logger.exception("render_svg failed")
        return Markup("<p class='muted'>This game's drawing failed: {}</p>").format(
            type(e).__name__)


def step_context(match: LoadedMatch, number: int, option: dict[str, Any]) -> dict[str, Any]:
    """What changes from step to step: the drawing, the caption, who acted, the counter."""
    step = match.step(number)
    genesis = match.genesis or {}
    seats = genesis.get("seats", [])
    if step is None:
        return {"step": None, "number": 0, "last": -1, "board": Markup(""), "caption": "",
                "actor": "", "words": Markup("")}
    return {
        "step": step,
        "number": step.number,
        "last": match.last_step,
        "board": _board(match, step.number, option["seat"]),
        # the same state in words, for a phone the drawing is too small to read on
        "words": board_words(match.game, step.state, option["seat"]),
        "caption": step.caption,
        "actor": seat_label(match.game, seats, step.seat) if step.seat is not None else "",
    }


def _events_html(match: LoadedMatch, base: str, view_query: str, number: int) -> Markup:
    """The event list, rendered once per match; the perspective and the current row are
    filled in by string edits, so a step page does not re-render hundreds of rows."""
    key = ("events", base)
    html = match.html_cache.get(key)
    if html is None:
        html = render_template("viewer/_event_rows.html", rows=event_rows(match), match=match,
                               base=base, view_query=_VIEW_SLOT)
        match.html_cache[key] = html
    html = html.replace(_VIEW_SLOT, str(escape(view_query)))
    if match.step(number) is not None:
        html = html.replace(f'<li data-step="{number}" class="event ',
                            f'<li data-step="{number}" aria-current="step" '
                            'class="event is-current ', 1)
    return Markup(html)


def _deal_influence(facts: Any) -> str | None:
    """The report's one line on who could have influenced the deal, if it has one."""
    influence = facts.get("deal_influence")
    if isinstance(influence, dict) and isinstance(influence.get("text"), str):
        return str(influence["text"])
    return None


def _browser_bundle_url(match: LoadedMatch, base: str) -> str | None:
    """Where the browser fetches the bytes it verifies: the API's bundle (exactly the file
    `fairdeal verify` reads) when this app serves the API, else the page's own download."""
    if match.bundle_bytes is None:
        return None
    if not match.key.startswith("u-") and "api" in current_app.blueprints:
        return url_for("api.bundle", match_id=match.match_id)
    return f"{base}/bundle.json"


def page_context(match: LoadedMatch) -> dict[str, Any]:
    """Everything match.html and embed.html show, for the step and perspective asked for."""
    option = perspective(match)
    number = int_arg("step", match.last_step if match.live else 0)
    context = step_context(match, number, option)
    base = _base(match)
    view_query = "" if option["key"] == "all" else f"&view={option['key']}"
    return {
        "match": match,
        **_live_context(match),
        **_signer_context(match),
        "base": base,
        "is_upload": match.key.startswith("u-"),
        **_heading_context(match),
        "events_html": _events_html(match, base, view_query, context["number"]),
        "checks": check_rows(match),
        "perspectives": perspectives(match),
        "perspective": option,
        "view_query": view_query,
        "speeds": AUTOPLAY_SPEEDS,
        "browser": browser_verifier(),
        **_link_context(match, base, context["number"]),
        **context,
    }


def _live_context(match: LoadedMatch) -> dict[str, Any]:
    """A live match's board as a spectator sees it: its state tables and the game's drawing."""
    public_state = None
    live_board = None
    if match.live and match.match_id:
        spectator = ledger().spectator(match.match_id) or {}
        public_state = state_tables(spectator.get("state"))
        # the game's own drawing, public information only (render_svg with spectator=True);
        # trusted code, as every board on this page
        drawing = ledger().spectator_svg(match.match_id)
        live_board = Markup(drawing) if drawing else None
    # the live page follows the API's event stream where this app serves the API (the
    # viewer on its own has none: the page then polls live.json)
    stream_url = (url_for("api.stream", match_id=match.match_id)
                  if match.live and match.match_id and "api" in current_app.blueprints
                  else None)
    return {"public_state": public_state, "live_board": live_board, "stream_url": stream_url,
            "live_secrecy": live_secrecy(match.game) if match.live else ""}


def _signer_context(match: LoadedMatch) -> dict[str, Any]:
    """Whose key sealed the match, and what the verdict lets the page say about the deal."""
    facts = match.report.facts
    # only a sealed match's signature says whose key it is; a live one merely names a key
    own_key = not match.live and match.server_key is not None and (
        match.server_key in ledger().server_keys())
    return {
        "own_key": own_key,
        # every check passed, but under a key this server does not hold and nobody pinned:
        # the page says "signed by another server" and that key's id, never "verified"
        "other_signer": facts.get("key_id") if (
            match.report.ok and not match.live and not own_key
            and not facts.get("key_pinned")) else None,
        # who could have influenced the deal: the verifier's one line, for a bundle that
        # verifies (a failing one proves nothing about its deal)
        "deal_influence": _deal_influence(facts) if match.report.ok and not match.live
        else None,
    }


def seat_key_ids(events: list[dict[str, Any]]) -> dict[int, str]:
    """The key id of each seat that registered a key (its ``seat_key`` event) and signed with
    it, by seat: a seat's identity, where its name is only a label (registering a key alone
    proves nothing: anyone can register anyone's public key)."""
    found: dict[int, str] = {}
    signed = {event.get("seat") for event in events
              if event.get("type") in SEAT_SIGNED_TYPES and "sig" in event}
    for event in events:
        seat = event.get("seat")
        if event.get("type") == "seat_key" and isinstance(seat, int) and seat in signed:
            try:
                found[seat] = key_id(parse_public_key(event.get("public_key")))
            except InvalidKey:
                continue
    return found


def _heading_context(match: LoadedMatch) -> dict[str, Any]:
    """The page's heading: the players, the game and its parameters, the result."""
    genesis = match.genesis or {}
    seats = genesis.get("seats", [])
    result = match.report.facts.get("result") if not match.live else None
    keys = seat_key_ids(match.events)
    # a file that does not verify only claims its result: the heading never states it as
    # fact; the warning quotes the claim, as the file's
    claimed = _claimed_result(match) if not match.live and not match.report.ok else None
    rules_version = genesis.get("rules_version")
    return {
        "title": " vs ".join(seat.get("name", "?") for seat in seats) or "Uploaded file",
        "game_title": game_title(genesis.get("game"), match.game),
        "rules_version": rules_version if isinstance(rules_version, str) else None,
        "simulated": is_simulated([seat.get("name", "") for seat in seats]),
        "badges": badges(genesis.get("game"), genesis.get("params"), genesis.get("turn_limit_ms")),
        "match_facts": match_facts(match.game, genesis.get("params")),
        "seats": [{"label": seat_label(match.game, seats, index), "name": seat.get("name"),
                   "key_id": keys.get(index)} for index, seat in enumerate(seats)],
        # a key's page lists the matches stored here: an upload's seats get no link
        "seat_key_links": not match.key.startswith("u-"),
        "result": "" if not match.live and not match.report.ok else (
            result_words(result, seats, match.game) if result else (
                "in play" if match.live else "")),
        "claimed_result": result_words(claimed, seats, match.game) if claimed else None,
        "failing_step": _failing_step(match),
    }


def _failing_step(match: LoadedMatch) -> int | None:
    """The dispute report's step where a file that does not verify breaks (the event the
    replay stopped at, one step past the stepper's last), for the warning's link: None for a
    match that verifies, is in play, or has no report to give."""
    if match.live or match.report.ok or match.bundle_bytes is None:
        return None
    try:
        step = dispute_report(match.bundle_bytes, 0)["failing_step"]
    except DisputeError:
        return None
    return step if isinstance(step, int) else None


def _claimed_result(match: LoadedMatch) -> Any:
    """The result a file that does not verify declares (its reveal event's), if any."""
    last = match.events[-1] if match.events else {}
    claimed = match.report.facts.get("result") or (
        last.get("result") if last.get("type") == "reveal" else None)
    return claimed if isinstance(claimed, dict) else None


def _link_context(match: LoadedMatch, base: str, number: int) -> dict[str, Any]:
    """Where the page links to at step ``number``: the bundle (the browser's copy too), the
    embed, the GIF, the preview image and the share link; an upload is not kept, so it has
    no embed, GIF or preview."""
    upload = match.key.startswith("u-")
    root = request.url_root.rstrip("/")
    return {
        "bundle_url": f"{base}/bundle.json" if match.bundle_bytes is not None else None,
        "browser_bundle_url": _browser_bundle_url(match, base),
        "embed_url": None if upload else root + url_for(
            "viewer.embed", match_id=match.match_id) + f"?step={number}",
        "embed_size": embed_size(str(_board(match, number, None))) if not upload and
        match.steps else (EMBED_WIDTH, 560),
        "file_name": f"{match.match_id or 'bundle'}.json",
        "gif_url": (root + f"/m/{match.match_id}.gif"
                    if not match.live and not upload and match.steps else None),
        # the board at this step, for link previews; uploads are not kept, so they have none
        "og_image": None if upload or not match.match_id else
        root + url_for("viewer.match_preview", match_id=match.match_id, number=number),
        "share_url": root + (
            url_for("viewer.match_page", match_id=match.match_id) if not upload
            else base) + f"?step={number}",
    }
