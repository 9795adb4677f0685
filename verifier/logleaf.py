"""The leaves of fairdeal's transparency log (docs/SPEC.md, "The transparency log").

Two kinds, each the canonical JSON of one object:

    genesis: {"event": <genesis event hash>, "game": …, "kind": "genesis",
              "leaf": "fairdeal.log/1", "match_id": …, "seats": [<seat names>], "ts": …}
    seal:    {"event": <head hash: the reveal's event hash>, "genesis": <genesis leaf index>,
              "kind": "seal", "leaf": "fairdeal.log/2", "match_id": …, "seq": <the reveal's seq>}

A seal leaf of format ``fairdeal.log/1`` (written before the seal named its genesis) has no
``genesis``; it still parses, and closes the latest open genesis leaf of its match id before it.
Counting is per leaf (``pair``): a genesis leaf without its own seal leaf is unsealed, whatever
match ids repeat — an operator who re-deals under a used id leaves the first genesis open.

Three more kinds log a tournament (docs/tournaments.md §3), each naming its ``tournament_id``
(read into ``match_id``: the log's rows are keyed by it) and the hash of the tournament event it
commits to: ``tournament-created`` (the header, with ``ts``), ``tournament-round`` (a round
event, with ``round``) and ``tournament-final`` (the final event, with ``seq``). They pair with
no match leaf: a monitor checks them apart from genesis and seal leaves.

A verifier rebuilds both from a bundle's events (and the genesis proof's index), so a proof binds
the very match it holds. The leaf hash is RFC 9162's, SHA-256(0x00 ‖ leaf bytes)
(``merkle.leaf_hash``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_bytes
from .errors import FairdealError
from .protocol import event_hash

__all__ = ["LEAF_FORMAT", "SEAL_FORMAT", "TOURNAMENT_KINDS", "LeafError", "LogLeaf",
           "genesis_leaf", "pair", "seal_leaf", "seat_counts", "tournament_leaf", "unsealed"]

#: the format of genesis leaves, and of the seal leaves written before a seal named its genesis
LEAF_FORMAT = "fairdeal.log/1"
#: the format of seal leaves that name the genesis leaf they close (``"genesis": <index>``)
SEAL_FORMAT = "fairdeal.log/2"
#: the leaves of a tournament's log (docs/tournaments.md §3), and the field each adds
TOURNAMENT_KINDS = ("tournament-created", "tournament-round", "tournament-final")
_TOURNAMENT_FIELD = {"tournament-created": "ts", "tournament-round": "round",
                     "tournament-final": "seq"}
KINDS = ("genesis", "seal", *TOURNAMENT_KINDS)
#: the leaf formats each kind may have
_FORMATS = {"genesis": (LEAF_FORMAT,), "seal": (LEAF_FORMAT, SEAL_FORMAT),
            **{kind: (LEAF_FORMAT,) for kind in TOURNAMENT_KINDS}}


class LeafError(FairdealError):
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
    #: the leaf's format tag (``LEAF_FORMAT`` or, for a seal naming its genesis, ``SEAL_FORMAT``)
    format: str = LEAF_FORMAT
    #: a seal leaf of ``SEAL_FORMAT``: the index of the genesis leaf it closes
    genesis: int | None = None

    @classmethod
    def parse(cls, body: bytes) -> LogLeaf:
        try:
            value = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise LeafError("a log leaf is canonical JSON") from None
        if not isinstance(value, dict) or value.get("leaf") not in (LEAF_FORMAT, SEAL_FORMAT):
            raise LeafError(f"a log leaf is an object with leaf {LEAF_FORMAT!r} or "
                            f"{SEAL_FORMAT!r}")
        kind = value.get("kind")
        if kind not in KINDS:
            raise LeafError(f"a log leaf's kind is one of {', '.join(KINDS)}, got {kind!r}")
        form = str(value["leaf"])
        if kind in TOURNAMENT_KINDS:
            return cls._tournament(value, kind, body)
        if form not in _FORMATS[kind]:
            raise LeafError(f"a {kind} leaf has no format {form!r}")
        genesis = value.get("genesis")
        if form == SEAL_FORMAT:
            if isinstance(genesis, bool) or not isinstance(genesis, int) or genesis < 0:
                raise LeafError(f"a seal leaf of format {SEAL_FORMAT!r} names the index of its "
                                "genesis leaf (an integer from 0)")
        elif "genesis" in value:
            raise LeafError(f"a leaf of format {LEAF_FORMAT!r} names no genesis leaf")
        if canonical_bytes(value) != body:
            raise LeafError("a log leaf is canonical JSON (sorted keys, no spaces)")
        seats = value.get("seats", [])
        return cls(kind, str(value.get("match_id")), str(value.get("event")), body,
                   tuple(str(name) for name in seats) if isinstance(seats, list) else (),
                   value.get("game") if isinstance(value.get("game"), str) else None,
                   form, genesis if form == SEAL_FORMAT else None)


    @classmethod
    def _tournament(cls, value: dict[str, Any], kind: str, body: bytes) -> LogLeaf:
        """A tournament's leaf: exactly its fields, canonical."""
        extra = _TOURNAMENT_FIELD[kind]
        if set(value) != {"event", "kind", "leaf", "tournament_id", extra}:
            raise LeafError(f"a {kind} leaf holds event, kind, leaf, tournament_id and {extra}")
        number = value[extra]
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise LeafError(f"a {kind} leaf's {extra} is an integer from 0")
        if not isinstance(value["tournament_id"], str) or not isinstance(value["event"], str):
            raise LeafError(f"a {kind} leaf names its tournament and event as strings")
        if canonical_bytes(value) != body:
            raise LeafError("a log leaf is canonical JSON (sorted keys, no spaces)")
        return cls(kind, value["tournament_id"], value["event"], body)


