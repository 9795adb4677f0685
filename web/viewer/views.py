"""The viewer's routes. Views are thin: they find the match, then hand the templates the rows
that matches.py and present.py computed."""

from __future__ import annotations

import re
from typing import Any

from fairdeal.games import GAME_NAMES, RulesError, get_game
from fairdeal.verifier.keys import InvalidKey, parse_public_key
from fairdeal.verifier.verify import verify_bytes
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
from markupsafe import Markup, escape
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from . import bp
from .matches import LoadedMatch, MatchCache, check_rows, load_bundle, load_live
from .present import (
    badges,
    date_words,
    event_rows,
    game_title,
    perspectives,
    result_words,
    seat_label,
    state_tables,
)
from .sources import LedgerReader, MemoryLedger, summarize

#: uploads larger than this are refused with a clear page (a 300-play match is ~100 kB)
UPLOAD_LIMIT = 5 * 1024 * 1024
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_UPLOAD_KEY = re.compile(r"u-[0-9a-f]{32}\Z")
#: a marker for the perspective's query in the cached event list; filled in per request
#: (escaped) — a NUL never occurs in rendered text, so nothing else can match it
_VIEW_SLOT = "\x00view\x00"
#: the viewer's pages load scripts, styles and images from here only; the games' SVG may use
#: inline style attributes
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'self'")
AUTOPLAY_SPEEDS = ((2000, "0.5×"), (1000, "1×"), (500, "2×"), (250, "4×"))


# --- where things live on the app ---------------------------------------------------------

def _ledger() -> LedgerReader:
    """The ledger if the app has one, else this viewer's own in-memory store."""
    ledger = current_app.extensions.get("fairdeal.ledger")
    if ledger is None:
        ledger = current_app.extensions.setdefault("fairdeal.viewer.store", MemoryLedger())
    return LedgerReader(ledger)


def _cache() -> MatchCache:
    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.cache",
                                                          MatchCache(64))
    return cache


def _uploads() -> MatchCache:
    """Uploaded bundles the user did not ask to store: held in memory for a while only."""
    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.uploads",
                                                          MatchCache(32))
    return cache


def _game_or_none(name: str) -> Any:
    try:
        return get_game(name)
    except RulesError:
        return None


# --- loading matches ----------------------------------------------------------------------

def _load_stored(match_id: str) -> LoadedMatch:
    """A match from the ledger: sealed ones from their bundle, live ones from public events."""
    if not _MATCH_ID.match(match_id):
        abort(404, description=f"{match_id!r} is not a match id")
    cache = _cache()
    sealed = cache.peek(f"m-{match_id}")
    if sealed is not None:
        return sealed  # type: ignore[no-any-return]
    ledger = _ledger()
    if ledger.get(match_id) is None:
        abort(404, description=f"no match with id {match_id!r}")
    data = ledger.bundle(match_id)
    loaded: LoadedMatch
    if data is not None:
        loaded = cache.get(f"m-{match_id}", lambda: load_bundle(data, f"m-{match_id}"))
        return loaded
    events = ledger.events(match_id) or []
    key = f"live-{match_id}-{len(events)}"
    loaded = cache.get(key, lambda: load_live(match_id, events, key))
    return loaded


def _load_upload(key: str) -> LoadedMatch:
    if not _UPLOAD_KEY.match(key):
        abort(404, description="no such upload")
    match = _uploads().peek(key)
    if match is None:
        abort(410, description="This upload is no longer held by the server (uploads that are "
                               "not stored are kept in memory for a while only). Upload the "
                               "file again.")
    return match  # type: ignore[no-any-return]


def _verdict(match_id: str) -> str:
    """"verified", "failed", "live" or "missing" for the home list: only what this server
    checked itself. A sealed bundle never changes, so its verdict is kept by match id (without
    the snapshots, which only a match page needs)."""
    loaded = _cache().peek(f"m-{match_id}")
    if loaded is not None:
        return "verified" if loaded.report.ok else "failed"
    verdicts: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.verdicts",
                                                             MatchCache(4096))
    verdict = verdicts.peek(match_id)
    if verdict is None:
        data = _ledger().bundle(match_id)
        if data is None:
            return "live" if _ledger().get(match_id) is not None else "missing"
        verdict = "verified" if verify_bytes(data).ok else "failed"
        verdicts.put(match_id, verdict)
    return str(verdict)


