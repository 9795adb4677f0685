"""Scanning a transparency log's leaves for what no honest log holds (``fairdeal log monitor``).

Leaves in, findings out; no I/O. A ``LogScan`` reads the leaves in log order, one at a time
(``add``), and keeps only what later leaves are checked against, so a monitor can scan each run
just the leaves appended since the last one (``to_json`` / ``from_json`` keep it in the
monitor's state file):

- the tree's frontier (one hash per complete subtree), so the scanned leaves can be checked to
  be the very tree a signed checkpoint names (``root``): a server cannot list the monitor other
  leaves than the ones it proves to everyone else;
- per match id, the index of its genesis leaf and of the seal leaf that closed it.

What it reports (each a ``Finding`` naming the leaf, and the earlier leaf it conflicts with):

- a second genesis leaf of a match id — the match id was dealt twice: the operator created a
  match, learned its deal, deleted it from its tables and dealt again under the same id;
- a seal leaf whose genesis leaf it cannot find: no genesis of its match before it, or (format
  ``fairdeal.log/2``) not the genesis leaf it names;
- a second seal leaf of one genesis;
- (tournament leaves, docs/tournaments.md §3, are read and pass: they open no match)
- a leaf that is not a fairdeal log leaf at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import FairdealError
from .logleaf import TOURNAMENT_KINDS, LeafError, LogLeaf
from .merkle import EMPTY_ROOT, Node, completed_nodes, fold, frontier, leaf_hash

__all__ = ["Finding", "LogScan", "ScanError", "Sealed"]


class ScanError(FairdealError):
    """A scan state that is not one, or a leaf given out of order."""


@dataclass(frozen=True)
class Finding:
    """One thing no honest log holds: at leaf ``index`` (``other``: the earlier leaf it
    conflicts with, when there is one)."""

    index: int
    message: str
    other: int | None = None


@dataclass(frozen=True)
class Sealed:
    """A seal leaf that closed its match's genesis leaf: what ``--deep`` checks the match's
    bundle against."""

    match_id: str
    genesis: int
    seal: int
    leaf: LogLeaf


@dataclass
class LogScan:
    """What a scan of the first ``size`` leaves keeps (see the module docstring)."""

    size: int = 0
    #: the hashes of ``merkle.frontier(size)``'s nodes
    nodes: dict[Node, bytes] = field(default_factory=dict)
    #: per match id: [genesis leaf index, seal leaf index or None]
    matches: dict[str, list[int | None]] = field(default_factory=dict)

    def root(self) -> bytes:
        """The root of the tree of the leaves scanned (to compare with a checkpoint's)."""
        if self.size == 0:
            return EMPTY_ROOT
        return fold([self.nodes[node] for node in frontier(self.size)])

    def counts(self) -> tuple[int, int]:
        """How many match ids the scan has seen created, and how many of them sealed."""
        return len(self.matches), sum(entry[1] is not None for entry in self.matches.values())

    def add(self, index: int, body: bytes) -> tuple[list[Finding], Sealed | None]:
        """Scan leaf ``index`` (the next one: ``index == size``); return what it raised, and
        the seal it is if it closed a genesis leaf."""
        if index != self.size:
            raise ScanError(f"leaf {index} given where leaf {self.size} is next")
        made = dict(completed_nodes(index, leaf_hash(body), self.nodes))
        self.size += 1
        self.nodes = {node: made.get(node) or self.nodes[node] for node in frontier(self.size)}
        try:
            leaf = LogLeaf.parse(body)
        except LeafError as e:
            return [Finding(index, f"leaf {index} is not a fairdeal log leaf: {e}")], None
        if leaf.kind in TOURNAMENT_KINDS:
            # a tournament's leaf: its bundle carries the proof; it opens or closes no match
            return [], None
        entry = self.matches.get(leaf.match_id)
        if leaf.kind == "genesis":
            if entry is not None:
                return [Finding(index, f"match {leaf.match_id!r} has a second genesis leaf "
                                f"{index}; its first is leaf {entry[0]}: the server dealt this "
                                "match id twice", entry[0])], None
            self.matches[leaf.match_id] = [index, None]
            return [], None
        if entry is None:
            return [Finding(index, f"seal leaf {index} of match {leaf.match_id!r} closes no "
                            "genesis leaf: the log holds no genesis of this match before it",
                            leaf.genesis)], None
        genesis, sealed = entry[0], entry[1]
        assert genesis is not None
        if leaf.genesis is not None and leaf.genesis != genesis:
            return [Finding(index, f"seal leaf {index} of match {leaf.match_id!r} names genesis "
                            f"leaf {leaf.genesis}, which is not the match's genesis (leaf "
                            f"{genesis})", leaf.genesis)], None
        if sealed is not None:
            return [Finding(index, f"match {leaf.match_id!r} is sealed twice: seal leaves "
                            f"{sealed} and {index}", sealed)], None
        entry[1] = index
        return [], Sealed(leaf.match_id, genesis, index, leaf)

    # --- the state file --------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size,
                "frontier": [self.nodes[node].hex() for node in frontier(self.size)],
                "matches": {match_id: list(entry) for match_id, entry in self.matches.items()}}

    @classmethod
    def from_json(cls, value: object) -> LogScan:
        """A scan kept by ``to_json``; ScanError when ``value`` is not one."""
        if not isinstance(value, Mapping):
            raise ScanError("the scan is not an object")
        size, hashes, matches = value.get("size"), value.get("frontier"), value.get("matches")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ScanError("the scan's size is not a leaf count")
        nodes = frontier(size)
        if not isinstance(hashes, list) or len(hashes) != len(nodes):
            raise ScanError(f"the scan's frontier is not {len(nodes)} hashes")
        try:
            digests = [bytes.fromhex(item) for item in hashes]
        except (TypeError, ValueError):
            raise ScanError("the scan's frontier is not hex hashes") from None
        if any(len(digest) != 32 for digest in digests):
            raise ScanError("the scan's frontier is not 32-byte hashes")
        if not isinstance(matches, Mapping):
            raise ScanError("the scan's matches are not an object")
        kept: dict[str, list[int | None]] = {}
        for match_id, entry in matches.items():
            if (not isinstance(match_id, str) or not isinstance(entry, list) or len(entry) != 2
                    or not all(_index_below(item, size) for item in entry[:1])
                    or not (entry[1] is None or _index_below(entry[1], size))):
                raise ScanError(f"the scan's entry for match {str(match_id)[:64]!r} is not "
                                "[genesis index, seal index or null]")
            kept[match_id] = [entry[0], entry[1]]
        return cls(size, dict(zip(nodes, digests, strict=True)), kept)


def _index_below(item: object, size: int) -> bool:
    return not isinstance(item, bool) and isinstance(item, int) and 0 <= item < size