def tournament_leaf(kind: str, tournament_id: str, event: str, number: int) -> bytes:
    """A tournament's leaf (docs/tournaments.md §3): ``number`` is the header's ``ts`` for
    ``tournament-created``, the round for ``tournament-round``, the final event's ``seq`` for
    ``tournament-final``."""
    if kind not in TOURNAMENT_KINDS:
        raise ValueError(f"no tournament leaf of kind {kind!r}")
    return canonical_bytes({"event": event, "kind": kind, "leaf": LEAF_FORMAT,
                            "tournament_id": tournament_id, _TOURNAMENT_FIELD[kind]: number})


def genesis_leaf(genesis: Mapping[str, Any]) -> bytes:
    """The leaf logged when a match is created: it names the match, its game and its seats."""
    return canonical_bytes({
        "event": event_hash(genesis), "game": genesis["game"], "kind": "genesis",
        "leaf": LEAF_FORMAT, "match_id": genesis["match_id"],
        "seats": [seat["name"] for seat in genesis["seats"]], "ts": genesis["ts"],
    })


def seal_leaf(match_id: str, seq: int, head: str, genesis: int | None = None) -> bytes:
    """The leaf logged when a match is sealed: its final event's position and hash, and the
    index of the genesis leaf it closes. ``genesis=None`` rebuilds the seal leaf of format 1
    (before a seal named its genesis), which bundles exported then still prove."""
    if genesis is None:
        return canonical_bytes({"event": head, "kind": "seal", "leaf": LEAF_FORMAT,
                                "match_id": match_id, "seq": seq})
    return canonical_bytes({"event": head, "genesis": genesis, "kind": "seal",
                            "leaf": SEAL_FORMAT, "match_id": match_id, "seq": seq})


def pair(leaves: Iterable[tuple[int, LogLeaf]]) -> tuple[dict[int, LogLeaf], dict[int, int]]:
    """Pair each seal leaf with the genesis leaf it closes, per leaf (never per match id).

    Returns the genesis leaves by index and ``{genesis index: seal index}``. A seal leaf of
    format 2 closes the genesis leaf it names, if that is an earlier genesis of its match still
    open; one of format 1 the latest open genesis of its match id before it. Any other seal
    closes nothing (``verifier.logscan`` reports it); a genesis leaf it does not close stays
    open — so a match id dealt twice and sealed once leaves one genesis open."""
    geneses: dict[int, LogLeaf] = {}
    open_by_id: dict[str, list[int]] = {}
    closed: dict[int, int] = {}
    for index, leaf in leaves:
        if leaf.kind in TOURNAMENT_KINDS:
            continue  # a tournament's leaf closes no match
        if leaf.kind == "genesis":
            geneses[index] = leaf
            open_by_id.setdefault(leaf.match_id, []).append(index)
            continue
        still_open = open_by_id.get(leaf.match_id, [])
        if leaf.genesis is None:
            target = still_open[-1] if still_open else None
        else:
            target = leaf.genesis if leaf.genesis in still_open else None
        if target is not None:
            still_open.remove(target)
            closed[target] = index
    return geneses, closed


def unsealed(leaves: Iterable[tuple[int, LogLeaf]]) -> list[tuple[int, LogLeaf]]:
    """The genesis leaves (with their indices) that no seal leaf closes: matches created and
    never finished (the audit counts them per player). In log order."""
    geneses, closed = pair(leaves)
    return [(index, leaf) for index, leaf in sorted(geneses.items()) if index not in closed]


def seat_counts(leaves: Iterable[tuple[int, LogLeaf]]) -> dict[str, tuple[int, int]]:
    """Per player name, from the log alone (leaves with their indices): how many genesis leaves
    named it, and how many of those no seal leaf closes. What the audit's "unsealed" test
    counts: a server that abandons the matches whose deal does not suit a favoured player
    cannot hide them, since every match is logged when it is created — and re-dealing under
    the same match id leaves the first genesis leaf open, counted like any other."""
    geneses, closed = pair(leaves)
    counts: dict[str, list[int]] = {}
    for index, leaf in geneses.items():
        for name in leaf.seats:
            entry = counts.setdefault(name, [0, 0])
            entry[0] += 1
            entry[1] += index not in closed
    return {name: (created, open_) for name, (created, open_) in counts.items()}
