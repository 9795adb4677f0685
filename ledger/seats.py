"""What the seats do: register a key, fix a seed (in one step or two), move, resign. Each
action checks its request, then writes through the live matches' one write path and answers
with the stored event, the server's signed receipt for it and the seat's view after it.

Time: every event is stamped with the server clock when it is accepted, and that clock alone
governs every deadline; a seat that signs its moves puts its own clock in them (``client_ts``)
as evidence only, so no seat can shorten the opponent's turn by backdating its move (matches
created under fairdeal/1 keep the old rule, a signed ``ts`` within ``max_skew_ms``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fairdeal.games import RulesError
from fairdeal.verifier.bundle import shown
from fairdeal.verifier.keys import InvalidKey, SigningKey, parse_public_key
from fairdeal.verifier.protocol import PROTOCOL_V1, event_hash
from fairdeal.verifier.receipts import receipt_json
from fairdeal.verifier.record import MatchRecorder
from fairdeal.verifier.replay import MatchReplayer

from .answers import JsonAnswer
from .deadlines import Deadlines
from .errors import BadRequest, ConflictError, Refused
from .live import LiveMatch, LiveMatches
from .reading import ReadSide
from .store import EventStore

__all__ = ["Receipts", "SeatActions", "SeatAnswer", "signed_receipt"]

#: signs a receipt for a stored event: ``(match_id, event) -> receipt``
Receipts = Callable[[str, Mapping[str, Any]], dict[str, Any]]


def signed_receipt(server_key: SigningKey, match_id: str, event: Mapping[str, Any],
                   digest: str | None = None) -> dict[str, Any]:
    """The server's signed receipt for a stored event (verifier.receipts); ``digest`` is the
    event's hash when the caller has it already."""
    if digest is None:
        # unchecked: the event is one the recorder accepted (its canonical form checked
        # then) or one read back from its stored canonical bytes
        digest = event_hash(event, checked=False)
    return receipt_json(match_id, event["seq"], digest, event["ts"], server_key)


