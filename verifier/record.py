"""Writing a match the way the protocol wants it: the genesis with its commitment, each event
chained and checked by the same MatchReplayer the verifier uses, the reveal and the server's
signature. Pure: the caller supplies the seed, the timestamps and the key, so a simulation with
a fixed seed and a simulated clock is byte-for-byte reproducible, and the ledger can rebuild a
recorder from stored events after a restart.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from fairdeal.games import get_game, get_rules

from .bundle import validate_event
from .canonical import canonical_bytes
from .keys import SigningKey
from .protocol import (
    BUNDLE_FORMAT,
    PROTOCOL,
    PROTOCOL_V1,
    ZERO_HASH,
    commitment,
    encoded_event_hash,
    event_hash,
    head_message,
    rules_hash,
    signed_message,
)
from .replay import MatchReplayer
from .report import VerificationError

__all__ = ["MatchRecorder", "make_genesis"]

#: how many of the last accepted events a recorder keeps the canonical bytes of (``encoded``)
KEPT_ENCODINGS = 8

#: the rules data hash of each (game, rules version), as the replayer keeps them: hashing
#: the card data costs more than building the rest of a genesis
_rules_hashes: dict[tuple[str, str], str] = {}


def make_genesis(
    *,
    game_name: str,
    params: Mapping[str, Any],
    seats: Sequence[str],
    match_id: str,
    server_seed: bytes,
    server_key_id: str,
    turn_limit_ms: int | None,
    ts: int,
    seating_ms: int = 300_000,
    protocol: str = PROTOCOL,
    rules_version: str | None = None,
) -> dict[str, Any]:
    """The genesis event of a new match, its commitment computed from ``server_seed``.

    ``seating_ms`` (fairdeal/2): how long seats have to commit to their seeds, counted from
    the genesis, and then again to reveal them, counted from the last commitment. The match is
    played under the game's newest rules unless ``rules_version`` names an older one (to
    rebuild old fixtures). Raises RulesError for bad params or a turn limit the rules
    refuse."""
    game = get_game(game_name) if rules_version is None else get_rules(game_name, rules_version)
    normal = game.normalize_params(params)
    game.turn_timer(normal, turn_limit_ms)
    key = (game.name, game.rules_version)
    data_hash = _rules_hashes.get(key)
    if data_hash is None:
        data_hash = _rules_hashes[key] = rules_hash(game.rules_data())
    genesis: dict[str, Any] = {
        "seq": 0,
        "prev": ZERO_HASH,
        "type": "genesis",
        "ts": ts,
        "protocol": protocol,
        "match_id": match_id,
        "game": game.name,
        "rules_version": game.rules_version,
        "rules_hash": data_hash,
        "params": normal,
        "turn_limit_ms": turn_limit_ms,
        "seats": [{"name": name} for name in seats],
        "server_key_id": server_key_id,
    }
    if protocol != PROTOCOL_V1:
        genesis["seating_ms"] = seating_ms
    genesis["commitment"] = commitment(server_seed, genesis)
    validate_event(genesis, "genesis")
    return genesis


class MatchRecorder:
    """One match being written. Every ``append`` is validated before it is accepted."""

    def __init__(self, genesis: Mapping[str, Any], server_seed: bytes) -> None:
        self.events: list[dict[str, Any]] = [dict(genesis)]
        self.server_seed = server_seed
        self.replayer = MatchReplayer(genesis, server_seed)
        self.head = event_hash(genesis)
        self.protocol: str = genesis["protocol"]
        #: ``(seq, canonical bytes, hash)`` of the last events accepted (``encoded``)
        self._encoded: deque[tuple[int, bytes, str]] = deque(maxlen=KEPT_ENCODINGS)

    @classmethod
    def resume(cls, events: Sequence[Mapping[str, Any]], server_seed: bytes) -> MatchRecorder:
        """Rebuild a recorder from stored events (after a restart)."""
        recorder = cls(events[0], server_seed)
        for event in events[1:]:
            recorder._accept(dict(event))
        return recorder

    @property
    def game(self) -> Any:
        return self.replayer.game

    @property
    def state(self) -> Any:
        return self.replayer.state

    @property
    def next_seq(self) -> int:
        return len(self.events)

    def draft(self, kind: str, ts: int, **fields: Any) -> dict[str, Any]:
        """The next event, unsigned and not yet accepted (a seat signs ``signed_message`` of
        it: under fairdeal/2 that leaves out ``ts``, which the server stamps)."""
        return {"seq": self.next_seq, "prev": self.head, "type": kind, "ts": ts, **fields}

    def append(self, kind: str, ts: int, signer: SigningKey | None = None,
               **fields: Any) -> dict[str, Any]:
        """Build, optionally sign (as the acting seat), validate and accept the next event."""
        event = self.draft(kind, ts, **fields)
        if signer is not None:
            event["sig"] = signer.sign(signed_message(self.protocol, event)).hex()
        return self._accept(event)

    def accept(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and accept a complete event (one a client drafted and signed)."""
        return self._accept(dict(event))

    def _accept(self, event: dict[str, Any]) -> dict[str, Any]:
        validate_event(event, f"event {event.get('seq')}", self.protocol)
        if event["seq"] != self.next_seq or event["prev"] != self.head:
            raise VerificationError("chain", f"event {event['seq']} does not follow the head "
                                    f"(expected seq {self.next_seq})", event["seq"])
        body = canonical_bytes(event)  # refuses what has no canonical form, before it counts
        head = encoded_event_hash(body)  # of the very bytes kept for ``encoded``
        self.replayer.feed(event)
        self.events.append(event)
        self.head = head
        self._encoded.append((event["seq"], body, head))
        return event

    def encoded(self, seq: int) -> tuple[bytes, str] | None:
        """The canonical bytes and the hash of event ``seq`` as accepted, while it is among
        the last ``KEPT_ENCODINGS`` accepted (None otherwise): a writer that stores the events
        it just recorded (the ledger) stores these rather than encode and hash them again."""
        for kept_seq, body, digest in reversed(self._encoded):
            if kept_seq == seq:
                return body, digest
        return None

    def reveal(self, ts: int) -> dict[str, Any]:
        """The final event: the server seed and the result."""
        outcome = self.replayer.outcome
        if outcome is None:
            raise ValueError("the match is not over: nothing to reveal yet")
        return self.append("reveal", ts, server_seed=self.server_seed.hex(),
                           result=outcome.to_json())

    def seal(self, key: SigningKey) -> dict[str, Any]:
        """The signed bundle of a revealed match."""
        last = self.events[-1]
        if last["type"] != "reveal":
            raise ValueError("only a revealed match can be sealed")
        message = head_message(self.events[0]["match_id"], last["seq"], self.head)
        return {
            "format": BUNDLE_FORMAT,
            "events": self.events,
            "signature": {"key": key.public_text, "sig": key.sign(message).hex()},
        }
