"""Tournaments as checkable as matches (docs/tournaments.md): the event log's primitives, the
pairings (round-robin Berger tables and the fairdeal Swiss), the standings with their
tie-breaks, and the verification of a whole tournament export. Pure, as the rest of verifier/.

>>> from fairdeal.verifier.tournament import verify_tournament_zip
>>> report = verify_tournament_zip(open("t.zip", "rb").read(),
...                                trusted_key="ed25519:…")  # doctest: +SKIP
>>> report.ok  # doctest: +SKIP
True

The server writes the log with ``TournamentLog`` (build.py), exactly as the verifier reads it.
"""

from __future__ import annotations

from .build import TournamentLog
from .bundle import InvalidExport, TournamentBundle, read_export
from .events import InvalidTournament
from .report import TOURNAMENT_CHECKS, TournamentCheckFailed, TournamentReport
from .verify import verify_tournament, verify_tournament_zip

__all__ = [
    "TOURNAMENT_CHECKS",
    "InvalidExport",
    "InvalidTournament",
    "TournamentBundle",
    "TournamentCheckFailed",
    "TournamentLog",
    "TournamentReport",
    "read_export",
    "verify_tournament",
    "verify_tournament_zip",
]
