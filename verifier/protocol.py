"""The fairdeal/1 protocol's primitives: event hashes, the commitment, the deal seed and the
messages that are signed. docs/SPEC.md is the normative text; this module is its reference.

Every function here is pure: the same inputs give the same bytes in any implementation.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from .canonical import canonical_bytes, canonical_bytes_trusted
from .hashing import Tag, tag_prefix, tagged_hash
from .rng import RandomStream

__all__ = [
    "BUNDLE_FORMAT",
    "EVENT_TYPES",
    "PLAY_TYPES",
    "PROTOCOL",
    "ZERO_HASH",
    "commitment",
    "deal_seed",
    "event_hash",
    "head_message",
    "header_binding",
    "move_message",
    "ply_stream",
    "rules_hash",
    "setup_stream",
]

PROTOCOL = "fairdeal/1"
BUNDLE_FORMAT = "fairdeal.bundle/1"
ZERO_HASH = "0" * 64

#: event types, in the order they may appear in a match
EVENT_TYPES = ("genesis", "seat_key", "client_seed", "move", "timeout", "resign", "reveal")
#: the events that change the game state, one ply each
PLAY_TYPES = ("move", "timeout", "resign")
#: SHA-256 already fed the event tag: every event hash continues a copy of it
_EVENT_HASH = hashlib.sha256(tag_prefix(Tag.EVENT))


def event_hash(event: Mapping[str, Any], *, checked: bool = True) -> str:
    """The hex hash of an event: its canonical bytes, signature included, under tag "event".

    ``checked=False`` skips the canonical-JSON check for events already parsed by
    bundle.parse_json (which admits no float): the verifier's chain check is a hot path."""
    encode = canonical_bytes if checked else canonical_bytes_trusted
    digest = _EVENT_HASH.copy()
    digest.update(encode(event))
    return digest.hexdigest()


def header_binding(genesis: Mapping[str, Any]) -> bytes:
    """What the commitment binds: the genesis event without its ``commitment`` field."""
    header = {key: value for key, value in genesis.items() if key != "commitment"}
    return tagged_hash(Tag.HEADER, canonical_bytes(header))


def commitment(server_seed: bytes, genesis: Mapping[str, Any]) -> str:
    """``SHA-256("fairdeal/1/commitment" 0x00 ‖ server seed ‖ header binding)`` in hex."""
    return tagged_hash(Tag.COMMITMENT, server_seed + header_binding(genesis)).hex()


def deal_seed(server_seed: bytes, match_id: str, client_seeds: Sequence[str | None]) -> bytes:
    """The seed every shuffle and draw derives from.

    ``HMAC-SHA256(key = server seed, "fairdeal/1/deal-seed" 0x00 ‖ canonical({"match_id",
    "client_seeds"}))``: the server is bound by its commitment before any client seed is known,
    and no player can predict the result without the server seed.
    """
    message = tag_prefix(Tag.DEAL_SEED) + canonical_bytes(
        {"match_id": match_id, "client_seeds": list(client_seeds)}
    )
    return hmac.digest(server_seed, message, "sha256")


def setup_stream(seed: bytes) -> RandomStream:
    """The stream the game's ``setup`` draws from (the deal, the first player)."""
    return RandomStream(seed, "setup")


def ply_stream(seed: bytes, ply: int) -> RandomStream:
    """The stream for the ``ply``-th state change (0-based count of move/timeout/resign events).

    One fresh stream per ply lets a replayer start from any snapshot, and the server cannot
    shift draws by inserting events that do not change the game.
    """
    return RandomStream(seed, f"ply/{ply}")


def rules_hash(rules_data: Any) -> str:
    """The hex hash of a game's rules data, as the genesis event records it."""
    return tagged_hash(Tag.RULES, canonical_bytes(rules_data)).hex()


def move_message(event: Mapping[str, Any]) -> bytes:
    """What a seat signs for its own move: the event without ``sig``, under its own tag."""
    unsigned = {key: value for key, value in event.items() if key != "sig"}
    return tagged_hash(Tag.MOVE_SIGNATURE, canonical_bytes(unsigned))


def head_message(match_id: str, seq: int, head: str) -> bytes:
    """What the server signs when it seals a match: the last event's seq and hash."""
    return tagged_hash(
        Tag.HEAD_SIGNATURE, canonical_bytes({"match_id": match_id, "seq": seq, "head": head})
    )
