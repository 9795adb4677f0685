"""Domain-separated SHA-256: every kind of hash has its own tag, so a hash of one kind can never
be passed off as another.

    tagged_hash(tag, data) = SHA-256( "fairdeal/1/" ‖ tag ‖ 0x00 ‖ data )
"""

from __future__ import annotations

import hashlib

__all__ = ["PREFIX", "Tag", "tagged_hash", "tag_prefix"]

PREFIX = b"fairdeal/1/"


class Tag:
    """The domain tags, one per kind of hash (docs/SPEC.md lists them)."""

    EVENT = "event"
    HEADER = "header"
    COMMITMENT = "commitment"
    DEAL_SEED = "deal-seed"
    RULES = "rules"
    HEAD_SIGNATURE = "head-signature"
    MOVE_SIGNATURE = "move-signature"
    SEAT_SIGNATURE = "seat-signature"
    CLIENT_COMMIT = "client-commit"
    RECEIPT = "receipt"
    KEY_ID = "key-id"
    RNG = "rng"


def tag_prefix(tag: str) -> bytes:
    """The bytes that precede the data for ``tag``."""
    return PREFIX + tag.encode("ascii") + b"\x00"


def tagged_hash(tag: str, data: bytes) -> bytes:
    """SHA-256 of ``data`` under domain tag ``tag`` (32 bytes)."""
    return hashlib.sha256(tag_prefix(tag) + data).digest()
