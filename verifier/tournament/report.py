"""A tournament's verification report: every check of docs/tournaments.md §6 named, in its order,
each with a line an organiser understands, and the first failure pinned to an event (its seq,
type, round, table and match) with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..errors import FairdealError

__all__ = ["TOURNAMENT_CHECKS", "TournamentCheck", "TournamentCheckFailed", "TournamentFailure",
           "TournamentReport", "at_event", "fail"]

#: every check, in the order it runs (docs/tournaments.md §6), with its line for people
TOURNAMENT_CHECKS: Final[tuple[tuple[str, str], ...]] = (
    ("format", "The export is a well-formed fairdeal tournament: its log and every match file."),
    ("chain", "Every event of the tournament is linked by hash to the one before it: nothing "
              "was edited, removed, inserted or reordered."),
    ("signature", "The server signed the final event, sealing the tournament's whole history."),
    ("commitment", "The tournament seed revealed at the end is the one committed to before "
                   "anyone registered."),
    ("registrations", "Every player registered with its own signature, once, within the "
                      "tournament's size."),
    ("field", "The players who started are exactly those who registered, and the field's "
              "hash holds every player's own entropy."),
    ("pairings", "Every round's pairings are the ones the rules and the seed give: nobody "
                 "chose who met whom."),
    ("matches", "Every match played is in the export and verifies on its own, with both "
                "players' registered keys pinned, under the tournament's game and rules."),
    ("results", "Every result was read off its match's sealed record, or is a forfeit of a "
                "player who withdrew; none was typed in."),
    ("disputes", "Every dispute was signed by a player of that match, and its dispute report "
                 "is the one the match gives."),
    ("rulings", "Every ruling was signed by the tournament's arbiter, on a dispute filed "
                "before it."),
    ("standings", "The final standings, with their tie-breaks, are the ones the counted "
                  "results give."),
    ("log", "The tournament's creation, rounds and end are in the server's transparency log."),
)
OPTIONAL_CHECKS: Final = frozenset({"log"})
_TITLES: Final = dict(TOURNAMENT_CHECKS)


class TournamentCheckFailed(FairdealError):
    """One check failed. ``check`` names it; ``seq`` is the tournament event it failed at (if
    any) and ``at`` what an organiser looks the event up by (type, round, table, match_id)."""

    def __init__(self, check: str, message: str, seq: int | None = None,
                 at: dict[str, Any] | None = None) -> None:
        if check not in _TITLES:
            raise ValueError(f"unknown tournament check {check!r}")
        self.check = check
        self.seq = seq
        self.reason = message
        self.at = dict(at or {})
        super().__init__(f"{check}: {_where(seq, self.at)}{message}")


def _where(seq: int | None, at: dict[str, Any]) -> str:
    if seq is None:
        return ""
    parts = [f"event {seq}" + (f" ({at['type']})" if "type" in at else "")]
    if "round" in at:
        parts.append(f"round {at['round']}")
    if "table" in at:
        parts.append(f"table {at['table']}")
    if "match_id" in at:
        parts.append(f"match {at['match_id']}")
    return ", ".join(parts) + ": "


def at_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """What names an event for an organiser: its type, round, table and match."""
    return {key: event[key] for key in ("type", "round", "table", "match_id") if key in event}


def fail(check: str, event: Mapping[str, Any], message: str) -> TournamentCheckFailed:
    """The failure of ``check`` at ``event``."""
    return TournamentCheckFailed(check, message, event["seq"], at_event(event))


@dataclass(frozen=True)
class TournamentCheck:
    name: str
    status: str  # "pass", "fail", "not-checked" or "skipped" (the log, without proofs)
    detail: str = ""

    @property
    def title(self) -> str:
        return _TITLES[self.name]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "title": self.title,
                "detail": self.detail}


@dataclass(frozen=True)
class TournamentFailure:
    check: str
    seq: int | None
    reason: str
    at: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "seq": self.seq, "reason": self.reason, **self.at}

    def __str__(self) -> str:
        where = _where(self.seq, self.at)
        return f"{self.check} check failed{' at ' + where[:-2] if where else ''}: {self.reason}"


@dataclass
class TournamentReport:
    """What a tournament's verification found. ``ok`` only when every check passed (the log
    may be skipped for want of proofs)."""

    checks: list[TournamentCheck] = field(default_factory=list)
    failure: TournamentFailure | None = None
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.failure is None and len(self.checks) == len(TOURNAMENT_CHECKS) and all(
            check.status == "pass" or (check.status == "skipped"
                                       and check.name in OPTIONAL_CHECKS)
            for check in self.checks)

    def passed(self, name: str, detail: str = "") -> None:
        self.checks.append(TournamentCheck(name, "pass", detail))

    def skipped(self, name: str, detail: str) -> None:
        if name not in OPTIONAL_CHECKS:
            raise ValueError(f"check {name!r} is not optional")
        self.checks.append(TournamentCheck(name, "skipped", detail))

    def failed(self, error: TournamentCheckFailed) -> None:
        self.failure = TournamentFailure(error.check, error.seq, error.reason, error.at)
        done = {check.name for check in self.checks}
        for name, _ in TOURNAMENT_CHECKS:
            if name in done:
                continue
            status = "fail" if name == error.check else "not-checked"
            detail = (str(self.failure) if name == error.check else
                      "not reached: verification stops at the first failure")
            self.checks.append(TournamentCheck(name, status, detail))
        order = {name: index for index, (name, _) in enumerate(TOURNAMENT_CHECKS)}
        self.checks.sort(key=lambda check: order[check.name])

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "kind": "tournament",
                "checks": [check.to_json() for check in self.checks],
                "failure": self.failure.to_json() if self.failure else None, **self.facts}
