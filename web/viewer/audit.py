"""The viewer's audit pages: ``/audit`` runs the fairness audit over the server's own ledger,
``/audit?player=NAME`` over one player's matches, and ``/m/<id>/dispute?step=N`` shows the
dispute report for one step.

Only the matches sealed under this server's own key are counted: imported ones (anyone may
post a bundle sealed under a key of their own) are listed apart, by key, and with
``?include_imported=1`` audited each key on its own, never mixed into this server's figures.

An audit reads every sealed match, so it never runs inside a request: ONE background worker
computes the reports, from a small queue, and the page serves the last finished report. Each
request compares the ledger's match counts with those the report was computed from; when
matches were sealed (or created) since, a refresh is queued and the page says it is under way.
A request for a report not computed yet while the queue is full is answered 503 with
Retry-After; a player name no match has is answered at once, without reading any bundle.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from html import escape
from typing import Any

from flask import Response, abort, current_app, jsonify, render_template, request, url_for
from markupsafe import Markup

from fairdeal.ledger.errors import BadRequest
from fairdeal.verifier.dispute import DisputeError, NoSuchStep, dispute_report
from fairdeal.verifier.dispute_html import dispute_html

from ..queryargs import parse_int
from .blueprint import bp
from .loading import ledger, load_stored, load_upload, missing
from .present import utc_times

__all__ = ["AuditCache"]

#: how long a request waits for a first report before it answers "being computed"
FIRST_WAIT_S = 5.0
#: one-player reports kept at once (the whole ledger's is always kept)
PLAYER_REPORTS = 32
#: audits waiting for the one worker at most; past it a request for a report not cached yet is
#: answered 503 with Retry-After (the whole ledger's audit is always let in, at the front)
QUEUE_LIMIT = 4
#: what a 202 or 503 answer tells the client to wait before asking again
RETRY_AFTER_S = 5
_SEALED = ("ended", "imported")

#: what one report covers: the player's name (None: everyone), whether imported matches are
#: audited too (each signer key on its own), and the seat key (None: any)
Key = tuple[str | None, bool, str | None]


@dataclass
class _Entry:
    html: str
    counts: tuple[int, int]
    finished: float
    #: with a seat key: that key's own figures (``audit.key_figures``), for its page
    figures: Any = None


def _whole(key: Key) -> bool:
    """The whole ledger's report: always kept, and never starved by one player's."""
    return key[0] is None and key[2] is None


class AuditCache:
    """The finished audit reports, by player and ``include_imported``, and the one worker that
    computes them.

    Every audit runs on ONE worker thread per cache (one cache per app: per process), fed by a
    small queue: many requests for different names never start more threads, and a request
    for a report already queued or running waits for that computation instead of starting
    another (break 9: a thread per name, each reading every bundle, had no limit)."""

    def __init__(self, ledger: Any) -> None:
        self._ledger = ledger
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        #: waiting for the worker, in order (the whole ledger's first)
        self._queued: OrderedDict[Key, None] = OrderedDict()
        #: queued or being computed: set when the computation ends
        self._pending: dict[Key, threading.Event] = {}
        self._worker: threading.Thread | None = None
        #: worker threads ever started (the tests check it stays at one)
        self.workers_started = 0
        #: audits computed (each read every sealed bundle)
        self.computed = 0

    def counts(self) -> tuple[int, int]:
        """Sealed matches and all matches: when either changes, the report is stale."""
        store = self._ledger.store
        return store.count_matches(status=_SEALED), store.count_matches()

    def report(self, key: Key, wait: float = 0.0) -> tuple[_Entry | None, bool, bool]:
        """The last finished report, whether a refresh is under way (queued if stale), and
        whether the queue was full so none could be queued."""
        counts = self.counts()
        full = False
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            done = self._pending.get(key)
            if (entry is None or entry.counts != counts) and done is None:
                if _whole(key) or len(self._queued) < QUEUE_LIMIT:
                    done = self._pending[key] = threading.Event()
                    self._queued[key] = None
                    if _whole(key):  # the whole ledger's page is never starved by names
                        self._queued.move_to_end(key, last=False)
                    self._start_worker()
                    self._wake.notify()
                else:
                    full = True
        if entry is None and done is not None and wait > 0:
            done.wait(wait)
            with self._lock:
                entry = self._entries.get(key)
                done = self._pending.get(key)
        return entry, done is not None, full

    def has_player(self, name: str) -> bool:
        """Whether any match in the ledger has ``name`` at a seat (no bundle is read)."""
        return bool(self._ledger.store.has_player(name))

    def _start_worker(self) -> None:
        # called with the lock held: at most one worker, started on the first request
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="fairdeal-audit",
                                            daemon=True)
            self.workers_started += 1
            self._worker.start()

    def _work(self) -> None:
        while True:
            with self._wake:
                while not self._queued:
                    self._wake.wait()
                key, _ = self._queued.popitem(last=False)
            try:
                counts = self.counts()
                html, figures = _audit_html(self._ledger, *key)
                with self._lock:
                    self.computed += 1
                    self._entries[key] = _Entry(html, counts, time.time(), figures)
                    self._entries.move_to_end(key)
                    while len(self._entries) > PLAYER_REPORTS + 2:
                        oldest = next(k for k in self._entries if not _whole(k))
                        del self._entries[oldest]
            except Exception:  # the page must keep serving the last report; log why this failed
                current_log().exception("the audit refresh failed")
            finally:
                with self._lock:
                    done = self._pending.pop(key, None)
                if done is not None:
                    done.set()


def current_log() -> Any:
    import logging

    return logging.getLogger("fairdeal.web.audit")


def _audit_html(ledger: Any, player: str | None, include_imported: bool,
                seat_key: str | None = None) -> tuple[str, Any]:
    """The report's body, and with ``seat_key`` that key's own figures for its page."""
    from fairdeal.audit import Filters, add_ledger_counts, audit_bundles, key_figures
    from fairdeal.audit.html import render_body
    from fairdeal.audit.report import build_report, signer_words

    own = ledger.server_key.public_text
    # only this server's own key is counted as its own: anyone may import a bundle sealed
    # under a key of their own (POST /api/v1/bundles), and it must not steer these figures
    filters = Filters(player=player, seat_key=seat_key, signers=frozenset({own}),
                      each_key=include_imported)
    tally = audit_bundles(ledger.sealed_bundles(), filters)
    counts = ledger.player_counts()
    add_ledger_counts(tally, counts, filters)
    report = build_report(
        tally, filters, "this server's ledger (sealed matches)",
        signer_words(own, this_server=True),
        lambda key: signer_words(key, note=" (imported: not this server's key; tallied on "
                                           "its own)"),
        "add include_imported=1 to the address to audit each of these keys on its own")
    figures = None
    if seat_key is not None:
        created = sum(c for group in counts for c, _ in group.values())
        unsealed = sum(u for group in counts for _, u in group.values())
        record = tally.keys.get(seat_key)
        figures = {"matches": tally.matches,
                   "tests": [] if record is None else key_figures(
                       record, unsealed / created if created else None)}
    return render_body(report), figures


def _cache() -> AuditCache:
    ledger = current_app.extensions.get("fairdeal.ledger")
    if ledger is None or not hasattr(ledger, "sealed_bundles"):
        abort(404, description="this viewer has no ledger to audit")
    cache: AuditCache = current_app.extensions.setdefault("fairdeal.audit", AuditCache(ledger))
    return cache


def _page(title: str, body: str, status: int = 200, note: str = "",
          refresh: bool = False) -> Response:
    """An audit page in the site's own layout: its bar and navigation, its style. ``body`` is
    trusted markup (the report, or a sentence of ours)."""
    # one player's or one key's report links back to the whole ledger's
    part = bool(request.args.get("player", "").strip() or request.args.get("seat_key", "").strip())
    page = render_template("viewer/audit.html", title=title, body=Markup(body), note=note,
                           refresh=refresh, player=part)
    answer = Response(page, status=status, mimetype="text/html")
    if status in (202, 503):
        answer.headers["Retry-After"] = str(RETRY_AFTER_S)
    return answer


def _computed_note(entry: _Entry, refreshing: bool, full: bool) -> str:
    """When the report shown was computed, and whether a fresher one is on its way."""
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(entry.finished))
    if refreshing:
        return (f"Computed {when} — matches were sealed since: a fresh report is being "
                "computed; reload in a moment.")
    if full:
        return (f"Computed {when} — matches were sealed since, and other audits are being "
                "computed: reload in a little while for a fresh report.")
    return f"Computed {when}, from every match sealed by then."


@bp.route("/audit")
def audit_page() -> Any:
    """The fairness audit of every match sealed under this server's key (``?player=NAME``:
    one player's; ``?include_imported=1``: the imported matches too, each key on its own)."""
    player = request.args.get("player", "").strip() or None
    if player is not None and len(player) > 80:
        abort(404, description="a player name has at most 80 characters")
    seat_key = _seat_key_arg()
    flag = request.args.get("include_imported", "").strip().lower()
    if flag not in ("", "0", "1", "true", "false", "yes", "no"):
        abort(400, description=f"include_imported must be 1 or 0, got {flag!r}")
    include_imported = flag in ("1", "true", "yes")
    cache = _cache()
    if player is not None and not cache.has_player(player):
        # answered at once: no bundle is read for a name no match has
        return _page("No such player",
                     f"<p>No match in this ledger has a player named {escape(player)} at a "
                     "seat: there is nothing to audit.</p>", 404)
    entry, refreshing, full = cache.report((player, include_imported, seat_key),
                                           wait=FIRST_WAIT_S)
    if entry is None and full:
        return _page("The audit is busy", "<p>Other audits are being computed; ask again in "
                     "a few seconds.</p>", 503)
    if entry is None:
        return _page("The audit is being computed",
                     "<p>Every sealed match is verified and counted; this page reloads itself "
                     "until the report is ready.</p>", 202, refresh=True)
    title = ("Fairness audit of this server" if player is None and seat_key is None
             else f"Fairness audit: seat key {seat_key}'s matches" if seat_key is not None
             else f"Fairness audit: {player}'s matches")
    return _page(title, entry.html, note=_computed_note(entry, refreshing, full))