# --- the page model -----------------------------------------------------------------------

def _int_arg(name: str, default: int) -> int:
    raw = request.args.get(name, "")
    try:
        return int(raw)
    except ValueError:
        return default


def _perspective(match: LoadedMatch) -> dict[str, Any]:
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


def _step_context(match: LoadedMatch, number: int, option: dict[str, Any]) -> dict[str, Any]:
    step = match.step(number)
    genesis = match.genesis or {}
    seats = genesis.get("seats", [])
    if step is None:
        return {"step": None, "number": 0, "last": -1, "board": Markup(""), "caption": "",
                "actor": ""}
    return {
        "step": step,
        "number": step.number,
        "last": match.last_step,
        "board": _board(match, step.number, option["seat"]),
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


def _page_context(match: LoadedMatch) -> dict[str, Any]:
    genesis = match.genesis or {}
    seats = genesis.get("seats", [])
    option = _perspective(match)
    number = _int_arg("step", match.last_step if match.live else 0)
    context = _step_context(match, number, option)
    facts = match.report.facts
    result = facts.get("result") if not match.live else None
    title = " vs ".join(seat.get("name", "?") for seat in seats) or "Uploaded file"
    base = _base(match)
    view_query = "" if option["key"] == "all" else f"&view={option['key']}"
    public_state = None
    if match.live and match.match_id:
        spectator = _ledger().spectator(match.match_id) or {}
        public_state = state_tables(spectator.get("state"))
    key_id = match.report.facts.get("key_id")
    return {
        "match": match,
        # only a sealed match's signature says whose key it is; a live one merely names a key
        "own_key": not match.live and bool(key_id) and key_id in _ledger().server_key_ids(),
        "public_state": public_state,
        "base": base,
        "is_upload": match.key.startswith("u-"),
        "title": title,
        "game_title": game_title(genesis.get("game"), match.game),
        "badges": badges(genesis.get("game"), genesis.get("params"), genesis.get("turn_limit_ms")),
        "seats": [{"label": seat_label(match.game, seats, index), "name": seat.get("name")}
                  for index, seat in enumerate(seats)],
        "result": result_words(result, seats, match.game) if result else (
            "in play" if match.live else ""),
        "events_html": _events_html(match, base, view_query, context["number"]),
        "checks": check_rows(match),
        "perspectives": perspectives(match),
        "perspective": option,
        "view_query": view_query,
        "speeds": AUTOPLAY_SPEEDS,
        "bundle_url": f"{base}/bundle.json" if match.bundle_bytes is not None else None,
        "embed_url": None if match.key.startswith("u-") else request.url_root.rstrip("/") + url_for(
            "viewer.embed", match_id=match.match_id) + f"?step={context['number']}",
        "file_name": f"{match.match_id or 'bundle'}.json",
        "share_url": request.url_root.rstrip("/") + (
            url_for("viewer.match_page", match_id=match.match_id) if not match.key.startswith(
                "u-") else base) + f"?step={context['number']}",
        **context,
    }


# --- pages --------------------------------------------------------------------------------

@bp.route("/")
def home() -> Any:
    """Recent and live matches, search by id, and the upload box."""
    query = request.args.get("q", "").strip()
    notice = None
    ledger = _ledger()
    if query:
        if _MATCH_ID.match(query) and ledger.get(query) is not None:
            return redirect(url_for("viewer.match_page", match_id=query))
        notice = f"No match with id {query!r}."
    game = request.args.get("game") or None
    if game not in GAME_NAMES:
        game = None
    page = max(0, _int_arg("page", 0))
    records = ledger.matches(20, page * 20, game)
    cards = []
    for record in records:
        summary = summarize(record)
        limit = summary.turn_limit_ms
        if "turn_limit_ms" not in (record if isinstance(record, dict) else {}):
            limit = (ledger.get(summary.match_id) or {}).get("turn_limit_ms", limit)
        cards.append({
            "summary": summary,
            "title": game_title(summary.game),
            "badges": badges(summary.game, summary.params, limit),
            "when": date_words(summary.created_ms),
            "result": result_words(summary.result, list(summary.seats), _game_or_none(
                summary.game)),
            "verdict": "live" if summary.live else _verdict(summary.match_id),
        })
    games = [(name, game_title(name, _game_or_none(name))) for name in GAME_NAMES]
    return render_template("viewer/home.html", cards=cards, query=query, notice=notice,
                           games=games,
                           page=page, game=game, has_more=len(records) == 20,
                           limit_mb=UPLOAD_LIMIT // (1024 * 1024))


@bp.route("/m/<match_id>")
def match_page(match_id: str) -> Any:
    """The match at step N, the event list, the stepper and the verification panel."""
    match = _load_stored(match_id)
    return render_template("viewer/match.html", **_page_context(match))


@bp.route("/u/<key>")
def upload_page(key: str) -> Any:
    """An uploaded bundle (not stored): the same page as a stored match."""
    match = _load_upload(key)
    return render_template("viewer/match.html", **_page_context(match))


@bp.route("/embed/<match_id>")
def embed(match_id: str) -> Any:
    """A compact, chrome-free view for streams and forums (an iframe)."""
    match = _load_stored(match_id)
    context = _page_context(match)
    context["fragments"] = context["base"]
    context["base"] = url_for("viewer.embed", match_id=match.match_id)
    context["embed_url"] = None
    response = Response(render_template("viewer/embed.html", **context))
    # the point of this page is to be framed elsewhere
    response.headers["Content-Security-Policy"] = CSP.replace("frame-ancestors 'self'",
                                                              "frame-ancestors *")
    return response


def _fragment(match: LoadedMatch, number: int) -> Any:
    option = _perspective(match)
    context = _step_context(match, number, option)
    if context["step"] is None:
        abort(404, description="this match has no steps to show")
    return jsonify({
        "step": context["number"],
        "last": context["last"],
        "seq": context["step"].seq,
        "caption": context["caption"],
        "actor": context["actor"],
        "board": str(render_template("viewer/_board_inner.html", **context)),
    })


@bp.route("/m/<match_id>/step/<int:number>.json")
def match_step(match_id: str, number: int) -> Any:
    """One step as a fragment: what the stepper fetches instead of reloading the page."""
    return _fragment(_load_stored(match_id), number)


@bp.route("/u/<key>/step/<int:number>.json")
def upload_step(key: str, number: int) -> Any:
    return _fragment(_load_upload(key), number)


def _download(match: LoadedMatch) -> Any:
    if match.bundle_bytes is None:
        abort(404, description="a match in play has no bundle yet: it is sealed at the end")
    name = f"{match.match_id or 'bundle'}.json"
    return Response(match.bundle_bytes, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.route("/m/<match_id>/bundle.json")
def match_bundle(match_id: str) -> Any:
    """The sealed bundle, byte for byte as the server signed it."""
    return _download(_load_stored(match_id))


@bp.route("/u/<key>/bundle.json")
def upload_bundle(key: str) -> Any:
    return _download(_load_upload(key))


@bp.route("/m/<match_id>/live.json")
def match_live(match_id: str) -> Any:
    """What the live page polls: how many public events there are and whether it ended."""
    if not _MATCH_ID.match(match_id):
        abort(404)
    ledger = _ledger()
    record = ledger.get(match_id)
    if record is None:
        abort(404, description=f"no match with id {match_id!r}")
    summary = summarize(record)
    events = record.get("next_seq", record.get("events"))
    if not isinstance(events, int):
        events = len(ledger.events(match_id) or [])
    return jsonify({"match_id": match_id, "events": events, "ended": not summary.live})


# --- upload -------------------------------------------------------------------------------

@bp.route("/upload", methods=["GET"])
def upload_form() -> Any:
    return render_template("viewer/upload.html", limit_mb=UPLOAD_LIMIT // (1024 * 1024),
                           error=None, pasted="", can_store=True)


def _upload_error(message: str, status: int, pasted: str = "") -> Any:
    return render_template("viewer/upload.html", limit_mb=UPLOAD_LIMIT // (1024 * 1024),
                           error=message, pasted=pasted, can_store=True), status


@bp.route("/upload", methods=["POST"])
def upload_post() -> Any:
    """Verify an uploaded bundle; store it only if the user ticked "store"."""
    if request.content_length is not None and request.content_length > UPLOAD_LIMIT + 64_000:
        raise RequestEntityTooLarge()
    request.max_content_length = UPLOAD_LIMIT + 64_000
    request.max_form_memory_size = UPLOAD_LIMIT
    upload = request.files.get("bundle")
    pasted = request.form.get("pasted", "")
    data = upload.read(UPLOAD_LIMIT + 1) if upload is not None and upload.filename else b""
    if not data:
        data = pasted.encode("utf-8")
    if not data.strip():
        return _upload_error("Choose a bundle file or paste its JSON.", 400)
    if len(data) > UPLOAD_LIMIT:
        raise RequestEntityTooLarge()
    trusted_key = request.form.get("trusted_key", "").strip() or None
    if trusted_key is not None:
        try:
            parse_public_key(trusted_key)
        except InvalidKey as e:
            return _upload_error(f"The trusted key is not a public key: {e}", 400)
    match = load_bundle(data, trusted_key=trusted_key)
    if request.form.get("store") and match.report.ok:
        try:
            match_id = _ledger().store(data)
        except ValueError as e:  # the ledger's own refusal, in its own words
            return _upload_error(f"The bundle verifies, but the ledger would not store it: {e}",
                                 409)
        _cache().put(f"m-{match_id}", load_bundle(data, f"m-{match_id}"))
        return redirect(url_for("viewer.match_page", match_id=match_id), 303)
    _uploads().put(match.key, match)
    if not match.events:
        # not a bundle at all: the report says why, with the parser's own message
        return render_template("viewer/upload.html", limit_mb=UPLOAD_LIMIT // (1024 * 1024),
                               error=None, pasted="", can_store=True, failed=match,
                               checks=check_rows(match)), 422
    target = url_for("viewer.upload_page", key=match.key)
    if request.form.get("store") and not match.report.ok:
        target += "?unstored=1"
    return redirect(target, 303)


@bp.route("/u/<key>/store", methods=["POST"])
def upload_store(key: str) -> Any:
    """Store an uploaded bundle that verifies (the user asked after seeing the report)."""
    match = _load_upload(key)
    if not match.report.ok or match.bundle_bytes is None:
        return _upload_error("Only a bundle that verifies can be stored.", 409)
    try:
        match_id = _ledger().store(match.bundle_bytes)
    except ValueError as e:
        return _upload_error(f"The bundle verifies, but the ledger would not store it: {e}", 409)
    _cache().put(f"m-{match_id}", load_bundle(match.bundle_bytes, f"m-{match_id}"))
    return redirect(url_for("viewer.match_page", match_id=match_id), 303)


@bp.after_request
def security_headers(response: Response) -> Response:
    """Defence in depth for pages that show uploaded content: no inline script runs, ever."""
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


# --- errors -------------------------------------------------------------------------------

@bp.errorhandler(RequestEntityTooLarge)
def too_large(error: RequestEntityTooLarge) -> Any:
    """The upload limit, as a page a person can act on."""
    return render_template(
        "viewer/error.html", status=413, heading="That file is too large",
        message=f"Bundles up to {UPLOAD_LIMIT // (1024 * 1024)} MB can be uploaded here "
                "(a long match is well under 1 MB). Verify larger files offline with "
                "`fairdeal verify FILE`."), 413


def _wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best != "application/json" and not request.path.endswith(".json")


@bp.errorhandler(404)
@bp.errorhandler(410)
def not_found(error: HTTPException) -> Any:
    status = error.code or 404
    if not _wants_html():
        return jsonify({"error": error.description}), status
    heading = "Match not found" if status == 404 else "Upload expired"
    return render_template("viewer/error.html", status=status, heading=heading,
                           message=error.description), status
