"""Results, disputes, rulings and the end of a tournament (docs/tournaments.md §2, §5).

Results are never typed in: ``sync`` reads each paired match's own sealed events — the head
hash, the last seq and the winner its ``reveal`` declares — and appends the ``result``. A table
whose player withdrew while that round was under way (from the next round on) and
before the game's first move is a ``forfeit`` (both:
``double-forfeit``); the ledger leaves that match alone, and its seating window and turn
deadlines end it as any match (the no-show loses) — its own result is then not counted, the
forfeit is. Sync is idempotent (a table gets a result only when the log holds none for its
current match) and safe when two run at once: each append names its position, and the loser
re-reads the log and finds the result written.

Disputes are the players' (signed, on their own sealed match, the report hash re-computed here
from the match's bundle); rulings are the arbiter's (the signature is the authority); a replay
is a new match for the disputed table that the organiser asks for and the arbiter's ruling then
names. ``finish`` reveals the seed and writes the final standings, signs the head and logs it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fairdeal.verifier.dispute import DisputeError
from fairdeal.verifier.tournament.disputes import dispute_report_hash
from fairdeal.verifier.tournament.pairing import total_rounds
from fairdeal.verifier.tournament.primitives import event_hash, head_message
from fairdeal.verifier.tournament.standings import standings

from .errors import BadRequest, ConflictError
from .tournaments_life import (
    TournamentCore,
    TournamentLife,
    check_signature,
    has_moves,
    position,
)
from .tournaments_matches import insert_matches, new_match
from .tournaments_state import Table, TournamentState, points_of

__all__ = ["TournamentResults", "disputes_until"]

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_DECISIONS = ("result-stands", "result-changed", "replay-ordered", "penalty")


class TournamentResults:
    """Sync, disputes, replays, rulings, finish: over the shared ``TournamentCore``, with the
    lifecycle (``life``: auto mode pairs through it) and the sealed bundles of matches
    (``bundle_of``: ``ReadSide.bundle_bytes``)."""

    def __init__(self, core: TournamentCore, life: TournamentLife,
                 bundle_of: Callable[[str], bytes | None]) -> None:
        self.core = core
        self.life = life
        self.bundle_of = bundle_of
        #: when ``sync_all`` last ran (server ms)
        self._last_sync_ms = -1_000_000

    # --- results -------------------------------------------------------------------------------

    def _outcome(self, state: TournamentState, table: Table,
                 ended: set[str]) -> dict[str, Any] | None:
        """The result a table's current match gives now (``ended``: the sealed ones among the
        pending tables' matches), or None while it is undecided."""
        absent = state.forfeiting(table)
        if absent and not has_moves(self.core.store, table.match_id):
            if len(absent) == 2:
                return {"outcome": "double-forfeit", "winner": None}
            return {"outcome": "forfeit",
                    "winner": next(seat for seat in table.seats if seat not in absent)}
        if table.match_id not in ended:
            return None
        events = self.core.store.read(table.match_id)
        reveal = next(event for event in reversed(events) if event.type == "reveal")
        winner = json.loads(reveal.body)["result"]["winner"]
        return {"outcome": "match", "head": reveal.hash, "match_seq": reveal.seq,
                "winner": None if winner is None else table.seats[int(winner)]}

    def sync(self, tournament_id: str) -> int:
        """Append every result now known; with ``auto``, pair the next round when one is
        complete, and finish after the last once its dispute window has passed with no
        dispute open (``disputes_until``). Returns how many events were written."""
        def write(row: dict[str, Any], events: list[dict[str, Any]],
                  state: TournamentState) -> int:
            if row["status"] != "running":
                return 0
            pending = [table for table in state.tables.values() if table.result is None]
            ended = self.core.tstore.ended([table.match_id for table in pending])
            results = []
            for table in pending:
                outcome = self._outcome(state, table, ended)
                if outcome is not None:  # appended together: one transaction, chained
                    results.append(self.core.draft(
                        row, events, "result", round=table.round, table=table.table,
                        match_id=table.match_id, **outcome))
            if results:
                self.core.append(tournament_id, results)
            return len(results)

        return int(self.core.server_write(tournament_id, write)) + self._auto(tournament_id)

    def _auto(self, tournament_id: str) -> int:
        row, events, state = self.core.load(tournament_id)
        if not row["auto"] or row["status"] != "running" or not state.round_complete():
            return 0
        header = state.header
        assert state.started is not None
        if len(state.rounds) < total_rounds(header["system"], len(state.started["players"]),
                                            header["rounds"]):
            try:
                self.life.pair_next(tournament_id)
            except ConflictError:
                return 0  # another writer paired it, or it cannot be paired: said on reads
            return 1
        until = disputes_until(row, events, state)
        if state.open_disputes() or until is None or self.core.clock() < until:
            return 0
        try:
            self._finish(tournament_id)
        except ConflictError:
            return 0
        return 2

    def sync_all(self) -> int:
        """Sync every running tournament (the sweeper's hook); how many events were written.
        At most once a second however often the sweeper runs: a read syncs its own
        tournament first anyway, so the sweep only has to catch what nobody reads."""
        now = self.core.clock()
        if now - self._last_sync_ms < 1_000:
            return 0
        self._last_sync_ms = now
        return sum(self.sync(tournament_id) for tournament_id in self.core.tstore.unfinished())

    # --- disputes, replays, rulings ------------------------------------------------------------

    def file_dispute(self, tournament_id: str, token: str | None,
                     fields: Mapping[str, Any]) -> dict[str, Any]:
        allowed = {"match_id", "step", "text", "receipts", "report", "expected_seq", "sig"}
        unknown = sorted(set(fields) - allowed)
        if unknown:
            raise BadRequest(f"unexpected field {unknown[0]!r}", code="unknown-field")
        player = self.core.player(tournament_id, token)
        self.sync(tournament_id)
        match_id, step, text = fields.get("match_id"), fields.get("step"), fields.get("text")
        receipts, report = fields.get("receipts"), fields.get("report")
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise BadRequest("step must be the disputed step (0 the deal, N the N-th play)",
                             code="invalid-step")
        if not isinstance(text, str) or not 0 < len(text) <= 2000:
            raise BadRequest("text must be 1 to 2000 characters", code="invalid-text")
        if receipts is not None and not isinstance(receipts, Mapping):
            raise BadRequest("receipts must be the receipts file (an object) or null",
                             code="invalid-receipts")
        if not isinstance(report, str) or not _HEX64.match(report):
            raise BadRequest("report must be the 64-hex dispute report hash",
                             code="invalid-report")
        seq = position(fields.get("expected_seq"))
        with self.core.lock(tournament_id):
            row, events, state = self.core.load(tournament_id)
            _not_over(row)
            table = state.table_of(match_id) if isinstance(match_id, str) else None
            if table is None or player not in table.seats:
                raise BadRequest(f"match {match_id!r} is not one of this player's matches in "
                                 "this tournament", code="not-your-match")
            keys = [state.players[seat]["public_key"] for seat in table.seats]
            expected = self._report(str(match_id), step, keys)
            if report != expected:
                raise BadRequest("report is not the hash of the dispute report of that step "
                                 f"(the server computes {expected})", code="report-mismatch")
            if seq != row["next_seq"]:
                raise ConflictError(f"expected_seq {seq} is stale: the next is "
                                    f"{row['next_seq']}", code="stale-seq",
                                    next_seq=row["next_seq"])
            event = self.core.draft(row, events, "dispute", seq, dispute=len(state.disputes) + 1,
                                    player=player, match_id=match_id, step=step, text=text,
                                    receipts=receipts, report=report)
            check_signature(event, state.players[player]["public_key"], fields.get("sig"),
                            "the player")
            event["sig"] = fields["sig"]
            self.core.append(tournament_id, [event])
        return {"event": event}

    def _report(self, match_id: str, step: int, keys: list[str]) -> str:
        bundle = self.bundle_of(match_id)
        if bundle is None:
            raise ConflictError(f"match {match_id} is not sealed yet: a dispute is filed on a "
                                "sealed match", code="match-not-sealed")
        try:
            return dispute_report_hash(bundle, step, keys)
        except DisputeError as e:
            raise BadRequest(str(e), code="invalid-step") from None

    def order_replay(self, tournament_id: str, token: str | None, dispute: Any) -> dict[str, Any]:
        """A new match for the disputed table (same players, same seats), for the arbiter's
        ``replay-ordered`` ruling to name."""
        self.core.organiser(self.core.tstore.row(tournament_id), token)
        row, events, state = self.core.load(tournament_id)
        _not_over(row)
        filed = self._dispute(state, dispute)
        table = state.table_of(filed["match_id"])
        assert table is not None
        registered = state.players
        hashes = self.core.tstore.token_hashes(tournament_id)
        match = new_match(state.header, [registered[seat] for seat in table.seats],
                          [hashes[seat] for seat in table.seats], self.core.server_key.key_id,
                          self.core.stamp(events))
        with self.core.store.writes.transaction() as conn:
            insert_matches(conn, [match])
        return {"match_id": match.match_id}

    def _dispute(self, state: TournamentState, dispute: Any) -> dict[str, Any]:
        if isinstance(dispute, bool) or not isinstance(dispute, int) \
                or not 1 <= dispute <= len(state.disputes):
            raise BadRequest(f"dispute must be the number of a filed dispute (1 to "
                             f"{len(state.disputes)})", code="unknown-dispute")
        if dispute in state.rulings:
            raise ConflictError(f"dispute {dispute} has its ruling already",
                                code="already-ruled")
        return state.disputes[dispute - 1]

    def rule(self, tournament_id: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The arbiter's ruling on a filed dispute; its signature is the authority."""
        unknown = sorted(set(fields) - {"dispute", "decision", "text", "expected_seq", "sig"})
        if unknown:
            raise BadRequest(f"unexpected field {unknown[0]!r}", code="unknown-field")
        text = fields.get("text")
        if not isinstance(text, str) or len(text) > 2000:
            raise BadRequest("text must be at most 2000 characters", code="invalid-text")
        seq = position(fields.get("expected_seq"))
        with self.core.lock(tournament_id):
            row, events, state = self.core.load(tournament_id)
            _not_over(row)
            filed = self._dispute(state, fields.get("dispute"))
            decision = self._decision(tournament_id, state, filed, fields.get("decision"))
            if seq != row["next_seq"]:
                raise ConflictError(f"expected_seq {seq} is stale: the next is "
                                    f"{row['next_seq']}", code="stale-seq",
                                    next_seq=row["next_seq"])
            event = self.core.draft(row, events, "ruling", seq, dispute=filed["dispute"],
                                    decision=decision, text=text)
            check_signature(event, state.header["arbiter_key"], fields.get("sig"),
                            "the arbiter")
            event["sig"] = fields["sig"]
            self.core.append(tournament_id, [event])
        self._auto(tournament_id)  # the last open dispute ruled after the window: finish now
        return {"event": event}

    def _decision(self, tournament_id: str, state: TournamentState, filed: Mapping[str, Any],
                  decision: Any) -> dict[str, Any]:
        table = state.table_of(filed["match_id"])
        assert table is not None
        kind = decision.get("kind") if isinstance(decision, Mapping) else None
        shapes = {"result-stands": {"kind"}, "result-changed": {"kind", "winner"},
                  "replay-ordered": {"kind", "match_id"},
                  "penalty": {"kind", "player", "points"}}
        if kind not in shapes or set(decision) != shapes[kind]:
            raise BadRequest(f"decision must be one of {', '.join(_DECISIONS)} with exactly "
                             "its fields (docs/tournaments.md §2)", code="invalid-decision")
        if kind == "result-changed" and (decision["winner"] not in (*table.seats, None)
                                         or table.result is None):
            raise BadRequest("a changed result names a player of the disputed match as its "
                             "winner (or null for a draw), once the match has a result",
                             code="invalid-decision")
        if kind == "penalty" and (decision["player"] not in state.players
                                  or isinstance(decision["points"], bool)
                                  or not isinstance(decision["points"], int)
                                  or decision["points"] < 1):
            raise BadRequest("a penalty names a registered player and half-points ≥ 1",
                             code="invalid-decision")
        if kind == "replay-ordered":
            self._check_replay(tournament_id, state, table, decision["match_id"])
        return dict(decision)

    def _check_replay(self, tournament_id: str, state: TournamentState, table: Table,
                      match_id: Any) -> None:
        hashes = self.core.tstore.token_hashes(tournament_id)
        match = self.core.store.match(match_id) if isinstance(match_id, str) else None
        used = any(match_id in t.matches for t in state.tables.values())
        if (match is None or used or json.loads(match["token_hashes"])
                != [hashes[seat] for seat in table.seats]):
            raise BadRequest(f"match {match_id!r} is not a replay of this table (ask POST "
                             "/tournaments/<id>/replays for one)", code="invalid-replay")

    # --- the end -------------------------------------------------------------------------------

    def finish(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        self.core.organiser(self.core.tstore.row(tournament_id), token)
        self.sync(tournament_id)
        return self._finish(tournament_id)

    def _finish(self, tournament_id: str) -> dict[str, Any]:
        def write(row: dict[str, Any], events: list[dict[str, Any]],
                  state: TournamentState) -> dict[str, Any]:
            if row["status"] == "finished":
                raise ConflictError("the tournament is finished", code="tournament-over")
            if state.started is None:
                raise ConflictError("the tournament has not started", code="not-started")
            header = state.header
            total = total_rounds(header["system"], len(state.started["players"]),
                                 header["rounds"])
            if len(state.rounds) < total or not state.round_complete():
                raise ConflictError(f"{len(state.rounds)} of {total} rounds are paired and the "
                                    "last must be complete", code="round-not-complete")
            if state.open_disputes():
                raise ConflictError(f"dispute {state.open_disputes()[0]} has no ruling yet",
                                    code="disputes-open")
            reveal = self.core.draft(row, events, "reveal", seed=row["seed"])
            final = self.core.draft(row, events, "final", row["next_seq"] + 1,
                                    standings=self.standings(row, state))
            self.core.append(tournament_id, [reveal, final], {"status": "finished"},
                             leaf_kind="tournament-final", leaf_number=final["seq"])
            signature = self.core.server_key.sign(head_message(tournament_id, final["seq"],
                                                               event_hash(final)))
            self.core.tstore.set_fields(tournament_id, {"head_sig": signature.hex()})
            return {"events": [reveal, final]}

        return dict(self.core.server_write(tournament_id, write))

    def standings(self, row: Mapping[str, Any], state: TournamentState) -> list[dict[str, Any]]:
        """The standings now, computed by the verifier's own ``standings`` (never stored but
        in ``final``, which the verifier recomputes)."""
        if state.started is None:
            return []
        lines = standings(state.field(bytes.fromhex(row["seed"])), state.history(),
                          points_of(state.header), state.header["tiebreaks"])
        return [{"rank": line.rank, "player": line.player, "score": line.score,
                 "tiebreaks": list(line.tiebreaks)} for line in lines]


def disputes_until(row: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                   state: TournamentState) -> int | None:
    """When an ``auto`` tournament whose every round is played may be finished by the server
    (server ms): the header's ``seating_ms`` after the last result (or, with none since, the
    last round's pairing), so that the players of the last round have the time to dispute
    it. None while a round is to be paired or played, or when the organiser finishes (no
    ``auto``), or once finished. The ledger's own clock, not a normative field: a verifier
    does not judge when the finish happened (docs/tournaments.md §8)."""
    if not row["auto"] or row["status"] != "running" or state.started is None \
            or not state.rounds or not state.round_complete():
        return None
    header = state.header
    if len(state.rounds) < total_rounds(header["system"], len(state.started["players"]),
                                        header["rounds"]):
        return None
    last = next(event for event in reversed(events) if event["type"] in ("result", "round"))
    return int(last["ts"]) + int(header["seating_ms"])


def _not_over(row: Mapping[str, Any]) -> None:
    """Nothing is filed or ruled after ``final``, which is the log's last event."""
    if row["status"] == "finished":
        raise ConflictError("the tournament is finished: its log is closed",
                            code="tournament-over")
