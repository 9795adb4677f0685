"""The values pairings and standings are computed from (docs/tournaments.md §4–5).

Players are key ids throughout. Scores are integers in half-points (a win 2, a draw 1 by
default), so everything stays canonical JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

SYSTEMS: Final = ("swiss", "round-robin")
TIEBREAKS: Final = ("buchholz", "median-buchholz", "sonneborn-berger", "direct-encounter",
                    "wins")
OUTCOME_KINDS: Final = ("match", "forfeit", "double-forfeit")


@dataclass(frozen=True)
class Points:
    """What each outcome scores, in half-points (the header's ``points``)."""

    win: int = 2
    draw: int = 1
    loss: int = 0
    bye: int = 2
    forfeit_win: int = 2


@dataclass(frozen=True)
class Pairing:
    """One table of a round: ``seats[0]`` is seat 0 (the first to be named, "white")."""

    table: int
    seats: tuple[str, str]


@dataclass(frozen=True)
class Round:
    """A round's pairings and its bye (at most one player)."""

    number: int
    pairings: tuple[Pairing, ...]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """A counted result of one table: the winner's key id, or None for a draw (and for a double
    forfeit). ``kind`` is ``match`` (played), ``forfeit`` or ``double-forfeit``."""

    round: int
    seats: tuple[str, str]
    winner: str | None
    kind: str = "match"


@dataclass(frozen=True)
class Field:
    """The players as the ``start`` event fixed them (registration order) and the lots."""

    players: tuple[str, ...]
    lots: bytes


@dataclass(frozen=True)
class History:
    """Everything a round's pairing depends on: the rounds before it, their counted outcomes,
    withdrawals (player -> the first round it is not paired in) and penalties (player ->
    half-points deducted)."""

    rounds: tuple[Round, ...] = ()
    outcomes: tuple[Outcome, ...] = ()
    withdrawn: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Standing:
    """One line of the standings: ``tiebreaks`` in the header's order."""

    rank: int
    player: str
    score: int
    tiebreaks: tuple[int, ...]