def _dispute(match: Any) -> Any:
    back = (url_for("viewer.upload_page", key=match.key) if match.key.startswith("u-")
            else url_for("viewer.match_page", match_id=match.match_id))
    if match.bundle_bytes is None:
        missing("a match in play has no dispute report yet: it needs the sealed bundle",
                "No dispute report yet", back)
    try:
        step = parse_int("step", request.args.get("step", "0"), minimum=0)
    except BadRequest as e:
        missing(e.message, "Step not found", back)
    try:
        # this server's own keys: a match sealed under another key is said to be "signed by
        # another server" there too, as on every other page
        report = dispute_report(match.bundle_bytes, step, server_keys=ledger().server_keys())
    except NoSuchStep as e:
        missing(str(e), "Step not found", back)
    except DisputeError as e:
        missing(str(e), "No dispute report for this file", back)
    return Response(_people_times(dispute_html(report)), mimetype="text/html")


def _people_times(page: str) -> str:
    """The report's words with event times in UTC ISO 8601 (``utc_times``); the events quoted
    in ``<pre>`` stay byte for byte as the file has them."""
    pieces = re.split(r"(<pre>.*?</pre>)", page, flags=re.DOTALL)
    return "".join(piece if piece.startswith("<pre>") else utc_times(piece) for piece in pieces)


