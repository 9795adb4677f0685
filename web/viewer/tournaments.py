"""The tournament pages: ``/t/`` (every tournament, newest first), ``/t/<id>`` (standings,
rounds, disputes and the verification panel), ``/t/<id>/crosstable`` and ``/t/<id>/live.json``
(what a live page polls). Thin: the ledger's tournament reads (ledger/service.py) give the
answer the API gives, tournaments_model.py turns it into rows, and a finished tournament's
verdict is verifier.tournament's own, run here on the export anyone downloads."""

from __future__ import annotations

from typing import Any

from flask import current_app, jsonify, render_template, request, url_for

from fairdeal.ledger.errors import BadRequest
from fairdeal.verifier.tournament import TOURNAMENT_CHECKS, verify_tournament_zip

from . import tournaments_model as model
from .blueprint import bp
from .loading import MATCH_ID, ledger, missing
from .matches import MatchCache
from .sources import LedgerReader

__all__ = ["key_tournaments", "tournament_verdict"]

#: tournaments on one page of /t/
PAGE = 20
#: how many of a key's newest tournaments its page lists
KEY_PAGE = 50


def _source() -> Any:
    """The ledger's tournament reads; a viewer without a ledger (its in-memory store) has none
    and answers every tournament page with a 404 page saying so."""
    source = ledger().ledger
    if not hasattr(source, "tournament"):
        missing("This viewer keeps no ledger of its own, so it has no tournaments.",
                "No tournaments here")
    return source


def _answer(tournament_id: str) -> dict[str, Any]:
    """The ledger's answer for ``tournament_id`` (the API's GET), or the 404 page."""
    if not MATCH_ID.match(tournament_id):
        missing(f"{tournament_id!r} is not a tournament id", "Tournament not found")
    try:
        return dict(_source().tournament(tournament_id))
    except LookupError:
        missing(f"no tournament with id {tournament_id!r}", "Tournament not found",
                url_for("viewer.tournament_list"))


@bp.route("/t/")
def tournament_list() -> Any:
    """Every tournament here, newest first, a page at a time (``?cursor=``)."""
    cursor = request.args.get("cursor") or None
    try:
        found = _source().list_tournaments(PAGE, cursor)
    except BadRequest as e:
        return render_template("viewer/error.html", status=400, heading="Not a page of this list",
                               message=e.message), 400
    return render_template("viewer/tournaments.html", found=found, cursor=cursor,
                           tournaments=found.get("tournaments") or [])


@bp.route("/t/<tournament_id>")
def tournament_page(tournament_id: str) -> Any:
    """One tournament: its standings with tie-breaks, its rounds and their matches, its
    disputes and rulings, its players and the verification panel."""
    answer = _answer(tournament_id)
    events = list(_source().tournament_events(tournament_id))
    facts = model.summary(answer)
    return render_template(
        "viewer/tournament.html", t=facts, header=answer.get("header") or {},
        columns=model.tiebreak_columns(answer.get("header") or {}),
        standings=model.standings(answer), rounds=model.rounds(answer),
        disputes=model.disputes(answer, events), players=list(model.players(answer).values()),
        **_verify_context(facts))


@bp.route("/t/<tournament_id>/crosstable")
def tournament_crosstable(tournament_id: str) -> Any:
    """The cross-table: every player against every other, results by round."""
    answer = _answer(tournament_id)
    return render_template("viewer/tournament_crosstable.html", t=model.summary(answer),
                           table=model.crosstable(answer))


@bp.route("/t/<tournament_id>/live.json")
def tournament_live(tournament_id: str) -> Any:
    """What a live tournament page polls: how many events there are and the status."""
    answer = _answer(tournament_id)
    return jsonify({"id": answer.get("id"), "next_seq": answer.get("next_seq"),
                    "status": answer.get("status")})


def _verify_context(facts: dict[str, Any]) -> dict[str, Any]:
    """The export's address and the command that verifies it offline with the server's and
    the arbiter's keys pinned (the server's public key is this server's own, when it is)."""
    server_key = next((key for key in ledger().server_keys()
                       if model.short_key(key) == facts["server_key_id"]), None)
    file_name = f"{facts['id']}.zip"
    command = " ".join(["fairdeal verify", file_name]
                       + ([f"--trusted-key {server_key}"] if server_key else [])
                       + ([f"--arbiter-key {facts['arbiter_key']}"]
                          if facts["arbiter_key"] else []))
    verdict = (tournament_verdict(facts["id"], server_key, facts["arbiter_key"])
               if facts["status"] == "finished" else None)
    return {"server_key": server_key, "file_name": file_name, "verify_command": command,
            "verdict": verdict,
            "checks": verdict["checks"] if verdict else [
                {"name": name, "status": "pending", "title": title, "detail": ""}
                for name, title in TOURNAMENT_CHECKS],
            # the API's export (named as the API names its download: <id>.zip)
            "export_url": url_for("api.tournament_export", tournament_id=facts["id"])
            if "api" in current_app.blueprints else None}


def _verdicts() -> MatchCache:
    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.tournament-verdicts",
                                                          MatchCache(256))
    return cache


def tournament_verdict(tournament_id: str, server_key: str | None,
                       arbiter_key: str | None) -> dict[str, Any]:
    """The server's own run of the tournament verifier on the export anyone downloads, with
    the server's and the arbiter's keys pinned: ``{"ok", "failure", "checks"}``. A finished
    tournament never changes, so its verdict is kept by id."""
    found = _verdicts().peek(tournament_id)
    if found is None:
        export = bytes(_source().tournament_export(tournament_id))
        report = verify_tournament_zip(export, trusted_key=server_key, arbiter_key=arbiter_key)
        found = {"ok": report.ok,
                 "failure": str(report.failure) if report.failure else None,
                 "checks": [{"name": check.name, "status": check.status,
                             "title": check.title, "detail": check.detail}
                            for check in report.checks]}
        _verdicts().put(tournament_id, found)
    return found  # type: ignore[no-any-return]


def key_tournaments(reader: LedgerReader, kid: str) -> list[dict[str, Any]]:
    """The newest KEY_PAGE tournaments the key ``kid`` (a full key id) registered in, newest
    first, each with where the key stands: the ledger's own lookup over its index of the
    players by key (``Ledger.key_tournaments``); none for a viewer without a ledger."""
    source = reader.ledger
    if not hasattr(source, "key_tournaments"):
        return []
    return [_key_line(item) for item in source.key_tournaments(kid, KEY_PAGE)["tournaments"]]


def _key_line(item: dict[str, Any]) -> dict[str, Any]:
    """One line of a key page's tournaments: the tournament and where the key stands in it."""
    return {"id": item.get("id"), "name": item.get("name"),
            "public_key": (item.get("player") or {}).get("public_key"),
            "status": item.get("status"), "rank": item.get("rank"),
            "score": model.half_points(item.get("score")), "players": item.get("players")}
