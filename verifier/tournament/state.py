"""The tournament as its events so far make it (docs/tournaments.md §2 and §5): who registered,
the field, the rounds and their tables, the results that count, withdrawals, disputes, rulings
and penalties.

One fold, used by the writer (build.py) and the verifier (verify.py) alike, so that what the
server pairs and what the verifier re-derives are computed from the same history. It checks
nothing: it records. Whether an event was allowed is verify.py's question.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import Field, History, Outcome, Pairing, Points, Round
from .primitives import field_hash, lots

__all__ = ["Registration", "Table", "TournamentState", "header_points"]


def header_points(header: Mapping[str, Any]) -> Points:
    """The header's ``points`` as the model's value."""
    points = header["points"]
    return Points(win=points["win"], draw=points["draw"], loss=points["loss"],
                  bye=points["bye"], forfeit_win=points["forfeit-win"])


@dataclass(frozen=True)
class Registration:
    """A ``register`` event, as the field sees it."""

    seq: int
    player: str
    public_key: str
    name: str
    entropy: str


@dataclass
class Table:
    """One table of a round: its seats, its match (a replay's, once ordered) and its counted
    result (the ``result`` event), None while the table waits for one."""

    round: int
    number: int
    seats: tuple[str, str]
    match_id: str
    result: dict[str, Any] | None = None
    #: the match ids this table has been played as, first the paired one
    matches: list[str] = field(default_factory=list)


@dataclass
class TournamentState:
    """The fold of a tournament's events. ``apply`` each event in order."""

    header: dict[str, Any]
    registrations: dict[str, Registration] = field(default_factory=dict)
    players: tuple[str, ...] | None = None
    field_hash: str | None = None
    rounds: list[Round] = field(default_factory=list)
    tables: dict[tuple[int, int], Table] = field(default_factory=dict)
    #: every match id the tournament names -> its table's key (round, table)
    match_tables: dict[str, tuple[int, int]] = field(default_factory=dict)
    withdrawn: dict[str, int] = field(default_factory=dict)
    disputes: dict[int, dict[str, Any]] = field(default_factory=dict)
    rulings: dict[int, dict[str, Any]] = field(default_factory=dict)
    penalties: dict[str, int] = field(default_factory=dict)
    seed: bytes | None = None

    def apply(self, event: Mapping[str, Any]) -> None:
        """Record one event (the header is the state's own, given at construction)."""
        kind = event["type"]
        if kind == "register":
            self.registrations[event["player"]] = Registration(
                event["seq"], event["player"], event["public_key"], event["name"],
                event["entropy"])
        elif kind == "start":
            self.players = tuple(event["players"])
            self.field_hash = event["field"]
        elif kind == "round":
            self._round(event)
        elif kind == "result":
            table = self.tables.get((event["round"], event["table"]))
            if table is not None and event["match_id"] == table.match_id:
                table.result = dict(event)
        elif kind == "withdraw":
            self.withdrawn.setdefault(event["player"], event["from_round"])
        elif kind == "dispute":
            self.disputes[event["dispute"]] = dict(event)
        elif kind == "ruling":
            self._ruling(event)
        elif kind == "reveal":
            self.seed = bytes.fromhex(event["seed"])

    def _round(self, event: Mapping[str, Any]) -> None:
        number = event["round"]
        pairings = []
        for pairing in event["pairings"]:
            seats = (pairing["seats"][0], pairing["seats"][1])
            table = Table(number, pairing["table"], seats, pairing["match_id"],
                          matches=[pairing["match_id"]])
            self.tables[(number, pairing["table"])] = table
            self.match_tables.setdefault(pairing["match_id"], (number, pairing["table"]))
            pairings.append(Pairing(pairing["table"], seats))
        self.rounds.append(Round(number, tuple(pairings), tuple(event["byes"])))

    def _ruling(self, event: Mapping[str, Any]) -> None:
        """A ruling's effect (§5): a changed result replaces the table's winner, an ordered
        replay voids the result until the replay's own, a penalty deducts points."""
        self.rulings[event["dispute"]] = dict(event)
        decision = event["decision"]
        dispute = self.disputes.get(event["dispute"])
        table = self.table_of(dispute["match_id"]) if dispute is not None else None
        if decision["kind"] == "penalty":
            player = decision["player"]
            self.penalties[player] = self.penalties.get(player, 0) + decision["points"]
        elif table is None:
            return
        elif decision["kind"] == "result-changed" and table.result is not None:
            table.result = {**table.result, "winner": decision["winner"], "ruled": True}
        elif decision["kind"] == "replay-ordered":
            table.match_id = decision["match_id"]
            table.matches.append(decision["match_id"])
            table.result = None
            self.match_tables.setdefault(decision["match_id"], (table.round, table.number))

    def table_of(self, match_id: str) -> Table | None:
        """The table a match was (or is being re-)played at, if the tournament names it."""
        key = self.match_tables.get(match_id)
        return self.tables.get(key) if key is not None else None

    def field(self, seed: bytes) -> Field:
        """The field of the ``start`` event with the lots drawn from ``seed``."""
        if self.players is None or self.field_hash is None:
            raise ValueError("the tournament has not started")
        return Field(self.players, lots(seed, self.field_hash))

    def expected_field_hash(self) -> str:
        """What ``start``'s ``field`` must be: every registration's entropy, in order."""
        return field_hash([(r.player, r.entropy) for r in self.registrations.values()])

    def history(self) -> History:
        """What pairings and standings are computed from: the rounds, the outcomes counted so
        far (a table without a result, or whose replay is pending, counts nothing yet), the
        withdrawals and the penalties."""
        outcomes = []
        for (number, _), table in sorted(self.tables.items()):
            if table.result is None:
                continue
            kind = table.result["outcome"]
            outcomes.append(Outcome(number, table.seats, table.result.get("winner"), kind))
        return History(tuple(self.rounds), tuple(outcomes), dict(self.withdrawn),
                       dict(self.penalties))

    def round_complete(self) -> bool:
        """Every table of the last round has a counted result (no replay pending)."""
        if not self.rounds:
            return True
        last = self.rounds[-1].number
        return all(table.result is not None for (number, _), table in self.tables.items()
                   if number == last)
