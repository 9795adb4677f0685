"""A tournament's log, written the way the verifier reads it (docs/tournaments.md §2–5).

Pure: no clock, no randomness, no storage. The caller gives every timestamp, the tournament
seed (32 random bytes it drew and keeps secret until ``reveal``) and the signing callables of
the players, the arbiter and the server; the log fills in ``seq``, ``prev``, the hashes, the
commitment, the field, the pairings and the final standings, so the ledger (and the fixtures)
write exactly what ``verify_tournament`` re-derives.

>>> log = TournamentLog.new(header_fields, seed, ts=1_000)  # doctest: +SKIP
>>> log.append("register", {"player": ..., "public_key": ..., "name": "Ada",
...                         "entropy": ...}, ts=1_001, sign=ada_key.sign)  # doctest: +SKIP
>>> log.start(ts=2_000); log.pair(ts=2_001, match_ids=["m1", "m2"])  # doctest: +SKIP
>>> bundle = log.bundle(server_key)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..bundle import Bundle
from ..keys import key_id, parse_public_key
from ..protocol import event_hash as match_event_hash
from .events import validate_event
from .model import Round, Standing
from .pairing import pair_round, total_rounds
from .primitives import FORMAT, ZERO_HASH, commitment, event_hash, head_message, signed_message
from .standings import standings
from .state import TournamentState, header_points

__all__ = ["ServerSigner", "Signer", "TournamentLog", "match_result_fields", "standings_json"]

#: signs a message (the bytes of primitives.signed_message) and returns the 64-byte signature
Signer = Callable[[bytes], bytes]


class ServerSigner(Protocol):
    """What signs the head: verifier.keys.SigningKey is one."""

    @property
    def public_text(self) -> str: ...

    def sign(self, message: bytes) -> bytes: ...


class TournamentLog:
    """An append-only tournament log. ``new`` writes the header; ``append`` any event; the
    helpers ``start``, ``next_round``/``pair``, ``reveal`` and ``finish`` compute the fields
    the protocol derives. Every event is shape-checked (events.validate_event) as it is
    appended, so a log never holds one the verifier would refuse as malformed."""

    def __init__(self, header: dict[str, Any], seed: bytes) -> None:
        self._seed = seed
        self.events: list[dict[str, Any]] = []
        self.head = ZERO_HASH
        self.state = TournamentState(header)
        self._add(header)

    @classmethod
    def new(cls, header_fields: Mapping[str, Any], seed: bytes, ts: int) -> TournamentLog:
        """A log whose header holds ``header_fields`` (every header field of §2 but
        ``format`` and ``commitment``, which are computed) committed to ``seed``."""
        if len(seed) != 32:
            raise ValueError("the tournament seed is 32 bytes")
        header: dict[str, Any] = {"seq": 0, "prev": ZERO_HASH, "type": "header", "ts": ts,
                                  "format": FORMAT, **header_fields}
        header["commitment"] = commitment(seed, header)
        return cls(header, seed)

    @property
    def header(self) -> dict[str, Any]:
        return self.events[0]

    def append(self, kind: str, fields: Mapping[str, Any], ts: int,
               sign: Signer | None = None) -> dict[str, Any]:
        """Append an event of type ``kind``; ``sign`` (a player's or the arbiter's) signs it
        (primitives.signed_message: without ``sig`` and ``ts``). Returns the event."""
        event: dict[str, Any] = {"seq": len(self.events), "prev": self.head, "type": kind,
                                 "ts": ts, **fields}
        if sign is not None:
            event["sig"] = sign(signed_message(event)).hex()
        self._add(event)
        return event

    def _add(self, event: dict[str, Any]) -> None:
        validate_event(event, len(self.events))
        if self.events and event["ts"] < self.events[-1]["ts"]:
            raise ValueError(f"event {event['seq']}: ts {event['ts']} is before the last "
                             f"event's {self.events[-1]['ts']}")
        self.events.append(event)
        self.head = event_hash(event)
        if event["type"] != "header":
            self.state.apply(event)

    def register(self, public_key: str, name: str, entropy: str, ts: int,
                 sign: Signer) -> dict[str, Any]:
        """A player's registration, signed by ``sign`` (the key ``public_key`` names)."""
        return self.append("register", {"player": key_id(parse_public_key(public_key)),
                                        "public_key": public_key, "name": name,
                                        "entropy": entropy}, ts, sign)

    def start(self, ts: int) -> dict[str, Any]:
        """The ``start``: every registrant, in order, and the field's hash."""
        players = list(self.state.registrations)
        return self.append("start", {"players": players,
                                     "field": self.state.expected_field_hash()}, ts)

    def total_rounds(self) -> int:
        """How many rounds this tournament plays (known once it has started)."""
        players = self.state.players or ()
        return total_rounds(self.header["system"], len(players), self.header["rounds"])

    def next_round(self) -> Round:
        """The next round's pairings, derived from the history so far (pairing.pair_round):
        the ledger creates their matches, then ``pair`` writes the round with their ids."""
        number = len(self.state.rounds) + 1
        return pair_round(self.header["system"], self.state.field(self._seed), number,
                          self.state.history(), header_points(self.header))

    def pair(self, ts: int, match_ids: Sequence[str]) -> dict[str, Any]:
        """The next ``round`` event, its tables' matches named by ``match_ids`` in order."""
        paired = self.next_round()
        if len(match_ids) != len(paired.pairings):
            raise ValueError(f"round {paired.number} has {len(paired.pairings)} tables, "
                             f"{len(match_ids)} match ids were given")
        pairings = [{"table": p.table, "seats": list(p.seats), "match_id": match_id}
                    for p, match_id in zip(paired.pairings, match_ids, strict=True)]
        return self.append("round", {"round": paired.number, "pairings": pairings,
                                     "byes": list(paired.byes)}, ts)

    def reveal(self, ts: int) -> dict[str, Any]:
        """The seed's reveal, which opens the header's commitment."""
        return self.append("reveal", {"seed": self._seed.hex()}, ts)

    def standings(self) -> list[Standing]:
        """The standings after the events so far (standings.standings)."""
        return standings(self.state.field(self._seed), self.state.history(),
                         header_points(self.header), self.header["tiebreaks"])

    def finish(self, ts: int) -> dict[str, Any]:
        """The ``final`` event: the standings computed, in the header's tie-break order."""
        return self.append("final", {"standings": standings_json(self.standings())}, ts)

    def bundle(self, server_signer: ServerSigner) -> dict[str, Any]:
        """The bundle (§3) with the server's head signature (no log proofs: the ledger adds
        ``log`` when it has them)."""
        last = self.events[-1]
        message = head_message(self.header["tournament_id"], last["seq"], self.head)
        return {"format": FORMAT, "events": self.events,
                "signature": {"key": server_signer.public_text,
                              "sig": server_signer.sign(message).hex()}}


def standings_json(lines: Sequence[Standing]) -> list[dict[str, Any]]:
    """The ``final`` event's ``standings``."""
    return [{"rank": line.rank, "player": line.player, "score": line.score,
             "tiebreaks": list(line.tiebreaks)} for line in lines]


def match_result_fields(match: Bundle | Mapping[str, Any], seats: Sequence[str]
                        ) -> dict[str, Any]:
    """A ``result``'s ``outcome``, ``head``, ``seq`` and ``winner`` read off a sealed match
    (a Bundle or its JSON) whose seat i is the player ``seats[i]``: never typed in."""
    bundle = match if isinstance(match, Bundle) else Bundle.from_json(match)
    events = bundle.events
    winner = events[-1]["result"]["winner"]
    return {"outcome": "match", "head": _match_head(events), "match_seq": events[-1]["seq"],
            "winner": seats[winner] if winner is not None else None}


def _match_head(events: Sequence[Mapping[str, Any]]) -> str:
    return match_event_hash(events[-1])
