"""The viewer's audit pages: ``/audit`` runs the fairness audit over the server's own ledger,
``/audit?player=NAME`` over one player's matches, and ``/m/<id>/dispute?step=N`` shows the
dispute report for one step.

An audit reads every sealed match, so it never runs inside a request: a background thread
computes it and the page serves the last finished report. Each request compares the ledger's
match counts with those the report was computed from; when matches were sealed (or created)
since, a refresh starts in the background and the page says it is under way.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from html import escape
from typing import Any

from flask import Response, abort, current_app, request, url_for

from fairdeal.ledger.errors import BadRequest
from fairdeal.verifier.dispute import DisputeError, dispute_report
from fairdeal.verifier.dispute_html import dispute_html

from ..queryargs import parse_int
from . import bp
from .loading import load_stored, load_upload

__all__ = ["AuditCache"]

#: how long a request waits for a first report before it answers "being computed"
FIRST_WAIT_S = 5.0
#: one-player reports kept at once (the whole ledger's is always kept)
PLAYER_REPORTS = 32
_SEALED = ("ended", "imported")


@dataclass
class _Entry:
    html: str
    counts: tuple[int, int]
    finished: float


class AuditCache:
    """The finished audit reports, by player (None: everyone), and the refreshes running."""

    def __init__(self, ledger: Any) -> None:
        self._ledger = ledger
        self._lock = threading.Lock()
        self._entries: OrderedDict[str | None, _Entry] = OrderedDict()
        self._running: dict[str | None, threading.Event] = {}

    def counts(self) -> tuple[int, int]:
        """Sealed matches and all matches: when either changes, the report is stale."""
        store = self._ledger.store
        return store.count_matches(status=_SEALED), store.count_matches()

    def report(self, player: str | None, wait: float = 0.0) -> tuple[_Entry | None, bool]:
        """The last finished report and whether a refresh is under way (started if stale)."""
        counts = self.counts()
        with self._lock:
            entry = self._entries.get(player)
            if entry is not None:
                self._entries.move_to_end(player)
            stale = entry is None or entry.counts != counts
            done = self._running.get(player)
            if stale and done is None:
                done = self._running[player] = threading.Event()
                threading.Thread(target=self._refresh, args=(player, counts, done),
                                 name="fairdeal-audit", daemon=True).start()
        if entry is None and done is not None and wait > 0:
            done.wait(wait)
            with self._lock:
                entry = self._entries.get(player)
                done = self._running.get(player)
        return entry, done is not None

    def _refresh(self, player: str | None, counts: tuple[int, int],
                 done: threading.Event) -> None:
        try:
            html = _audit_html(self._ledger, player)
            with self._lock:
                self._entries[player] = _Entry(html, counts, time.time())
                self._entries.move_to_end(player)
                while len(self._entries) > PLAYER_REPORTS + 1:
                    oldest = next(key for key in self._entries if key is not None)
                    del self._entries[oldest]
        except Exception:  # the page must keep serving the last report; log why this failed
            current_log().exception("the audit refresh failed")
        finally:
            with self._lock:
                self._running.pop(player, None)
            done.set()


def current_log() -> Any:
    import logging

    return logging.getLogger("fairdeal.web.audit")


def _audit_html(ledger: Any, player: str | None) -> str:
    from fairdeal.audit import Filters, audit_bundles
    from fairdeal.audit.html import render_html
    from fairdeal.audit.report import build_report

    filters = Filters(player=player)
    tally = audit_bundles(ledger.sealed_bundles(), filters)
    for name, (created, unsealed) in ledger.seat_counts().items():
        if player in (None, name):
            tally.count_unsealed(name, created, unsealed)
    report = build_report(tally, filters, "this server's ledger (sealed matches)")
    title = ("Fairness audit of this server" if player is None
             else f"Fairness audit: {player}'s matches")
    return render_html(report, title, nav="{{NAV}}")


def _cache() -> AuditCache:
    ledger = current_app.extensions.get("fairdeal.ledger")
    if ledger is None or not hasattr(ledger, "sealed_bundles"):
        abort(404, description="this viewer has no ledger to audit")
    cache: AuditCache = current_app.extensions.setdefault("fairdeal.audit", AuditCache(ledger))
    return cache


@bp.route("/audit")
def audit_page() -> Any:
    """The fairness audit of every sealed match here (``?player=NAME``: one player's)."""
    player = request.args.get("player", "").strip() or None
    if player is not None and len(player) > 80:
        abort(404, description="a player name has at most 80 characters")
    entry, refreshing = _cache().report(player, wait=FIRST_WAIT_S)
    home = url_for("viewer.home")
    whole = url_for("viewer.audit_page")
    nav = (f'<p><a href="{escape(home)}">← all matches</a>'
           + (f' · <a href="{escape(whole)}">the whole ledger\'s audit</a>' if player else "")
           + "</p>")
    if entry is None:
        page = ("<!doctype html><html lang=en><meta charset=utf-8>"
                '<meta http-equiv="refresh" content="3"><title>Audit being computed</title>'
                f"{nav}<h1>The audit is being computed</h1><p>Every sealed match is verified "
                "and counted; this page reloads itself until the report is ready.</p></html>")
        return Response(page, status=202, mimetype="text/html")
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(entry.finished))
    note = f"<p><small>Computed {when}"
    note += (" — matches were sealed since: a fresh report is being computed; reload in a "
             "moment.</small></p>" if refreshing else ", from every match sealed by then."
             "</small></p>")
    return Response(entry.html.replace("{{NAV}}", nav + note, 1), mimetype="text/html")


def _dispute(match: Any) -> Any:
    if match.bundle_bytes is None:
        abort(404, description="a match in play has no dispute report yet: it needs the "
                               "sealed bundle")
    try:
        step = parse_int("step", request.args.get("step", "0"), minimum=0)
    except BadRequest as e:
        abort(404, description=e.message)
    try:
        report = dispute_report(match.bundle_bytes, step)
    except DisputeError as e:
        abort(404, description=str(e))
    return Response(dispute_html(report), mimetype="text/html")


@bp.route("/m/<match_id>/dispute")
def match_dispute(match_id: str) -> Any:
    """The dispute report for step ``?step=N`` of a stored match."""
    return _dispute(load_stored(match_id))


@bp.route("/u/<key>/dispute")
def upload_dispute(key: str) -> Any:
    """The dispute report for step ``?step=N`` of an uploaded bundle."""
    return _dispute(load_upload(key))
