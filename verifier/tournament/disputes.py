"""The ``report`` a dispute carries (docs/tournaments.md §2): the hash of the dispute report of
the disputed step, computed the same way by the player who signs it, the server that checks it
and the verifier that re-computes it — so a dispute names exactly the evidence it was filed on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..canonical import CanonicalError, canonical_bytes
from ..dispute import DisputeError, dispute_report
from .primitives import report_hash

__all__ = ["dispute_report_hash"]


def dispute_report_hash(bundle: bytes | str, step: int, seat_keys: Sequence[str]) -> str:
    """``H("dispute-report", canonical(report))`` of step ``step`` of the sealed match
    ``bundle``, with the two players' registered keys (``ed25519:…``, seat 0 first) pinned as
    its seat keys. Raises ``DisputeError`` for a file that is no bundle or a step it lacks.

    The bundle's transparency-log proofs are left out first: they name the checkpoint of the
    moment the bundle was fetched, so the player's copy and the server's would differ."""
    try:
        value = json.loads(bundle)
        if isinstance(value, dict):
            value.pop("log", None)
        bundle = canonical_bytes(value)
    except (ValueError, CanonicalError) as e:
        raise DisputeError(f"not a valid bundle: {e}") from None
    pinned = {str(seat): key for seat, key in enumerate(seat_keys)}
    return report_hash(dispute_report(bundle, step, seat_keys=pinned))
