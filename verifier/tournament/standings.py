"""Standings with their tie-breaks, computed from the counted outcomes, never stored
(docs/tournaments.md §5, normative). The ``final`` event's standings are re-computed by the
verifier."""

from __future__ import annotations

from collections.abc import Sequence

from .model import Field, History, Points, Standing

__all__ = ["scores", "standings"]


def scores(field: Field, history: History, points: Points) -> dict[str, int]:
    """Every player's score in half-points after ``history`` (to be written: issue 22)."""
    raise NotImplementedError


def standings(field: Field, history: History, points: Points,
              tiebreaks: Sequence[str]) -> list[Standing]:
    """The standings, best first (to be written: issue 22)."""
    raise NotImplementedError
