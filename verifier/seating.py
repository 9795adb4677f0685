"""The seating phase of a match, as the replayer checks it (docs/SPEC.md §4, §6, §9): the
seats' keys and pins, their seeds and commitments, the seating and reveal deadlines, and the
signature every event of a seat with a key must carry.

A `Seating` is one part of a `MatchReplayer` (verifier/replay.py), which owns it and hands it
each key and seed event; the seating says when every seed is in (``complete``: the replayer
deals and play begins) or that a seat forfeited (the match ends without a deal). The replayer
asks it to check the signatures on a seat's plays too. Like the replayer, it assumes events
that are well-formed and chain-checked, and raises VerificationError naming the check and the
event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from fairdeal.games import Game, Outcome

from .influence import SeatSeed
from .keys import key_id, parse_public_key, verify_signature
from .protocol import MIN_SEATING_MS, PROTOCOL_V1, client_commitment, signed_message
from .report import VerificationError

__all__ = ["SEATING_TYPES", "Seating"]

#: the events a `Seating` reads: a seat's key, and what it does about its seed
SEATING_TYPES: Final = ("seat_key", "client_seed", "seed_commit", "seed_expired", "seed_reveal",
                 "seed_forfeit")


class Seating:
    """Who sits where with which key, and each seat's seed, up to the deal.

    ``seat_pins`` maps a seat index to the Ed25519 key its player is known to hold: a pin is a
    requirement (docs/SPEC.md §9). The match must show that seat registering exactly that key
    before its first seed event, and every seed event, move and resignation of the seat must
    carry its valid signature; the server may declare its seed expired only once the key is
    registered. The first event that breaks this fails ``seat-signatures``.
    """

    def __init__(self, genesis: Mapping[str, Any], game: Game) -> None:
        self.genesis = genesis
        self.game = game
        self.protocol: str = genesis["protocol"]
        self.v2 = self.protocol != PROTOCOL_V1
        self.seats = len(genesis["seats"])
        self.seating_ms: int | None = genesis.get("seating_ms")
        self.client_seeds: list[str | None] = [None] * self.seats
        #: the seat's seed is fixed: committed, sent, declined or expired
        self.seeded = [False] * self.seats
        self.seat_keys: list[bytes | None] = [None] * self.seats
        self.seat_seeds = [SeatSeed() for _ in range(self.seats)]
        self.commitments: list[str | None] = [None] * self.seats
        self.seat_pins: dict[int, bytes] = {}
        #: fairdeal/2: when every seat's seed was fixed (the reveals' deadline counts from it)
        self.commits_closed_ts: int | None = None
        #: every seed is in (and, fairdeal/2, revealed): the deal is fixed
        self.complete = False

    def pin(self, seat_pins: Mapping[int, bytes]) -> None:
        """Pin players' keys by seat index, before any event is fed."""
        self.seat_pins.update(seat_pins)
        for seat in seat_pins:
            self.seat_seeds[seat].pinned = True

    def check_genesis(self) -> None:
        """What the genesis alone decides: a pin needs a protocol whose seeds are signed, and a
        fairdeal/2 seating window is at least MIN_SEATING_MS. Raises at event 0."""
        if self.seat_pins and not self.v2:
            raise VerificationError(
                "seat-signatures", f"{self._pinned_words()} pinned, but this is a version 1 "
                "bundle (fairdeal/1): version 1 had no signed seeds, so the seeds could be "
                "anyone's, the server's included, and nothing in it can be shown to be the "
                "pinned player's. Pins apply to fairdeal/2 bundles only", 0)
        if self.v2 and self.seating_ms is not None and self.seating_ms < MIN_SEATING_MS:
            raise VerificationError(
                "timers", f"the seating window is {self.seating_ms} ms, shorter than the "
                f"protocol's minimum of {MIN_SEATING_MS} ms: a window no player can meet lets "
                "the server declare every seat's seed expired and choose the deal itself", 0)

    def _pinned_words(self) -> str:
        names = [f"seat {self.game.seat_names[seat]}" for seat in sorted(self.seat_pins)]
        verb = "is" if len(names) == 1 else "are"
        return f"{' and '.join(names)} {verb}"

    def seat_name(self, seat: int) -> str:
        return f"seat {self.game.seat_names[seat]} ({self.genesis['seats'][seat]['name']})"

    @property
    def seating_deadline(self) -> int | None:
        """fairdeal/2: until when seats may commit (or send, or decline) their seeds."""
        if self.seating_ms is None:
            return None
        return int(self.genesis["ts"]) + self.seating_ms

    @property
    def reveal_deadline(self) -> int | None:
        """fairdeal/2: until when committed seats may reveal (None before every seed is fixed)."""
        if self.seating_ms is None or self.commits_closed_ts is None:
            return None
        return self.commits_closed_ts + self.seating_ms

    def feed(self, event: Mapping[str, Any], seat: int) -> Outcome | None:
        """Check one key or seed event of ``seat`` (an existing seat) and advance; return the
        outcome when a seat's forfeit ends the match without a deal, else None."""
        return _HANDLERS[event["type"]](self, event, seat)

    # --- the signatures ----------------------------------------------------------------------

    def check_signature(self, event: Mapping[str, Any], seat: int) -> None:
        """The event carries the signature its seat owes: none without a key (and no player's
        clock either), a valid one with a key, and the pinned key's on a pinned seat."""
        key = self.seat_keys[seat]
        check = "seat-signatures"
        pinned = self.seat_pins.get(seat)
        if pinned is not None and (key is None or "sig" not in event):
            why = (f"the seat registered no key before it, so nothing it did is signed by "
                   f"the pinned key {key_id(pinned)}" if key is None
                   else "the event carries no signature")
            raise VerificationError(
                check, f"{self.seat_name(seat)} is pinned but this "
                f"{_what(event)} is not signed by it: {why}",
                event["seq"])
        if key is None:
            if "sig" in event:
                raise VerificationError(
                    check, f"{self.seat_name(seat)} registered no key, yet the "
                    f"{event['type']} carries a signature", event["seq"])
            if "client_ts" in event:
                raise VerificationError(
                    check, f"this {event['type']} carries a player's clock (client_ts) but no "
                    f"signature: {self.seat_name(seat)} registered no key", event["seq"])
            return
        if "sig" not in event:
            raise VerificationError(
                check, f"{self.seat_name(seat)} registered a key but this "
                f"{event['type']} is not signed by it", event["seq"])
        message = signed_message(self.protocol, event)
        if not verify_signature(key, bytes.fromhex(event["sig"]), message):
            if pinned is not None:
                raise VerificationError(
                    check, f"{self.seat_name(seat)} is pinned but this "
                    f"{_what(event)} is not signed by it: the "
                    f"signature is not the pinned key {key_id(pinned)}'s (the event was "
                    "altered or forged)", event["seq"])
            raise VerificationError(
                check, f"the signature on this {event['type']} is not "
                f"{self.seat_name(seat)}'s: the event was altered or forged", event["seq"])

    def check_pins_kept(self, seq: int) -> None:
        """At the reveal: a pinned seat that never registered its key has no event in the
        match at all (any seed event or play of it fails earlier): nothing in it is the
        player's."""
        for seat, pinned in sorted(self.seat_pins.items()):
            if self.seat_keys[seat] is None:
                raise VerificationError(
                    "seat-signatures", f"{self.seat_name(seat)} is pinned but the match ends "
                    f"without any event of it: it never registered the pinned key "
                    f"{key_id(pinned)}, so nothing in this match was signed by that player",
                    seq)

    # --- the events --------------------------------------------------------------------------

    def _on_seat_key(self, event: Mapping[str, Any], seat: int) -> None:
        seq = event["seq"]
        if self.complete:
            raise VerificationError(
                "timing", f"{self.seat_name(seat)} registered a key after play began", seq)
        if self.v2 and self.seat_seeds[seat].how is not None:
            raise VerificationError(
                "timing", f"{self.seat_name(seat)} registered its key after its first seed "
                "event: a key must come first, so that every seed event is signed", seq)
        if self.seat_keys[seat] is not None:
            raise VerificationError(
                "timing", f"{self.seat_name(seat)} registered a second key", seq)
        key = parse_public_key(event["public_key"])
        pinned = self.seat_pins.get(seat)
        if pinned is not None and pinned != key:
            raise VerificationError(
                "seat-signatures", f"{self.seat_name(seat)} registered key {key_id(key)}, not "
                f"the pinned key {key_id(pinned)}: its events were not signed by that player",
                seq)
        self.seat_keys[seat] = key

    def _seating_event(self, event: Mapping[str, Any], seat: int) -> None:
        """fairdeal/2: a commitment, a one-step seed or a decline, in the seating phase."""
        seq = event["seq"]
        if self.commits_closed_ts is not None or self.complete:
            raise VerificationError(
                "seeds", f"{self.seat_name(seat)}'s {event['type']} came after every seat's "
                "seed was fixed", seq)
        if self.seeded[seat]:
            raise VerificationError(
                "seeds", f"{self.seat_name(seat)} fixed its seed twice", seq)
        deadline = self.seating_deadline
        if deadline is not None and event["ts"] >= deadline and event["type"] != "seed_expired":
            raise VerificationError(
                "timers", f"{self.seat_name(seat)}'s {event['type']} came "
                f"{event['ts'] - deadline} ms after the seating deadline", seq)

    def _fixed(self, seat: int, ts: int) -> Outcome | None:
        """A seat's seed is fixed; once every seat's is, reveal or deal."""
        self.seeded[seat] = True
        if not all(self.seeded):
            return None
        if not self.v2:
            self.complete = True
            return None
        self.commits_closed_ts = ts
        return self._after_reveals()

    def _after_reveals(self) -> Outcome | None:
        """fairdeal/2: when no committed seat is left to reveal, play starts — or, if a seat
        forfeited by not revealing, the match ends without a deal."""
        hows = [seed.how for seed in self.seat_seeds]
        if "committed" in hows:
            return None
        if "forfeited" in hows:
            keepers = [i for i, how in enumerate(hows) if how != "forfeited"]
            winner = keepers[0] if len(keepers) == 1 else None
            return Outcome(winner, "seed-not-revealed",
                           "a seat committed to a seed and did not reveal it")
        self.complete = True
        return None

    def _on_client_seed(self, event: Mapping[str, Any], seat: int) -> Outcome | None:
        seq = event["seq"]
        if not self.v2:
            if self.complete:
                raise VerificationError(
                    "timing", f"{self.seat_name(seat)}'s client seed came after the deal was "
                    "fixed", seq)
            if self.seeded[seat]:
                raise VerificationError(
                    "timing", f"{self.seat_name(seat)} added a second client seed", seq)
            self.client_seeds[seat] = event["client_seed"]
            self._record(seat, "one-step" if event["client_seed"] else "declined", seq,
                         signed=False)
            return self._fixed(seat, event["ts"])
        self._seating_event(event, seat)
        self.check_signature(event, seat)
        self.client_seeds[seat] = event["client_seed"]
        signed = self.seat_keys[seat] is not None
        self._record(seat, "one-step" if event["client_seed"] else "declined", seq, signed)
        return self._fixed(seat, event["ts"])

    def _on_seed_commit(self, event: Mapping[str, Any], seat: int) -> Outcome | None:
        seq = event["seq"]
        self._seating_event(event, seat)
        self.check_signature(event, seat)
        self.commitments[seat] = event["commitment"]
        seed = self.seat_seeds[seat]
        seed.how, seed.fixed, seed.signed = "committed", seq, self.seat_keys[seat] is not None
        return self._fixed(seat, event["ts"])

    def _on_seed_expired(self, event: Mapping[str, Any], seat: int) -> Outcome | None:
        seq = event["seq"]
        self._seating_event(event, seat)
        self._not_before(event, self.seating_deadline, "seating", "expiry")
        pinned = self.seat_pins.get(seat)
        if pinned is not None and self.seat_keys[seat] is None:
            # without the player's key in the match, the expiry is the server's word alone
            # and every later play of the seat could be the server's: a pin refuses that
            raise VerificationError(
                "seat-signatures", f"{self.seat_name(seat)} is pinned but registered no key "
                f"before the server declared its seed expired: nothing shows the pinned "
                f"player ({key_id(pinned)}) ever took part, and the seat's plays would be "
                "unsigned", seq)
        self._record(seat, "expired", seq, signed=False)
        return self._fixed(seat, event["ts"])

    def _revealing_event(self, event: Mapping[str, Any], seat: int) -> None:
        seq = event["seq"]
        if self.commits_closed_ts is None:
            waiting = [self.game.seat_names[i] for i in range(self.seats) if not self.seeded[i]]
            raise VerificationError(
                "seeds", f"{self.seat_name(seat)}'s {event['type']} came before every seat "
                f"had committed (still to commit: {', '.join(waiting)}): no seed may be shown "
                "while another seat can still choose its own", seq)
        if self.seat_seeds[seat].how != "committed":
            raise VerificationError(
                "seeds", f"{self.seat_name(seat)} has no commitment left to reveal "
                f"({self.seat_seeds[seat].how or 'it never committed'})", seq)

    def _on_seed_reveal(self, event: Mapping[str, Any], seat: int) -> Outcome | None:
        seq = event["seq"]
        self._revealing_event(event, seat)
        deadline = self.reveal_deadline
        assert deadline is not None
        if event["ts"] >= deadline:
            raise VerificationError(
                "timers", f"{self.seat_name(seat)}'s reveal came {event['ts'] - deadline} ms "
                "after the reveal deadline", seq)
        self.check_signature(event, seat)
        opened = client_commitment(self.genesis["match_id"], seat, event["client_seed"])
        if opened != self.commitments[seat]:
            raise VerificationError(
                "seeds", f"{self.seat_name(seat)}'s revealed seed does not open its commitment "
                f"{str(self.commitments[seat])[:16]}…: the seed was changed after it was "
                "committed", seq)
        self.client_seeds[seat] = event["client_seed"]
        seed = self.seat_seeds[seat]
        seed.how, seed.exposed = "commit-reveal", seq
        return self._after_reveals()

    def _on_seed_forfeit(self, event: Mapping[str, Any], seat: int) -> Outcome | None:
        self._revealing_event(event, seat)
        self._not_before(event, self.reveal_deadline, "reveal", "forfeit")
        self.seat_seeds[seat].how = "forfeited"
        return self._after_reveals()

    def _not_before(self, event: Mapping[str, Any], deadline: int | None, phase: str,
                    what: str) -> None:
        """A server-written expiry or forfeit may only come once its phase's deadline passed."""
        assert deadline is not None
        if event["ts"] < deadline:
            raise VerificationError(
                "timers", f"{self.seat_name(event['seat'])}'s {what} was written "
                f"{deadline - event['ts']} ms before the {phase} deadline (a forged {what})",
                event["seq"])

    def _record(self, seat: int, how: str, seq: int, signed: bool) -> None:
        seed = self.seat_seeds[seat]
        seed.how, seed.signed, seed.fixed = how, signed, seq
        seed.exposed = seq if how == "one-step" else None


#: what an event of a seat is, in words, for the failures of a pinned seat
_WHAT: Final = {"seed_commit": "seed commitment", "client_seed": "seed",
                "seed_reveal": "seed reveal", "move": "move", "resign": "resignation"}


def _what(event: Mapping[str, Any]) -> str:
    if event["type"] == "client_seed" and event.get("client_seed") is None:
        return "decline of a seed"
    kind: str = event["type"]
    return _WHAT.get(kind, kind)


#: each seating event type's handler: a dictionary lookup per event instead of getattr
_HANDLERS: Final[dict[str, Callable[[Seating, Mapping[str, Any], int], Outcome | None]]] = {
    "seat_key": Seating._on_seat_key, "client_seed": Seating._on_client_seed,
    "seed_commit": Seating._on_seed_commit, "seed_expired": Seating._on_seed_expired,
    "seed_reveal": Seating._on_seed_reveal, "seed_forfeit": Seating._on_seed_forfeit,
}