@dataclass(frozen=True, eq=False)
class SeatAnswer(JsonAnswer):
    """A seat action's answer: the stored event, the server's receipt for it, the seat's view
    after it, and for a move or a resignation whether it was a retry answered from the store
    (``replayed``; None for the other actions). It reads as its JSON form too
    (``answer["view"]``), so callers written against that form read it unchanged."""

    event: dict[str, Any]
    receipt: dict[str, Any]
    view: dict[str, Any]
    replayed: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"event", "receipt", "view"}``, with ``replayed`` when the action has one."""
        answer: dict[str, Any] = {"event": self.event, "receipt": self.receipt,
                                  "view": self.view}
        if self.replayed is not None:
            answer["replayed"] = self.replayed
        return answer


class SeatActions:
    """The seats' writes (see ``Ledger`` for each call's contract)."""

    def __init__(self, matches: LiveMatches, deadlines: Deadlines, reading: ReadSide,
                 store: EventStore, receipts: Receipts, clock: Callable[[], int],
                 max_skew_ms: int) -> None:
        self.matches = matches
        self.deadlines = deadlines
        self.reading = reading
        self.store = store
        #: signs each answer's receipt (the façade's ``receipt``, so a subclass may swap it)
        self.receipts = receipts
        self.clock = clock
        self.max_skew_ms = max_skew_ms

    def register_key(self, match_id: str, token: str | None, public_key: Any) -> SeatAnswer:
        """A seat registers its Ed25519 key; from then on it signs its seeds and moves."""
        live = self.deadlines.fresh(match_id)
        seat = live.seat(token)
        try:
            parse_public_key(public_key)
        except InvalidKey as e:
            raise BadRequest(str(e), code="invalid-key") from None
        with live.lock:
            recorder = self.matches.writable(live)
            event = self.matches.write(live, recorder.next_seq, lambda rec: rec.append(
                "seat_key", self._stamp(rec), seat=seat, public_key=public_key))[0]
            return self._answer(live, seat, event)

    def add_seed(self, match_id: str, token: str | None, client_seed: Any = None, *,
                 commitment: Any = None, expected_seq: Any = None,
                 sig: Any = None) -> SeatAnswer:
        """A seat's seed commitment, reveal, seed in one step, or decline."""
        live = self.deadlines.fresh(match_id)
        seat = live.seat(token)
        _check_seed_fields(client_seed, commitment)
        with live.lock:
            recorder = self.matches.writable(live)
            kind, fields = _seed_event(recorder, seat, client_seed, commitment)
            fields["seat"] = seat
            v2 = recorder.protocol != PROTOCOL_V1
            if v2 and recorder.replayer.seat_keys[seat] is not None:
                fields["sig"] = _seat_signature(sig)
                if expected_seq is None:
                    raise BadRequest("this seat registered a key: send expected_seq (the "
                                     "position it signed)", code="invalid-expected-seq")
            elif sig is not None:
                raise BadRequest("this seat registered no key: do not send 'sig'",
                                 code="unexpected-signature")
            at = recorder.next_seq if expected_seq is None else _position(expected_seq)

            def build(rec: MatchRecorder) -> None:
                rec.accept(rec.draft(kind, self._stamp(rec), **fields))

            event = self.matches.write(live, at, build)[0]
            return self._answer(live, seat, event)

    def play(self, match_id: str, token: str | None, action: Any, *, expected_seq: Any,
             action_id: Any, client_ts: Any = None, sig: Any = None,
             ts: Any = None) -> SeatAnswer:
        """Record a seat's move after the rules accept it; a retry of a stored ``action_id``
        answers the stored move (``replayed``) and stores nothing."""
        _position(expected_seq)
        if not isinstance(action_id, str) or not 0 < len(action_id) <= 100:
            raise BadRequest("action_id must be a string of 1 to 100 characters",
                             code="invalid-action-id")
        live = self.matches.get(match_id)  # caught up below only when the client is ahead
        self.deadlines.expire(live)
        seat = live.seat(token)
        try:
            with live.lock:
                recorder = self._at(live, expected_seq)
                fields: dict[str, Any] = {"seat": seat, "action": action, "action_id": action_id}
                stamp = self._move_fields(recorder, seat, fields, client_ts, sig, ts)
                _check_turn(recorder, seat)

                def build(rec: MatchRecorder) -> None:
                    when = stamp if stamp >= 0 else self._stamp(rec)
                    rec.accept(rec.draft("move", when, **fields))

                event = self.matches.write(live, expected_seq, build)[0]
                return self._answer(live, seat, event, replayed=False)
        except ConflictError:
            retried = self._retried_move(live, token, seat, action, action_id)
            if retried is None:
                raise
            return retried

    def resign(self, match_id: str, token: str | None, *, expected_seq: Any = None,
               client_ts: Any = None, sig: Any = None, ts: Any = None) -> SeatAnswer:
        """A seat resigns; the match ends, is revealed and sealed."""
        live = self.deadlines.fresh(match_id)
        seat = live.seat(token)
        with live.lock:
            recorder = self.matches.writable(live)
            resigned = _resignation(recorder, seat)
            if resigned is not None:
                return self._answer(live, seat, resigned, replayed=True)
            _check_resignable(recorder.replayer)
            if expected_seq is None:
                expected_seq = recorder.next_seq
            if not isinstance(expected_seq, int) or isinstance(expected_seq, bool):
                raise BadRequest("expected_seq must be an integer", code="invalid-expected-seq")
            fields: dict[str, Any] = {"seat": seat}
            stamp = -1
            if recorder.replayer.seat_keys[seat] is not None:
                fields["sig"] = _seat_signature(sig)
                stamp = self._signed_time(recorder, fields, client_ts, ts)

            def build(rec: MatchRecorder) -> None:
                when = stamp if stamp >= 0 else self._stamp(rec)
                rec.accept(rec.draft("resign", when, **fields))

            event = self.matches.write(live, expected_seq, build)[0]
            return self._answer(live, seat, event, replayed=False)

    # --- the steps -----------------------------------------------------------------------------

    def _answer(self, live: LiveMatch, seat: int, event: dict[str, Any],
                replayed: bool | None = None) -> SeatAnswer:
        """A write's answer: the stored event, the server's signed receipt for it and the
        seat's view after it (call with ``live.lock`` held)."""
        return SeatAnswer(event, self.receipts(live.match_id, event),
                          self.reading.view_of(live, seat), replayed)

    def _at(self, live: LiveMatch, expected_seq: int) -> MatchRecorder:
        """The recorder a move writes through, at ``expected_seq`` (call with ``live.lock``
        held): caught up first when the client is ahead of the cache; ConflictError when the
        match was reloaded meanwhile or the position is not the next one."""
        recorder = self.matches.writable(live)
        if expected_seq != recorder.next_seq:
            caught_up = self.matches.catch_up(live)
            if caught_up is not live:  # reloaded: its lock is not the one we hold
                raise ConflictError(
                    f"match {live.match_id} was reloaded; fetch the match and retry",
                    next_seq=caught_up.recorder.next_seq if caught_up.recorder else None)
        if expected_seq != recorder.next_seq:
            raise ConflictError(
                f"match {live.match_id}: expected_seq {expected_seq} is not the next "
                f"position (next_seq is {recorder.next_seq}); fetch the match and retry",
                next_seq=recorder.next_seq)
        return recorder

    def _move_fields(self, recorder: MatchRecorder, seat: int, fields: dict[str, Any],
                     client_ts: Any, sig: Any, ts: Any) -> int:
        """Complete a move's ``fields``: a signing seat's signature and clock (its action
        stored as sent, since it signed those bytes), else the action in the game's JSON
        form. Returns the fairdeal/1 signed ``ts`` to stamp it with, or -1 for the clock."""
        if recorder.replayer.seat_keys[seat] is not None:
            fields["sig"] = _seat_signature(sig)
            return self._signed_time(recorder, fields, client_ts, ts)
        if sig is not None:
            raise BadRequest("this seat registered no key: do not send 'sig'",
                             code="unexpected-signature")
        game = recorder.game
        try:
            fields["action"] = game.action_to_json(game.parse_action(fields["action"]))
        except RulesError as e:
            raise BadRequest(f"not an action of {game.title}: {e}",
                             code="invalid-action") from None
        return -1

    def _signed_time(self, recorder: MatchRecorder, fields: dict[str, Any], client_ts: Any,
                     ts: Any) -> int:
        """A signing seat's time: fairdeal/1 stamps the event with its signed ``ts`` (returned),
        fairdeal/2 keeps its ``client_ts`` as evidence in ``fields`` (and returns -1)."""
        if recorder.protocol == PROTOCOL_V1:
            return self._check_ts(ts)
        fields["client_ts"] = _client_ts(client_ts)
        return -1

    def _retried_move(self, live: LiveMatch, token: str | None, seat: int, action: Any,
                      action_id: str) -> SeatAnswer | None:
        """After a conflict: the stored move a retry of ``action_id`` repeats (``replayed``),
        None when no move has that id, ConflictError when another seat or another action
        used it."""
        stored = self.store.find_action(live.match_id, action_id)
        if stored is None:
            return None
        event = stored.to_json()
        if event.get("seat") != seat:
            raise ConflictError(f"action_id {action_id!r} was used by another seat",
                                code="action-id-taken") from None
        if not _same_action(live, event["action"], action):
            # a retry must repeat its move: the same id for another move is a client bug
            # (or a second device), and answering with the old move would hide it
            raise ConflictError(
                f"action_id {action_id!r} was already used at seq {event['seq']} for the "
                f"action {shown(event['action'])}, not {shown(action)}; a retry must "
                "send the same action, a new move needs a new action_id",
                code="action-id-mismatch") from None
        return SeatAnswer(event, self.receipts(live.match_id, event),
                          self.reading.view(live.match_id, token), replayed=True)

    def _stamp(self, recorder: MatchRecorder) -> int:
        """The server clock, never before the previous event."""
        return max(self.clock(), recorder.replayer.last_ts)

    def _check_ts(self, ts: Any) -> int:
        if not isinstance(ts, int) or isinstance(ts, bool):
            raise BadRequest("a seat that signs its moves sends the 'ts' it signed (integer ms)",
                             code="missing-ts")
        if abs(ts - self.clock()) > self.max_skew_ms:
            raise Refused(f"ts {ts} is more than {self.max_skew_ms} ms away from the server "
                          "clock", code="clock-skew")
        return ts


