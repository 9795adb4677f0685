"""Players by the key they sign with: the page ``/k/<key id>`` (every match a seat key signed
here, newest first, its record, its names as labels, its own fairness audit) and the home
page's search (a match-id or key-id prefix, or a name). Thin: the ledger's ``key_matches`` and
``search`` (ledger/players.py) do the work; this viewer without a ledger (the in-memory store)
has no key pages and searches by match id only, as before."""

from __future__ import annotations

import re
from typing import Any

from flask import redirect, render_template, request, url_for

from fairdeal.ledger.errors import BadRequest, KeyNotFound

from .blueprint import bp
from .loading import game_or_none, judgement, ledger
from .present import badges, date_words, game_title, is_simulated, result_words
from .sources import LedgerReader, summarize
from .tournaments import key_tournaments

__all__ = ["match_card", "search_context"]

#: matches on one page of a key's page or a search
PAGE = 20
#: a full key id (SPEC §1: 16 hex digits)
KEY_ID = re.compile(r"[0-9a-f]{16}\Z")


def match_card(reader: LedgerReader, record: Any) -> dict[str, Any]:
    """One match card of a listing (the home page, a search, a key's page)."""
    summary = summarize(record)
    limit = summary.turn_limit_ms
    if "turn_limit_ms" not in (record if isinstance(record, dict) else {}):
        limit = (reader.get(summary.match_id) or {}).get("turn_limit_ms", limit)
    verdict, signer_id = ("live", None) if summary.live else judgement(summary.match_id)
    extra = record if isinstance(record, dict) else {}
    return {
        "summary": summary,
        "title": game_title(summary.game, game_or_none(summary.game)),
        "simulated": is_simulated(summary.seats),
        "badges": badges(summary.game, summary.params, limit),
        "when": date_words(summary.created_ms),
        "result": result_words(summary.result, list(summary.seats), game_or_none(
            summary.game)),
        "verdict": verdict,
        # the key id of a bundle signed by another server ("other-signer")
        "signer": signer_id,
        # the key id at each seat, where the listing knows them (a search)
        "seat_keys": extra.get("seat_key_ids") or [],
        # on a key's page: the seats the key held and how the match ended for it
        "key_seats": extra.get("key_seats") or [],
        "key_result": extra.get("key_result"),
    }


def _players(reader: LedgerReader) -> Any:
    """The ledger's player reads, or None for a viewer without a ledger."""
    source = reader.ledger
    return source if hasattr(source, "key_matches") else None


def search_context(reader: LedgerReader, query: str, page: int) -> dict[str, Any] | None:
    """What the search page shows for ``query``, or ``{"redirect": url}`` when it names one
    seat key and no match; None when this viewer cannot search (no ledger)."""
    source = _players(reader)
    if source is None:
        return None
    try:
        found = source.search(query, PAGE, page * PAGE)
    except BadRequest as e:
        return {"kind": "invalid", "keys": [], "matches": [], "has_more": False,
                "problem": e.message}
    if found["kind"] == "prefix" and len(found["keys"]) == 1 and not found["matches"] \
            and page == 0:
        return {"redirect": url_for("viewer.key_page", key=found["keys"][0]["key_id"])}
    return found


def _error_page(status: int, heading: str, message: str) -> Any:
    return render_template("viewer/error.html", status=status, heading=heading,
                           message=message), status


@bp.route("/k/<key>")
def key_page(key: str) -> Any:
    """Every match a seat key signed here, newest first, with its record by game, the names
    it sat under (labels beside the key) and its own fairness audit."""
    reader = ledger()
    source = _players(reader)
    if source is None:
        return _error_page(404, "No key pages here",
                           "This viewer keeps no ledger of its own, so it cannot list a seat "
                           "key's matches.")
    cursor = request.args.get("cursor") or None
    try:
        found = source.key_matches(key, PAGE, cursor)
    except KeyNotFound as e:
        # a player registered in a tournament has a page before its first match (a bye, a
        # round not yet played): its tournaments only
        tournaments = key_tournaments(reader, key) if KEY_ID.match(key) else []
        if not tournaments:
            return _error_page(404, "Seat key not found", e.message)
        found = {"key_id": key, "public_keys": sorted({item["public_key"] for item in tournaments
                                                       if item.get("public_key")}),
                 "names": [], "total": 0, "record": {}, "matches": [], "next_cursor": None}
        return render_template("viewer/key.html", found=found, cards=[], cursor=None,
                               audit=None, tournaments=tournaments)
    except BadRequest as e:
        heading = {"ambiguous-key-id": "Several keys match",
                   "invalid-cursor": "Not a page of this list"}.get(e.code, "Not a key id")
        return _error_page(400, heading, e.message)
    if found["key_id"] != key:  # a prefix or a public key: the page lives at the full id
        return redirect(url_for("viewer.key_page", key=found["key_id"], cursor=cursor))
    cards = [match_card(reader, record) for record in found["matches"]]
    return render_template("viewer/key.html", found=found, cards=cards, cursor=cursor,
                           audit=key_audit(found["key_id"]),
                           tournaments=key_tournaments(reader, found["key_id"]))


def key_audit(kid: str) -> Any:
    """The key's own fairness audit (web/viewer/audit.py), or None where it cannot run."""
    from .audit import key_audit_summary

    return key_audit_summary(kid)
