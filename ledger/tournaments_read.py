"""What anyone reads of a tournament (api.md): its state as one answer, its events, the list,
a player's own table, and after the end the signed bundle and the export (docs/tournaments.md
§3). Every read syncs the results first, so what it shows is what the matches say now.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.checkpoint import TlogProof
from fairdeal.verifier.tournament.pairing import total_rounds
from fairdeal.verifier.tournament.primitives import FORMAT

from .errors import BadRequest, NotEnded
from .players import normal_key_id
from .seatkeys import KEY_ID_DIGITS
from .tables import LogLeafRow
from .tlog import TransparencyLog
from .tournaments_life import TournamentCore
from .tournaments_results import TournamentResults, disputes_until
from .tournaments_state import TournamentState

__all__ = ["TournamentReads"]

_LEAVES = LogLeafRow.__table__  # type: ignore[attr-defined]
#: the time part of a cursor: ASCII digits (str.isdigit also takes "²", which int refuses)
_STAMP = re.compile(r"[0-9]{1,19}\Z")


class TournamentReads:
    """Reads over the tournaments: the shared core's state and tokens, the results (every
    read syncs first; the standings), the log's proofs and the matches' sealed bundles."""

    def __init__(self, core: TournamentCore, results: TournamentResults,
                 log: TransparencyLog, bundle_of: Callable[[str], bytes | None]) -> None:
        self.core = core
        self.results = results
        self.tstore = core.tstore
        self.log = log
        self.bundle_of = bundle_of

    def tournament(self, tournament_id: str) -> dict[str, Any]:
        self.results.sync(tournament_id)
        row, events, state = self.core.load(tournament_id)
        answer = {
            "id": row["id"], "name": row["name"], "status": row["status"],
            "header": state.header,
            "players": [{"player": p["player"], "name": p["name"],
                         "public_key": p["public_key"],
                         "withdrawn_from": state.withdrawn.get(p["player"])}
                        for p in state.registrations],
            "rounds": [{"round": event["round"], "byes": event["byes"], "pairings": [
                self._pairing(state, event["round"], pairing)
                for pairing in event["pairings"]]} for event in state.rounds],
            "disputes": [{"dispute": d["dispute"], "player": d["player"],
                          "match_id": d["match_id"], "step": d["step"], "text": d["text"],
                          "ruling": _ruling(state.rulings.get(d["dispute"]))}
                         for d in state.disputes],
            "standings": self._standings(row, state),
            "next_seq": row["next_seq"], "head": row["head"],
            "total_rounds": None if state.started is None else _total(state),
            # an auto tournament's last round is open to disputes until then (server ms)
            "disputes_until": disputes_until(row, events, state),
        }
        if row["status"] == "finished":
            answer["seed"] = row["seed"]
        return answer

    def _pairing(self, state: TournamentState, number: int,
                 pairing: dict[str, Any]) -> dict[str, Any]:
        table = state.tables[(number, pairing["table"])]
        result = table.result
        return {"table": pairing["table"], "seats": pairing["seats"],
                "match_id": table.match_id, "matches": table.matches,
                "result": None if result is None else {
                    "outcome": result["outcome"], "winner": result["winner"],
                    "match_id": result["match_id"], "changed": bool(result.get("changed"))}}

    def _standings(self, row: dict[str, Any], state: TournamentState) -> list[dict[str, Any]]:
        names = {p["player"]: p["name"] for p in state.registrations}
        try:
            lines = self.results.standings(row, state)
        except NotImplementedError:
            return []  # the verifier's standings are not in this build yet
        return [{**line, "name": names.get(line["player"], "")} for line in lines]

    def events(self, tournament_id: str, after: int = -1) -> list[dict[str, Any]]:
        self.results.sync(tournament_id)
        self.tstore.row(tournament_id)  # TournamentNotFound for an unknown id
        return self.tstore.events(tournament_id, after)

    def list(self, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        rows = self.tstore.rows(limit, _before(cursor))
        listed = []
        for row in rows:
            state = TournamentState.of(self.tstore.events(row["id"]))
            listed.append(_listed(row, state))
        return {"tournaments": listed, "next_cursor": _next_cursor(rows, limit)}

    def key_tournaments(self, kid: Any, limit: int = 50,
                        cursor: str | None = None) -> dict[str, Any]:
        """The tournaments the key ``kid`` registered in, newest first, a page at a time
        (the index of the players by key): each as the list shows it, with the key's own
        registration (its name, public key, the round it withdrew from) and where it stands
        now (rank and score in half-points, computed as the standings are, a running
        tournament's results synced first as on every read of it)."""
        player = normal_key_id(kid)
        if len(player) != KEY_ID_DIGITS:
            raise BadRequest(f"a key's tournaments are found by its full key id "
                             f"({KEY_ID_DIGITS} hex digits) or its public key; got "
                             f"{str(kid)[:80]!r}", code="invalid-key-id")
        rows = self.tstore.rows_of_player(player, limit, _before(cursor))
        found = []
        for listed in rows:
            row = listed
            if listed["status"] == "running":  # where it stands is what its matches say now
                self.results.sync(listed["id"])
                row = self.tstore.row(listed["id"])
            state = TournamentState.of(self.tstore.events(row["id"]))
            entry = state.players[player]
            line = next((line for line in self._standings(row, state)
                         if line["player"] == player), {})
            found.append({**_listed(row, state), "player": {
                "name": entry["name"], "public_key": entry["public_key"],
                "withdrawn_from": state.withdrawn.get(player)},
                "rank": line.get("rank"), "score": line.get("score")})
        return {"key_id": player, "tournaments": found,
                "next_cursor": _next_cursor(rows, limit)}

    def me(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        player = self.core.player(tournament_id, token)
        self.results.sync(tournament_id)
        row, _, state = self.core.load(tournament_id)
        current = len(state.rounds)
        pairing = None
        for (number, _), table in state.tables.items():
            if number == current and player in table.seats:
                seat = table.seats.index(player)
                pairing = {"round": number, "table": table.table, "seat": seat,
                           "match_id": table.match_id, "opponent": table.seats[1 - seat],
                           "result": table.result}
        bye = bool(state.rounds) and player in state.rounds[-1]["byes"]
        return {"player": player, "status": row["status"], "round": current,
                "pairing": pairing, "bye": bye,
                "withdrawn_from": state.withdrawn.get(player),
                "next_seq": row["next_seq"], "head": row["head"]}

    # --- the bundle and the export ---------------------------------------------------------

    def bundle(self, tournament_id: str) -> bytes:
        row = self.tstore.row(tournament_id)
        if row["status"] != "finished" or row["head_sig"] is None:
            raise NotEnded(f"tournament {tournament_id} is not finished: its bundle is signed "
                           "at the end", code="not-finished")
        bundle = {"format": FORMAT, "events": self.tstore.events(tournament_id),
                  "signature": {"key": self.core.server_key.public_text,
                                "sig": row["head_sig"]},
                  "log": self._proofs(tournament_id)}
        return canonical_bytes(bundle)

    def _proofs(self, tournament_id: str) -> dict[str, Any]:
        """The tlog proofs of the tournament's leaves against the latest checkpoint."""
        query = (select(_LEAVES.c.idx, _LEAVES.c.kind).where(
            _LEAVES.c.match_id == tournament_id).order_by(_LEAVES.c.idx))
        with self.log.engine.connect() as conn:
            leaves = [(int(idx), str(kind)) for idx, kind in conn.execute(query)]
        note = self.log.checkpoint()
        size = self.log.size()
        proofs: dict[str, Any] = {"rounds": []}
        for index, kind in leaves:
            if index >= size:
                continue
            text = TlogProof(index, tuple(self.log.inclusion_proof(index, size)), note).text()
            if kind == "tournament-round":
                proofs["rounds"].append(text)
            else:
                proofs[kind.removeprefix("tournament-")] = text
        return proofs

    def export(self, tournament_id: str) -> bytes:
        """The zip: ``tournament.json`` and ``matches/<id>.json`` of every sealed match the
        tournament names (a forfeited table's match may never have been played)."""
        data = self.bundle(tournament_id)
        events = json.loads(data)["events"]
        state = TournamentState.of(events)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("tournament.json", data)
            for table in state.tables.values():
                for match_id in table.matches:
                    sealed = self.bundle_of(match_id)
                    if sealed is not None:
                        archive.writestr(f"matches/{match_id}.json", sealed)
        return buffer.getvalue()


def _before(cursor: str | None) -> tuple[int, str] | None:
    """Where a page starts: just before the ``created_ms:id`` a ``next_cursor`` names."""
    if not cursor:
        return None
    stamp, _, last = cursor.partition(":")
    # a time the database holds (a 64-bit integer: SQLite refuses a larger one outright)
    if not _STAMP.match(stamp) or int(stamp) >= 2**63 or not last:
        raise BadRequest("cursor must be a next_cursor this API returned",
                         code="invalid-cursor")
    return int(stamp), last


def _next_cursor(rows: list[dict[str, Any]], limit: int) -> str | None:
    """The cursor of the page after a full one (None after the last)."""
    if len(rows) < limit or not rows:
        return None
    return f"{rows[-1]['created_ms']}:{rows[-1]['id']}"


def _listed(row: dict[str, Any], state: TournamentState) -> dict[str, Any]:
    """A tournament as a listing shows it."""
    return {"id": row["id"], "name": row["name"], "game": row["game"],
            "system": row["system"], "status": row["status"],
            "players": len(state.registrations), "round": len(state.rounds),
            "rounds": _total(state)}


def _total(state: TournamentState) -> int:
    """How many rounds the tournament plays: known for a round-robin once its field is (until
    then, the header's cycles stand for it); a Swiss's header says."""
    players = len(state.started["players"]) if state.started else len(state.registrations)
    if state.started is None and state.header["system"] == "round-robin":
        return int(state.header["rounds"])
    return total_rounds(state.header["system"], players, state.header["rounds"])


def _ruling(event: dict[str, Any] | None) -> dict[str, Any] | None:
    if event is None:
        return None
    return {"decision": event["decision"], "text": event["text"], "seq": event["seq"]}
