"""Domain-separated SHA-256: every kind of hash has its own tag, so a hash of one kind can never
be passed off as another.

    tagged_hash(tag, data) = SHA-256( "fairdeal/1/" ‖ tag ‖ 0x00 ‖ data )
"""

from __future__ import annotations

import hashlib
from typing import Final

__all__ = ["PREFIX", "Tag", "tagged_hash", "tag_prefix"]

PREFIX = b"fairdeal/1/"


class Tag:
    """The domain tags, one per kind of hash (docs/SPEC.md lists them).

    ``Final`` makes them class constants to mypyc too (the compiled build, docs/compiled.md),
    which otherwise reads an unannotated class attribute as an instance's.
    """

    EVENT: Final = "event"
    HEADER: Final = "header"
    COMMITMENT: Final = "commitment"
    DEAL_SEED: Final = "deal-seed"
    RULES: Final = "rules"
    HEAD_SIGNATURE: Final = "head-signature"
    MOVE_SIGNATURE: Final = "move-signature"
    SEAT_SIGNATURE: Final = "seat-signature"
    CLIENT_COMMIT: Final = "client-commit"
    RECEIPT: Final = "receipt"
    KEY_ID: Final = "key-id"
    RNG: Final = "rng"


def tag_prefix(tag: str) -> bytes:
    """The bytes that precede the data for ``tag``."""
    return PREFIX + tag.encode("ascii") + b"\x00"


def tagged_hash(tag: str, data: bytes) -> bytes:
    """SHA-256 of ``data`` under domain tag ``tag`` (32 bytes)."""
    return hashlib.sha256(tag_prefix(tag) + data).digest()