def _check_seed_fields(client_seed: Any, commitment: Any) -> None:
    """A seed or a commitment is 64 lowercase hex, and a request sends one of them."""
    for name, value in (("client_seed", client_seed), ("commitment", commitment)):
        if value is not None and not _is_hex64(value):
            raise BadRequest(f"{name} must be 64 lowercase hex characters"
                             + (", or null to decline" if name == "client_seed" else ""),
                             code="invalid-seed")
    if commitment is not None and client_seed is not None:
        raise BadRequest("send either a commitment (the first of two steps) or the seed, "
                         "not both", code="invalid-seed")


def _seed_event(recorder: MatchRecorder, seat: int, client_seed: Any,
                commitment: Any) -> tuple[str, dict[str, Any]]:
    """Which seed event the request is, and its fields, if the seating phase allows it now:
    a ``seed_commit``, the ``seed_reveal`` of a committed seat, or a one-step ``client_seed``
    (a seed, or None to decline)."""
    replayer = recorder.replayer
    v2 = recorder.protocol != PROTOCOL_V1
    if replayer.started or replayer.ended:
        raise Refused("the deal is fixed: every seat's seed is already in",
                      code="out-of-phase")
    committed = v2 and replayer.seat_seeds[seat].how == "committed"
    if commitment is not None:
        if not v2:
            raise BadRequest("this match was created under fairdeal/1, which has no "
                             "seed commitments: send the client_seed", code="invalid-seed")
        kind, fields = "seed_commit", {"commitment": commitment}
    elif committed:
        if client_seed is None:
            raise Refused(f"seat {seat} committed to a seed: reveal it (a committed "
                          "seed cannot be declined)", code="out-of-phase")
        if not replayer.revealing:
            raise Refused("reveals are accepted only once every seat has committed to "
                          "or declined its seed", code="out-of-phase")
        kind, fields = "seed_reveal", {"client_seed": client_seed}
    else:
        kind, fields = "client_seed", {"client_seed": client_seed}
    if replayer.seeded[seat] and kind != "seed_reveal":
        raise Refused(f"seat {seat} already fixed its seed", code="out-of-phase")
    return kind, fields


