"""A tournament as its events say it is: the players, the rounds and their tables, the counted
results, withdrawals, disputes and rulings — folded from the log alone. What pairings and
standings are computed from (the field, the history, whether a round is complete) is the
verifier's own fold (verifier.tournament.state), kept beside this one: what the server decides
next is what a verifier re-derives from the same events (docs/tournaments.md §4–5). This fold
adds what the answers show (the events themselves, dispute texts, who withdrew).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal.verifier.tournament.model import Field, History, Points
from fairdeal.verifier.tournament.state import TournamentState as VerifierFold
from fairdeal.verifier.tournament.state import header_points

__all__ = ["Table", "TournamentState", "points_of"]


@dataclass
class Table:
    """One table of one round: the match that counts now (a replay replaces the first) and its
    counted result (``winner`` a key id or None; ``kind`` as in ``Outcome``)."""

    round: int
    table: int
    seats: tuple[str, str]
    match_id: str
    matches: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None


@dataclass
class TournamentState:
    """The fold of a tournament's events (``of``)."""

    header: dict[str, Any]
    registrations: list[dict[str, Any]] = field(default_factory=list)
    started: dict[str, Any] | None = None
    rounds: list[dict[str, Any]] = field(default_factory=list)
    tables: dict[tuple[int, int], Table] = field(default_factory=dict)
    withdrawn: dict[str, int] = field(default_factory=dict)
    #: the round that was the current one when each player withdrew (0: before round 1)
    withdrew_in: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, int] = field(default_factory=dict)
    disputes: list[dict[str, Any]] = field(default_factory=list)
    rulings: dict[int, dict[str, Any]] = field(default_factory=dict)
    revealed: str | None = None
    final: dict[str, Any] | None = None
    fold: VerifierFold | None = None

    @classmethod
    def of(cls, events: Sequence[Mapping[str, Any]]) -> TournamentState:
        state = cls(dict(events[0]), fold=VerifierFold(dict(events[0])))
        for event in events[1:]:
            state.add(event)
        return state

    def add(self, event: Mapping[str, Any]) -> None:
        assert self.fold is not None
        self.fold.apply(event)
        kind = event["type"]
        if kind == "register":
            self.registrations.append(dict(event))
        elif kind == "start":
            self.started = dict(event)
        elif kind == "round":
            self.rounds.append(dict(event))
            for pairing in event["pairings"]:
                key = (event["round"], pairing["table"])
                self.tables[key] = Table(event["round"], pairing["table"],
                                         (pairing["seats"][0], pairing["seats"][1]),
                                         pairing["match_id"], [pairing["match_id"]])
        elif kind == "result":
            table = self.tables[(event["round"], event["table"])]
            if event["match_id"] == table.match_id:
                table.result = dict(event)
        elif kind == "withdraw":
            self.withdrawn[event["player"]] = event["from_round"]
            self.withdrew_in[event["player"]] = len(self.rounds)
        elif kind == "dispute":
            self.disputes.append(dict(event))
        elif kind == "ruling":
            self._rule(event)
        elif kind == "reveal":
            self.revealed = event["seed"]
        elif kind == "final":
            self.final = dict(event)

    def _rule(self, event: Mapping[str, Any]) -> None:
        self.rulings[event["dispute"]] = dict(event)
        decision = event["decision"]
        table = self.table_of(self.disputes[event["dispute"] - 1]["match_id"])
        if decision["kind"] == "replay-ordered" and table is not None:
            table.match_id = decision["match_id"]
            table.matches.append(decision["match_id"])
            table.result = None
        elif decision["kind"] == "result-changed" and table is not None and table.result:
            table.result = {**table.result, "winner": decision["winner"], "changed": True}
        elif decision["kind"] == "penalty":
            player = decision["player"]
            self.penalties[player] = self.penalties.get(player, 0) + decision["points"]

    # --- what the fold tells -------------------------------------------------------------------

    @property
    def players(self) -> dict[str, dict[str, Any]]:
        """The registrations by key id, in registration order."""
        return {event["player"]: event for event in self.registrations}

    def field(self, seed: bytes) -> Field:
        assert self.fold is not None
        return self.fold.field(seed)

    def table_of(self, match_id: str) -> Table | None:
        """The table a match was (or is) played at, first match or replay."""
        for table in self.tables.values():
            if match_id in table.matches:
                return table
        return None

    def round_complete(self) -> bool:
        """Every table of the latest round has its counted result (the verifier's fold)."""
        assert self.fold is not None
        return self.fold.round_complete()

    def forfeiting(self, table: Table) -> list[str]:
        """The seats of ``table`` whose player withdrew while its round was the current one,
        from the round after it: their game there is forfeited if it has had no move (the
        verifier accepts a forfeit of a player withdrawn from the next round on)."""
        return [seat for seat in table.seats
                if self.withdrew_in.get(seat) == table.round
                and self.withdrawn.get(seat) == table.round + 1]

    def open_disputes(self) -> list[int]:
        return [event["dispute"] for event in self.disputes
                if event["dispute"] not in self.rulings]

    def history(self) -> History:
        """What the next round's pairing and the standings are computed from (the verifier's
        fold, so the server pairs from exactly the history the verifier re-derives)."""
        assert self.fold is not None
        return self.fold.history()


def points_of(header: Mapping[str, Any]) -> Points:
    """The header's ``points`` as the model's value (the verifier's reading of them)."""
    return header_points(header)
