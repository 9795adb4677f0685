"""The verification report: every check named, and the first failure pinned to an event."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import FairdealError

__all__ = ["CHECKS", "OPTIONAL_CHECKS", "CheckResult", "Failure", "Report", "VerificationError",
           "counted"]

#: every check, in the order it runs, with what it means in one line for people
CHECKS: tuple[tuple[str, str], ...] = (
    ("format", "The file is a well-formed fairdeal bundle."),
    ("chain", "Every event is linked by hash to the one before it: no event was edited, "
              "removed, inserted or reordered."),
    ("signature", "The server signed the final event, sealing the whole history."),
    ("rules", "The match names a known game, its rules version and the exact rules data."),
    ("commitment", "The seed revealed after the match is the one committed to before it."),
    ("seeds", "Every player's seed was committed before any seed was shown, and each reveal "
              "opens its commitment."),
    ("timing", "Every event came in its phase: keys and seeds before the first move, and "
               "exactly one reveal, last."),
    ("deal", "Every shuffle and draw is re-derived from the seeds."),
    ("moves", "Every move was legal under the rules, by the seat whose turn it was, "
              "and nothing happened after the end."),
    ("seat-signatures", "Every seed, move and resignation of a player with a key carries that "
                        "player's valid signature; a pinned seat registered exactly the pinned "
                        "key and signed every one of them with it."),
    ("timers", "The seating window is at least the protocol's minimum, every move came within "
               "the turn limit, and every timeout, expiry and forfeit only after its "
               "deadline."),
    ("result", "The declared result is the one the moves produce."),
    ("receipts", "Every receipt the server signed for a player matches the event in this "
                 "bundle: nothing the server accepted was dropped or changed."),
    ("log", "The match's creation and its seal are in the server's transparency log, under "
            "a checkpoint it signed."),
)
#: checks that run only when their input is given (receipts; a bundle's log proofs);
#: otherwise they are "skipped"
OPTIONAL_CHECKS = frozenset({"receipts", "log"})
_TITLES = dict(CHECKS)


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """A count and its noun, singular for one: words for people in every layer.

    >>> counted(1, "match"), counted(2, "match", "matches"), counted(1_200, "player")
    ('1 match', '2 matches', '1,200 players')
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


class VerificationError(FairdealError):
    """One check failed. ``check`` names it; ``seq`` is the first failing event, if any."""

    def __init__(self, check: str, message: str, seq: int | None = None) -> None:
        if check not in _TITLES:
            raise ValueError(f"unknown check {check!r}")
        self.check = check
        self.seq = seq
        self.reason = message
        where = f"event {seq}: " if seq is not None else ""
        super().__init__(f"{check}: {where}{message}")


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: str  # "pass", "fail", "not-checked" or "skipped" (an optional check without input)
    detail: str = ""

    @property
    def title(self) -> str:
        return _TITLES[self.name]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "title": self.title,
                "detail": self.detail}


@dataclass(frozen=True)
class Failure:
    check: str
    seq: int | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "seq": self.seq, "reason": self.reason}

    def __str__(self) -> str:
        where = f" at event {self.seq}" if self.seq is not None else ""
        return f"{self.check} check failed{where}: {self.reason}"


@dataclass
class Report:
    """What a verification found. ``ok`` only when every check passed."""

    checks: list[CheckResult] = field(default_factory=list)
    failure: Failure | None = None
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Every check passed (an optional check may instead be skipped for want of input)."""
        return self.failure is None and len(self.checks) == len(CHECKS) and all(
            check.status == "pass" or (check.status == "skipped"
                                       and check.name in OPTIONAL_CHECKS)
            for check in self.checks)

    def passed(self, name: str, detail: str = "") -> None:
        self.checks.append(CheckResult(name, "pass", detail))

    def skipped(self, name: str, detail: str) -> None:
        """An optional check that had nothing to check (no receipts given, say)."""
        if name not in OPTIONAL_CHECKS:
            raise ValueError(f"check {name!r} is not optional")
        self.checks.append(CheckResult(name, "skipped", detail))

    def failed(self, error: VerificationError) -> None:
        self.failure = Failure(error.check, error.seq, error.reason)
        done = {check.name for check in self.checks}
        for name, _ in CHECKS:
            if name in done:
                continue
            if name == error.check:
                self.checks.append(CheckResult(name, "fail", str(self.failure)))
            else:
                self.checks.append(
                    CheckResult(name, "not-checked", "not reached: verification stops at the "
                                "first failure")
                )
        order = {name: index for index, (name, _) in enumerate(CHECKS)}
        self.checks.sort(key=lambda check: order[check.name])

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checks": [check.to_json() for check in self.checks],
            "failure": self.failure.to_json() if self.failure else None,
            **self.facts,
        }
