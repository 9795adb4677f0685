"""The fairdeal protocol and its reference checker. Pure: bytes in, report out.

A match bundle is checked in one call; the report says, check by check, what held and what did
not, in words a tournament organiser can read. Bad input never raises: it fails a check.

>>> from pathlib import Path
>>> from fairdeal.verifier import verify_bytes
>>> bundles = Path("fixtures/bundles")
>>> server_key = (bundles / "server-key.txt").read_text().strip()
>>> honest = sorted((bundles / "honest").glob("*.json"))[0]  # any honest match of any game
>>> report = verify_bytes(honest.read_bytes(), trusted_key=server_key)
>>> report.ok
True
>>> [check.name for check in report.checks][:3]
['format', 'chain', 'signature']

A player adds its receipts (``receipts=parse_receipts_file(data).receipts``) and the seats'
keys it trusts (``seat_keys={"A": "ed25519:…"}``); a log checkpoint and a witness policy
(``checkpoint=…``, ``witnesses=WitnessPolicy(keys, quorum)``) tie the match to the server's
transparency log. Every error the verifier raises is a :class:`FairdealError` (a
``ValueError``); :class:`VerificationError` is the one a failed check carries.

A tournament export (docs/tournaments.md) is checked whole by ``verify_tournament_zip(data,
trusted_key=…, arbiter_key=…, player_keys=[…])``, which returns a ``TournamentReport`` with the
checks of its own (``TOURNAMENT_CHECKS``). Those names load ``fairdeal.verifier.tournament``
(and its Swiss pairing's networkx) on first use only, so a match's verification never pays
for them, in the browser or anywhere.

This module imports only the verifier's own pure modules and fairdeal.games, never
``cryptography`` (signatures fall back to pure Python when it is missing), so it loads in the
browser under Pyodide as it does on a server.
"""

from __future__ import annotations

from typing import Any

# first: it picks the compiled or the pure modules (FAIRDEAL_PURE) before any below is imported
from fairdeal.games import compiled  # noqa: F401

from .bundle import Bundle, InvalidBundle
from .checkpoint import Checkpoint, CheckpointError, WitnessError, WitnessPolicy
from .dispute import DisputeError, dispute_report
from .errors import FairdealError
from .inputs import InvalidInput, verify_with_inputs
from .keys import InvalidKey, key_id, parse_public_key
from .merkle import ProofError
from .note import NoteError
from .receipts import InvalidReceipts, Receipt, ReceiptsFile, parse_receipts_file
from .report import CHECKS, CheckResult, Report, VerificationError
from .verify import UnknownSeat, verify_bundle, verify_bytes, verify_replayed

#: the tournament names, loaded from fairdeal.verifier.tournament when first asked for
_TOURNAMENT_NAMES = ("TOURNAMENT_CHECKS", "InvalidTournament", "TournamentReport",
                     "verify_tournament", "verify_tournament_zip")


def __getattr__(name: str) -> Any:
    """The tournament names, imported on first use (PEP 562)."""
    if name in _TOURNAMENT_NAMES:
        from . import tournament

        return getattr(tournament, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CHECKS",
    "Bundle",
    "CheckResult",
    "Checkpoint",
    "CheckpointError",
    "DisputeError",
    "FairdealError",
    "InvalidBundle",
    "InvalidInput",
    "InvalidKey",
    "InvalidReceipts",
    "NoteError",
    "ProofError",
    "Receipt",
    "ReceiptsFile",
    "Report",
    "TOURNAMENT_CHECKS",
    "InvalidTournament",
    "TournamentReport",
    "UnknownSeat",
    "VerificationError",
    "WitnessError",
    "WitnessPolicy",
    "dispute_report",
    "key_id",
    "parse_public_key",
    "parse_receipts_file",
    "verify_bundle",
    "verify_bytes",
    "verify_replayed",
    "verify_tournament",
    "verify_tournament_zip",
    "verify_with_inputs",
]
