"""The viewer's pages. Views are thin: they find the match (loading.py), then hand the
templates the model page.py builds from the rows matches.py and present.py compute."""

from __future__ import annotations

from typing import Any

from flask import (
    Response,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import HTTPException, NotFound

from fairdeal.games import GAME_NAMES

from ..queryargs import INT64_MAX
from ..security import UPLOAD_LIMIT, VIEWER_CSP
from .blueprint import bp
from .loading import (
    MATCH_ID,
    PageNotFound,
    game_or_none,
    ledger,
    load_stored,
    load_upload,
    missing,
    preview_cache,
)
from .logpanel import match_log, recent_leaves
from .matches import LoadedMatch
from .page import int_arg, page_context, perspective, step_context
from .players import match_card, search_context
from .present import game_title, utc_times
from .sources import summarize

#: the viewer's policy (web/security.py sets it, and the other headers, on every response)
CSP = VIEWER_CSP

# the verifier's reasons quote an event's time as the file has it (ms since 1970): the pages
# write it for people (``{{ reason|utc_times }}``)
bp.add_app_template_filter(utc_times, "utc_times")


# --- pages --------------------------------------------------------------------------------

@bp.route("/")
def home() -> Any:
    """Recent and live matches, the search (a match-id or key-id prefix, or a name) and the
    upload box."""
    query = request.args.get("q", "").strip()
    notice = None
    reader = ledger()
    page = max(0, int_arg("page", 0))
    if query:
        if MATCH_ID.match(query) and reader.get(query) is not None:
            return redirect(url_for("viewer.match_page", match_id=query))
        found = search_context(reader, query, page)
        if found is None:
            notice = f"No match with id {query!r}."
        elif "redirect" in found:
            return redirect(found["redirect"])
        else:
            cards = [match_card(reader, record) for record in found["matches"]]
            return render_template("viewer/search.html", **{**found, "query": query},
                                   page=page, cards=cards)
    game = request.args.get("game") or None
    if game not in GAME_NAMES:
        game = None
    # "this": sealed under this server's key; "other": under another key (imported)
    signer = request.args.get("signer") or None
    if signer not in ("this", "other"):
        signer = None
    records = reader.matches(20, page * 20, game, signer)
    cards = [match_card(reader, record) for record in records]
    games = [(name, game_title(name, game_or_none(name))) for name in GAME_NAMES]
    return render_template("viewer/home.html", cards=cards, query=query, notice=notice,
                           games=games,
                           page=page, game=game, signer=signer,
                           has_more=len(records) == 20,
                           limit_mb=UPLOAD_LIMIT // (1024 * 1024))


@bp.route("/m/<match_id>")
def match_page(match_id: str) -> Any:
    """The match at step N, the event list, the stepper, the verification panel and the
    match's place in the transparency log."""
    match = load_stored(match_id)
    return render_template("viewer/match.html", **page_context(match),
                           log_panel=match_log(ledger().ledger, match.match_id))


@bp.route("/log")
def log_page() -> Any:
    """The transparency log: the latest checkpoint, the tree size, the newest leaves."""
    panel, leaves = recent_leaves(ledger().ledger)
    return render_template("viewer/log.html", panel=panel, leaves=leaves)


@bp.route("/u/<key>")
def upload_page(key: str) -> Any:
    """An uploaded bundle (not stored): the same page as a stored match."""
    match = load_upload(key)
    return render_template("viewer/match.html", **page_context(match))


@bp.route("/embed/<match_id>")
def embed(match_id: str) -> Any:
    """A compact, chrome-free view for streams and forums (an iframe)."""
    match = load_stored(match_id)
    context = page_context(match)
    context["fragments"] = context["base"]
    context["base"] = url_for("viewer.embed", match_id=match.match_id)
    context["embed_url"] = None
    response = Response(render_template("viewer/embed.html", **context))
    # the point of this page is to be framed elsewhere
    response.headers["Content-Security-Policy"] = CSP.replace("frame-ancestors 'self'",
                                                              "frame-ancestors *")
    return response


@bp.route("/embed/<match_id>/dispute")
def embed_dispute(match_id: str) -> Any:
    """An embed has no dispute page of its own: the match's (a link copied out of an older
    embed, which pointed here, still lands on the report)."""
    if not MATCH_ID.match(match_id):
        missing(f"{match_id!r} is not a match id", "Match not found")
    query = request.query_string.decode("latin-1")
    target = url_for("viewer.match_dispute", match_id=match_id)
    return redirect(f"{target}?{query}" if query else target, 308)


def _fragment(match: LoadedMatch, number: int) -> Any:
    option = perspective(match)
    context = step_context(match, number, option)
    if context["step"] is None:
        abort(404, description="this match has no steps to show")
    return jsonify({
        "step": context["number"],
        "last": context["last"],
        "seq": context["step"].seq,
        "caption": context["caption"],
        "actor": context["actor"],
        "board": str(render_template("viewer/_board_inner.html", **context)),
        "words": str(context["words"]),
    })


# a step past 64 bits is no page (404), like any other path that names nothing
@bp.route(f"/m/<match_id>/step/<int(max={INT64_MAX}):number>.json")
def match_step(match_id: str, number: int) -> Any:
    """One step as a fragment: what the stepper fetches instead of reloading the page."""
    return _fragment(load_stored(match_id), number)


@bp.route(f"/u/<key>/step/<int(max={INT64_MAX}):number>.json")
def upload_step(key: str, number: int) -> Any:
    """One step of an uploaded bundle, as a fragment."""
    return _fragment(load_upload(key), number)


def _download(match: LoadedMatch) -> Any:
    if match.bundle_bytes is None:
        abort(404, description="a match in play has no bundle yet: it is sealed at the end")
    name = f"{match.match_id or 'bundle'}.json"
    return Response(match.bundle_bytes, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.route("/m/<match_id>/bundle.json")
def match_bundle(match_id: str) -> Any:
    """The sealed bundle, byte for byte as the server signed it."""
    return _download(load_stored(match_id))


@bp.route("/u/<key>/bundle.json")
def upload_bundle(key: str) -> Any:
    """An uploaded bundle, byte for byte as it was uploaded."""
    return _download(load_upload(key))


@bp.route(f"/m/<match_id>/step/<int(max={INT64_MAX}):number>.png")
def match_preview(match_id: str, number: int) -> Any:
    """The board at step N as a PNG: the match page's link preview (``og:image``), cached.

    A sealed match shows everything, as its page does after the reveal; a match in play shows
    the spectator's board now, whatever the step.
    """
    from .preview import PreviewError, preview_png

    match = load_stored(match_id)
    if match.live:
        def drawing() -> str:
            return ledger().spectator_svg(match_id) or ""
        key: tuple[Any, ...] = (match.key, "live")
        max_age = 10
    else:
        step = match.step(number)
        if step is None:
            abort(404, description="this match has no steps to show")
        if number != step.number:
            # no clamping here: an image of another step under this step's address would be
            # cached as if it were this one
            missing(f"step {number} does not exist: this match has steps 0 to "
                    f"{match.last_step}", "Step not found",
                    url_for("viewer.match_page", match_id=match_id))

        def drawing() -> str:
            return match.svg(number, None)
        key = (match.key, number)
        max_age = 86_400
    try:
        png = preview_png(preview_cache(), key, drawing)
    except PreviewError as e:
        abort(404, description=str(e))
    response = Response(png, mimetype="image/png")
    response.headers["Cache-Control"] = f"public, max-age={max_age}"
    return response


@bp.route("/m/<match_id>/live.json")
def match_live(match_id: str) -> Any:
    """What the live page polls: how many public events there are and whether it ended."""
    if not MATCH_ID.match(match_id):
        abort(404)
    reader = ledger()
    record = reader.get(match_id)
    if record is None:
        abort(404, description=f"no match with id {match_id!r}")
    summary = summarize(record)
    events = record.get("next_seq", record.get("events"))
    if not isinstance(events, int):
        events = len(reader.events(match_id) or [])
    return jsonify({"match_id": match_id, "events": events, "ended": not summary.live})


# --- errors -------------------------------------------------------------------------------

def _wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best != "application/json" and not request.path.endswith(".json")


@bp.errorhandler(404)
@bp.errorhandler(410)
def not_found(error: HTTPException) -> Any:
    """A page a person can act on (or JSON for the fragments): never a bare error."""
    status = error.code or 404
    if not _wants_html():
        return jsonify({"error": error.description}), status
    heading = getattr(error, "heading", None) or (
        "Not found" if status == 404 else "Upload expired")
    return render_template("viewer/error.html", status=status, heading=heading,
                           message=error.description, back=getattr(error, "back", None)), status


@bp.app_errorhandler(404)
def no_route(error: HTTPException) -> Any:
    """A path no route of the app answers (a blueprint's own handlers answer its routes'
    404s): JSON in the API's form under /api, the viewer's page elsewhere, never Flask's bare
    page."""
    if request.path == "/api" or request.path.startswith("/api/"):
        from ..api.errors import error_response

        described = isinstance(error, PageNotFound) or (
            error.description != NotFound.description)
        where = (f"the API's routes are listed at {url_for('api.openapi')}"
                 if "api" in current_app.blueprints else "this server serves no API")
        message = error.description if described else (
            f"no API endpoint {request.path}: {where}")
        return error_response(404, "not-found", str(message))
    if request.blueprint is None and not request.path.endswith(".json"):
        return render_template("viewer/error.html", status=404, heading="Page not found",
                               message=f"Nothing lives at {request.path}."), 404
    return not_found(error)
