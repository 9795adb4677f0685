"""The tournament log's hashes and signed messages (docs/tournaments.md §2, normative).

Each has its own domain tag (docs/SPEC.md §1), distinct from every match tag, so no hash or
signature of a match can be passed off as a tournament's, nor one kind of tournament hash as
another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..canonical import canonical_bytes
from ..hashing import tag_prefix, tagged_hash

FORMAT: Final = "fairdeal.tournament/1"
ZERO_HASH: Final = "0" * 64


class TournamentTag:
    """The tournament's domain tags."""

    EVENT: Final = "tournament-event"
    HEADER: Final = "tournament-header"
    COMMITMENT: Final = "tournament-commitment"
    FIELD: Final = "tournament-field"
    LOTS: Final = "tournament-lots"
    LOT: Final = "tournament-lot"
    PAIRING: Final = "tournament-pairing"
    PLAYER: Final = "tournament-player"
    ARBITER: Final = "tournament-arbiter"
    HEAD: Final = "tournament-head"
    DISPUTE_REPORT: Final = "dispute-report"


#: the events a player signs with its registered key, and the one the arbiter signs
PLAYER_SIGNED: Final = ("register", "withdraw", "dispute")
ARBITER_SIGNED: Final = ("ruling",)

_EVENT_HASH = hashlib.sha256(tag_prefix(TournamentTag.EVENT))


def event_hash(event: Mapping[str, Any]) -> str:
    """The hex hash of a tournament event: its canonical bytes, signature included."""
    digest = _EVENT_HASH.copy()
    digest.update(canonical_bytes(event))
    return digest.hexdigest()


def header_binding(header: Mapping[str, Any]) -> bytes:
    """What the commitment binds: the header without its ``commitment`` field."""
    unbound = {key: value for key, value in header.items() if key != "commitment"}
    return tagged_hash(TournamentTag.HEADER, canonical_bytes(unbound))


def commitment(seed: bytes, header: Mapping[str, Any]) -> str:
    """``H("tournament-commitment", seed ‖ header binding)`` in hex."""
    return tagged_hash(TournamentTag.COMMITMENT, seed + header_binding(header)).hex()


def signed_message(event: Mapping[str, Any]) -> bytes:
    """What a player (``register``, ``withdraw``, ``dispute``) or the arbiter (``ruling``)
    signs: the event without ``sig`` and ``ts``, under the signer's tag."""
    tag = TournamentTag.ARBITER if event.get("type") in ARBITER_SIGNED else TournamentTag.PLAYER
    unsigned = {key: value for key, value in event.items() if key not in ("sig", "ts")}
    return tagged_hash(tag, canonical_bytes(unsigned))


def head_message(tournament_id: str, seq: int, head: str) -> bytes:
    """What the server signs when the tournament is final: the last event's seq and hash."""
    return tagged_hash(TournamentTag.HEAD, canonical_bytes(
        {"tournament_id": tournament_id, "seq": seq, "head": head}))


def field_hash(players: Sequence[tuple[str, str]]) -> str:
    """``start``'s ``field``: the players' key ids with their registration entropy, in order."""
    return tagged_hash(TournamentTag.FIELD, canonical_bytes(
        [{"player": player, "entropy": entropy} for player, entropy in players])).hex()


def lots(seed: bytes, field: str) -> bytes:
    """The tournament's randomness: the committed seed mixed with every registrant's entropy."""
    return tagged_hash(TournamentTag.LOTS, seed + bytes.fromhex(field))


def lot(lots_: bytes, player: str) -> bytes:
    """A player's lot, which orders players otherwise tied (ascending)."""
    return tagged_hash(TournamentTag.LOT, lots_ + player.encode("ascii"))


def report_hash(report: Mapping[str, Any]) -> str:
    """A dispute's ``report``: the hash of the dispute report of its step, as JSON."""
    return tagged_hash(TournamentTag.DISPUTE_REPORT, canonical_bytes(report)).hex()
