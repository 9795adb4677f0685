"""The fairdeal protocol's primitives (versions 1 and 2): event hashes, the commitments, the deal
seed, the messages that are signed and the receipts. docs/SPEC.md is the normative text; this
module is its reference.

Every function here is pure: the same inputs give the same bytes in any implementation.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from .canonical import canonical_bytes, canonical_bytes_trusted
from .hashing import Tag, tag_prefix, tagged_hash
from .rng import RandomStream

__all__ = [
    "seat_index",
    "utc_time",
    "BUNDLE_FORMAT",
    "EVENT_TYPES",
    "MIN_SEATING_MS",
    "PLAY_TYPES",
    "PROTOCOL",
    "PROTOCOLS",
    "PROTOCOL_V1",
    "PROTOCOL_V2",
    "SEAT_SIGNED_TYPES",
    "ZERO_HASH",
    "client_commitment",
    "commitment",
    "deal_seed",
    "encoded_event_hash",
    "event_hash",
    "head_message",
    "header_binding",
    "move_message",
    "ply_stream",
    "receipt_message",
    "rules_hash",
    "seat_message",
    "setup_stream",
    "signed_message",
]

PROTOCOL_V1: Final = "fairdeal/1"
PROTOCOL_V2: Final = "fairdeal/2"
#: the protocol new matches are recorded under
PROTOCOL: Final = PROTOCOL_V2
BUNDLE_FORMAT: Final = "fairdeal.bundle/1"
ZERO_HASH: Final = "0" * 64

#: event types of each protocol version, in the order they may appear in a match
PROTOCOLS: Final[dict[str, tuple[str, ...]]] = {
    PROTOCOL_V1: ("genesis", "seat_key", "client_seed", "move", "timeout", "resign", "reveal"),
    PROTOCOL_V2: ("genesis", "seat_key", "seed_commit", "client_seed", "seed_expired",
                  "seed_reveal", "seed_forfeit", "move", "timeout", "resign", "reveal"),
}
#: every event type any version knows
EVENT_TYPES: Final = PROTOCOLS[PROTOCOL_V2]
#: the events that change the game state, one ply each
PLAY_TYPES: Final = ("move", "timeout", "resign")
#: fairdeal/2: the shortest seating window (``genesis.seating_ms``) a verifier accepts. The
#: window decides who takes part: a seat that has fixed nothing when it closes is declined by
#: the server (``seed_expired``), so a window no client can meet (1 ms) is the server choosing
#: every seed itself. 10 s covers the few round trips a client needs from joining to its
#: commitment (register its key, sign, commit) on a slow network with room to spare, and lies
#: below every window in use: the ledger's default (the turn limit, at least this, or 5 minutes)
#: and the committed fixtures (5 minutes). docs/SPEC.md §4.
MIN_SEATING_MS: Final = 10_000
#: fairdeal/2: the events a seat with a registered key signs itself
SEAT_SIGNED_TYPES: Final = ("seed_commit", "client_seed", "seed_reveal", "move", "resign")
#: SHA-256 already fed the event tag: every event hash continues a copy of it
_EVENT_HASH: Final = hashlib.sha256(tag_prefix(Tag.EVENT))


def event_hash(event: Mapping[str, Any], *, checked: bool = True) -> str:
    """The hex hash of an event: its canonical bytes, signature included, under tag "event".

    ``checked=False`` skips the canonical-JSON check for events already parsed by
    bundle.parse_json (which admits no float): the verifier's chain check is a hot path."""
    encode = canonical_bytes if checked else canonical_bytes_trusted
    return encoded_event_hash(encode(event))


def encoded_event_hash(body: bytes) -> str:
    """``event_hash`` of an event already in its canonical bytes ``body`` (a writer that keeps
    the bytes it stores hashes those, rather than encode the event a second time)."""
    digest = _EVENT_HASH.copy()
    digest.update(body)
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


def seat_message(event: Mapping[str, Any]) -> bytes:
    """fairdeal/2: what a seat signs for its own event — the event without ``sig`` and without
    ``ts``. The server's ``ts`` is stamped when the event is accepted, after the seat signed; a
    move carries the player's own clock as ``client_ts`` inside the signed bytes, as evidence."""
    unsigned = {key: value for key, value in event.items() if key not in ("sig", "ts")}
    return tagged_hash(Tag.SEAT_SIGNATURE, canonical_bytes(unsigned))


def signed_message(protocol: str, event: Mapping[str, Any]) -> bytes:
    """The bytes a seat signs for ``event`` under ``protocol``."""
    return move_message(event) if protocol == PROTOCOL_V1 else seat_message(event)


def client_commitment(match_id: str, seat: int, client_seed: str) -> str:
    """fairdeal/2: a seat's commitment to its seed before any seed is revealed.

    ``H("client-commit", canonical({"match_id", "seat", "client_seed"}))`` in hex; the seed is
    the 64 lowercase hex digits the seat will reveal. Binding the match and the seat means a
    commitment can be used for nothing else."""
    return tagged_hash(Tag.CLIENT_COMMIT, canonical_bytes(
        {"match_id": match_id, "seat": seat, "client_seed": client_seed})).hex()


def receipt_message(match_id: str, seq: int, event: str, ts: int) -> bytes:
    """What the server signs when it accepts a write: the match, the position, the event's
    hash and the server's time of acceptance."""
    return tagged_hash(Tag.RECEIPT, canonical_bytes(
        {"match_id": match_id, "seq": seq, "event": event, "ts": ts}))


def head_message(match_id: str, seq: int, head: str) -> bytes:
    """What the server signs when it seals a match: the last event's seq and hash."""
    return tagged_hash(
        Tag.HEAD_SIGNATURE, canonical_bytes({"match_id": match_id, "seq": seq, "head": head})
    )


#: a seat index as a person types it: a few ASCII digits (str.isdigit also accepts "²" or "٣",
#: which int() refuses or reads as another number, and int() refuses thousands of digits)
_SEAT_INDEX: Final = re.compile(r"[0-9]{1,9}")


def seat_index(seat_names: Sequence[str], label: str) -> int | None:
    """The seat a label names — its index (``0``), or its name in any case (``A``, ``blue``)
    — as ``--seat-key`` takes it; None when the match has no such seat."""
    text = label.strip().lower()
    if _SEAT_INDEX.fullmatch(text):
        return int(text) if int(text) < len(seat_names) else None
    names = [name.lower() for name in seat_names]
    return names.index(text) if text in names else None


def utc_time(ms: int) -> str:
    """An event's time (integer milliseconds since 1970, UTC) in words for people: ISO 8601 in
    UTC, to the millisecond. Data (``--json``, bundles) keeps the number.

    >>> utc_time(1767225635558)
    '2026-01-01T00:00:35.558Z'
    """
    try:
        moment = datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):  # beyond datetime's years: the number itself
        return f"{ms} ms since 1970"
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