@bp.route("/m/<match_id>/dispute")
def match_dispute(match_id: str) -> Any:
    """The dispute report for step ``?step=N`` of a stored match."""
    return _dispute(load_stored(match_id))


@bp.route("/u/<key>/dispute")
def upload_dispute(key: str) -> Any:
    """The dispute report for step ``?step=N`` of an uploaded bundle."""
    return _dispute(load_upload(key))


@bp.errorhandler(400)
def bad_request(error: Any) -> Any:
    """A query the audit cannot take (``include_imported=maybe``): the site's error page,
    naming the problem (JSON for a client that asked for JSON)."""
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    if best == "application/json" or request.path.endswith(".json"):
        return jsonify({"error": error.description}), 400
    return render_template("viewer/error.html", status=400, heading="Bad request",
                           message=error.description), 400


def _seat_key_arg() -> str | None:
    """``?seat_key=``: the full key id it names here (a prefix will do); a clear 400 or 404
    page for a malformed, ambiguous or unknown one."""
    from fairdeal.ledger.errors import KeyNotFound

    text = request.args.get("seat_key", "").strip()
    if not text:
        return None
    ledger = current_app.extensions.get("fairdeal.ledger")
    if ledger is None:
        abort(404, description="this viewer has no ledger to audit")
    try:
        return str(ledger.resolve_key(text))
    except KeyNotFound as e:
        abort(404, description=e.message)
    except BadRequest as e:
        abort(400, description=e.message)


def key_audit_summary(kid: str) -> dict[str, Any] | None:
    """A seat key's own audit figures for its page (``/k/<key id>``): ``{"tests",
    "counted"}`` once the report is computed, ``{"pending": words}`` while it is; None for
    a viewer without a ledger. The report is the one ``/audit?seat_key=`` shows, from the
    same one worker and cache."""
    ledger = current_app.extensions.get("fairdeal.ledger")
    if ledger is None or not hasattr(ledger, "sealed_bundles"):
        return None
    # the page is not held up long for it: it says the audit is on its way instead
    entry, refreshing, full = _cache().report((None, False, kid), wait=1.0)
    if entry is None or entry.figures is None:
        return {"pending": "The audit is busy; reload in a few seconds." if full else
                "The audit of this key's matches is being computed: reload in a moment."}
    tests = [{"name": t.name, "title": t.title,
              "detail": f"{t.counted}: {t.detail}" if t.detail else t.counted,
              "p": "" if t.adjusted_p is None else f"{t.adjusted_p:.3g}",
              "verdict": t.verdict} for t in entry.figures["tests"]]
    counted = (f"From the {entry.figures['matches']} sealed matches of this key under this "
               "server's key (each test at the 1% level, Bonferroni over the three; a test "
               "needs 20 matches)" + ("; a fresh report is being computed" if refreshing
                                      else ""))
    return {"tests": tests, "counted": counted}
