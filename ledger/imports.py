"""Bundles from elsewhere: verified in full, then stored read-only (status ``imported``).

An imported match has no server seed and no seat tokens here: nobody plays it, every reader
gets its sealed bundle, and the viewer says which key sealed it (``ReadSide.signed_by``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.report import Report
from fairdeal.verifier.verify import chain_hashes, verify_bytes

from .errors import ConflictError
from .store import EventStore, StoredEvent

__all__ = ["BundleImports", "Imported"]


class Imported(NamedTuple):
    """What ``import_bundle`` answers: the match id it is stored under (None when the bundle
    failed verification) and the verifier's report. A pair, so ``match_id, report = ...``."""

    match_id: str | None
    report: Report


class BundleImports:
    """Stores verified bundles from elsewhere, each once."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def import_bundle(self, data: bytes) -> Imported:
        """Verify a bundle from elsewhere and store it read-only when it passes.

        Returns ``(match_id, report)``; ``match_id`` is None when verification failed.
        Importing the same bundle twice is harmless; a different match under an existing id
        is a ConflictError.
        """
        report = verify_bytes(data)
        if not report.ok:
            return Imported(None, report)
        bundle = Bundle.from_bytes(data)
        hashes = chain_hashes(bundle.events)
        if self._holds(bundle.match_id, hashes):
            return Imported(bundle.match_id, report)
        stored = [StoredEvent(event["seq"], event["type"], canonical_bytes(event).decode(),
                              digest, None)
                  for event, digest in zip(bundle.events, hashes, strict=True)]
        try:
            self.store.create_match(_imported_row(bundle), stored)
        except ConflictError:
            if not self._holds(bundle.match_id, hashes):
                raise
        return Imported(bundle.match_id, report)

    def _holds(self, match_id: str, hashes: Sequence[str]) -> bool:
        """True when this very match (same head) is stored; ConflictError when another is."""
        if self.store.match(match_id) is None:
            return False
        tail = self.store.read(match_id, after=len(hashes) - 2, limit=2)
        if len(tail) != 1 or tail[0].hash != hashes[-1]:
            raise ConflictError(f"another match is stored under id {match_id!r}",
                                code="match-exists")
        return True


def _imported_row(bundle: Bundle) -> dict[str, object]:
    """The match row of a verified bundle: sealed, verified, and nobody's to play."""
    genesis, reveal = bundle.genesis, bundle.events[-1]
    return {
        "id": bundle.match_id, "game": genesis["game"],
        "params": canonical_bytes(genesis["params"]).decode(),
        "turn_limit_ms": genesis["turn_limit_ms"], "created_ms": genesis["ts"],
        "status": "imported",
        "seat_names": json.dumps([seat["name"] for seat in genesis["seats"]]),
        "token_hashes": "[]", "server_seed": None, "commitment": genesis["commitment"],
        "next_seq": len(bundle.events), "deadline_ms": None,
        "result": json.dumps(reveal["result"], sort_keys=True),
        "seal_key": bundle.server_key, "seal_sig": bundle.signature, "verified": True,
    }