def _check_turn(recorder: MatchRecorder, seat: int) -> None:
    replayer = recorder.replayer
    if replayer.ended or replayer.outcome is not None:
        raise Refused("the match is over", code="match-over")
    if not replayer.started:
        raise Refused("play has not started: every seat must add or decline its client "
                      "seed first", code="out-of-phase")
    current = recorder.game.current_seat(recorder.state)
    if current != seat:
        raise Refused(f"it is not seat {seat}'s turn (seat {current} is to act)",
                      code="not-your-turn")


def _check_resignable(replayer: MatchReplayer) -> None:
    if replayer.ended or replayer.outcome is not None:
        raise Refused("the match is over", code="match-over")
    if not replayer.started:
        raise Refused("play has not started: nothing to resign yet", code="out-of-phase")


def _same_action(live: LiveMatch, stored: Any, sent: Any) -> bool:
    """Whether a retried move repeats the stored one: as sent (a signed move is stored as
    sent), or in the game's JSON form (an unsigned one is stored normalised)."""
    if stored == sent:
        return True
    recorder = live.recorder
    if recorder is None:
        return False
    try:
        game = recorder.game
        return bool(game.action_to_json(game.parse_action(sent)) == stored)
    except RulesError:
        return False


def _resignation(recorder: MatchRecorder, seat: int) -> dict[str, Any] | None:
    for event in reversed(recorder.events[-2:]):
        if event["type"] == "resign" and event["seat"] == seat:
            return event
    return None


def _seat_signature(sig: Any) -> str:
    if not isinstance(sig, str):
        raise BadRequest("this seat registered a key: send 'sig', its signature of the "
                         "event", code="missing-signature")
    return sig


def _is_hex64(value: Any) -> bool:
    return (isinstance(value, str) and len(value) == 64
            and all(c in "0123456789abcdef" for c in value))


def _position(expected_seq: Any) -> int:
    if not isinstance(expected_seq, int) or isinstance(expected_seq, bool):
        raise BadRequest("expected_seq must be an integer (the match's next_seq)",
                         code="invalid-expected-seq")
    return expected_seq


def _client_ts(client_ts: Any) -> int:
    """A signing seat's own clock (ms), recorded as evidence; it governs no deadline."""
    if not isinstance(client_ts, int) or isinstance(client_ts, bool) or not (
            0 <= client_ts < 2**53):
        raise BadRequest("a seat that signs sends 'client_ts', the time on its own clock in "
                         "integer ms, inside what it signs", code="missing-ts")
    return client_ts
