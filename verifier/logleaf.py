"""The leaves of fairdeal's transparency log (docs/SPEC.md, "The transparency log").

Two kinds, each the canonical JSON of one object:

    genesis: {"event": <genesis event hash>, "game": …, "kind": "genesis",
              "leaf": "fairdeal.log/1", "match_id": …, "seats": [<seat names>], "ts": …}
    seal:    {"event": <head hash: the reveal's event hash>, "kind": "seal",
              "leaf": "fairdeal.log/1", "match_id": …, "seq": <the reveal's seq>}

A verifier rebuilds both from a bundle's events, so a proof binds the very match it holds.
The leaf hash is RFC 9162's, SHA-256(0x00 ‖ leaf bytes) (``merkle.leaf_hash``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_bytes
from .protocol import event_hash

__all__ = ["LEAF_FORMAT", "LeafError", "LogLeaf", "genesis_leaf", "seal_leaf", "seat_counts",
           "unsealed"]

LEAF_FORMAT = "fairdeal.log/1"
KINDS = ("genesis", "seal")


class LeafError(ValueError):
    """Bytes that are not a fairdeal log leaf."""


@dataclass(frozen=True)
class LogLeaf:
    """One parsed leaf: its kind, its match, and the bytes it was read from."""

    kind: str
    match_id: str
    event: str
    body: bytes
    seats: tuple[str, ...] = ()
    game: str | None = None

    @classmethod
    def parse(cls, body: bytes) -> LogLeaf:
        try:
            value = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise LeafError("a log leaf is canonical JSON") from None
        if not isinstance(value, dict) or value.get("leaf") != LEAF_FORMAT:
            raise LeafError(f"a log leaf is an object with leaf {LEAF_FORMAT!r}")
        kind = value.get("kind")
        if kind not in KINDS:
            raise LeafError(f"a log leaf's kind is genesis or seal, got {kind!r}")
        if canonical_bytes(value) != body:
            raise LeafError("a log leaf is canonical JSON (sorted keys, no spaces)")
        seats = value.get("seats", [])
        return cls(kind, str(value.get("match_id")), str(value.get("event")), body,
                   tuple(str(name) for name in seats) if isinstance(seats, list) else (),
                   value.get("game") if isinstance(value.get("game"), str) else None)


def genesis_leaf(genesis: Mapping[str, Any]) -> bytes:
    """The leaf logged when a match is created: it names the match, its game and its seats."""
    return canonical_bytes({
        "event": event_hash(genesis), "game": genesis["game"], "kind": "genesis",
        "leaf": LEAF_FORMAT, "match_id": genesis["match_id"],
        "seats": [seat["name"] for seat in genesis["seats"]], "ts": genesis["ts"],
    })


def seal_leaf(match_id: str, seq: int, head: str) -> bytes:
    """The leaf logged when a match is sealed: its final event's position and hash."""
    return canonical_bytes({"event": head, "kind": "seal", "leaf": LEAF_FORMAT,
                            "match_id": match_id, "seq": seq})


def unsealed(leaves: Iterable[LogLeaf]) -> list[LogLeaf]:
    """The genesis leaves with no seal leaf of the same match: matches created and never
    finished (the audit counts them per player). In log order."""
    geneses: dict[str, LogLeaf] = {}
    sealed: set[str] = set()
    for leaf in leaves:
        if leaf.kind == "genesis":
            geneses.setdefault(leaf.match_id, leaf)
        else:
            sealed.add(leaf.match_id)
    return [leaf for match_id, leaf in geneses.items() if match_id not in sealed]


def seat_counts(leaves: Iterable[LogLeaf]) -> dict[str, tuple[int, int]]:
    """Per player name, from the log alone: how many matches it was seated in, and how many of
    those were never sealed. What the audit's "unsealed" test counts: a server that abandons
    the matches whose deal does not suit a favoured player cannot hide them, since every match
    is logged when it is created."""
    seats: dict[str, tuple[str, ...]] = {}
    sealed: set[str] = set()
    for leaf in leaves:
        if leaf.kind == "genesis":
            seats.setdefault(leaf.match_id, leaf.seats)
        else:
            sealed.add(leaf.match_id)
    counts: dict[str, list[int]] = {}
    for match_id, names in seats.items():
        for name in names:
            entry = counts.setdefault(name, [0, 0])
            entry[0] += 1
            entry[1] += match_id not in sealed
    return {name: (created, open_) for name, (created, open_) in counts.items()}
