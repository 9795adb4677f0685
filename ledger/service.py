"""The match lifecycle over the event store: create, seat keys, client seeds, moves, timeouts,
resignation, reveal and seal, export and import.

``Ledger`` is built in layers, each a module of its own:

- ``live.LiveMatches`` — the cache of live matches and the one write path (every event goes
  through the verifier's ``MatchRecorder`` before it is stored);
- ``deadlines.Deadlines`` — overdue timeouts and seat declines, and the background sweeper;
- ``reading.ReadSide`` — views, SVG boards, captions, public events, bundles and import;
- ``Ledger`` here — what the seats do: create, seat keys, client seeds, moves, resignation.

Time: every event is stamped with the server clock when it is accepted, and that clock alone
governs every deadline; a seat that signs its moves puts its own clock in them (``client_ts``)
as evidence only, so no seat can shorten the opponent's turn by backdating its move (matches
created under fairdeal/1 keep the old rule until they end). A timeout is always stamped with
the deadline itself (previous event's ts + turn limit), whether the background sweeper writes it
on time or a request finds it late: the record is the same as if it had been written at the
deadline.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from fairdeal.games import RulesError, get_game
from fairdeal.verifier.bundle import InvalidBundle, shown
from fairdeal.verifier.canonical import CanonicalError, canonical_bytes
from fairdeal.verifier.keys import InvalidKey, parse_public_key
from fairdeal.verifier.logleaf import genesis_leaf
from fairdeal.verifier.protocol import MIN_SEATING_MS, PROTOCOL, PROTOCOL_V1, event_hash
from fairdeal.verifier.receipts import receipt_json
from fairdeal.verifier.record import MatchRecorder, make_genesis

# the errors, the store and the layers stay importable from here, as before the split
from .errors import (  # noqa: F401
    BadRequest,
    ConflictError,
    Forbidden,
    LedgerError,
    MatchNotFound,
    NotEnded,
    Refused,
    Unauthorized,
)
from .live import CACHE_SIZE, MAX_SKEW_MS, _Live, _status, _token_hash, log, now_ms  # noqa: F401
from .names import check_name
from .ratelimits import SharedBuckets
from .reading import ReadSide
from .store import EventStore, StoredEvent
from .tlog import witness_keys

__all__ = ["DEFAULT_SEED_DEADLINE_MS", "DEFAULT_TURN_LIMIT_MS", "Ledger", "now_ms"]

DEFAULT_TURN_LIMIT_MS = 60_000
#: how long seats have to add or decline their seeds when the match has no turn limit
DEFAULT_SEED_DEADLINE_MS = 300_000


class Ledger(ReadSide):
    """Live matches on a database, and the sealed and imported ones.

    The viewer and the API call these methods (all return JSON-ready values):

    - ``list_matches(limit=50, offset=0, game=None, signer=None)`` → summaries: id, game,
      params, seats, status (``seating``/``playing``/``ended``/``imported``), result, verified
      (only under this server's own key), signed_by, created_ms, events.
    - ``get_match(match_id)`` → one summary plus commitment, turn limit, deadline, server key id.
    - ``public_events(match_id, after=-1)`` → the events after a position. Before the reveal no
      event carries anything secret (events never hold the server seed, hands or deck order).
    - ``bundle_bytes(match_id)`` → the sealed bundle's bytes, or None before the end.
    - ``import_bundle(data)`` → ``(match_id, report)``; ``match_id`` is None when it failed.
    - ``spectator_view(match_id)`` / ``seat_view(match_id, token)`` → what they may see.
    """

    @classmethod
    def open(cls, data_dir: Any, database_url: str | None = None, **kwargs: Any) -> Ledger:
        """The ledger of a data folder (its SQLite file and key), or of ``database_url``."""
        from .keys import load_or_create_server_key
        from .store import database_url as url_for
        from .store import open_engine

        engine = open_engine(url_for(data_dir, database_url))
        kwargs.setdefault("log_origin", os.environ.get("FAIRDEAL_LOG_ORIGIN") or None)
        kwargs.setdefault("log_witnesses", witness_keys(os.environ.get("FAIRDEAL_LOG_WITNESSES")))
        return cls(EventStore(engine), load_or_create_server_key(data_dir), **kwargs)

    def rate_buckets(self) -> SharedBuckets:
        """The shared rate-limit buckets beside this ledger's database (``EventStore``)."""
        return self.store.rate_buckets()

    # --- the lifecycle -------------------------------------------------------------------------

    def create_match(self, game: str, params: Mapping[str, Any] | None = None, *,
                     turn_limit_ms: int | None = DEFAULT_TURN_LIMIT_MS,
                     seats: Sequence[str] | None = None,
                     seed_deadline_ms: int | None = None,
                     protocol: str = PROTOCOL) -> dict[str, Any]:
        """Create a match: draw its server seed, publish the commitment, issue seat tokens.

        The tokens are returned here once and only their hashes are kept. A seat that has not
        fixed its seed ``seed_deadline_ms`` after the creation (default: the turn limit but at
        least MIN_SEATING_MS, or DEFAULT_SEED_DEADLINE_MS without one; never less than
        MIN_SEATING_MS, which every verifier checks) is declined by the server; a seat that
        committed and has not revealed as long after the last seed was fixed forfeits.
        ``protocol`` is always the current one for new matches; ``fairdeal/1`` exists so that
        the tests can recreate a live match of a database that predates version 2.
        """
        try:
            rules = get_game(game)
        except RulesError as e:
            raise BadRequest(str(e), code="unknown-game") from None
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise BadRequest("params must be an object", code="invalid-params")
        if turn_limit_ms is not None and (
                not isinstance(turn_limit_ms, int) or isinstance(turn_limit_ms, bool)
                or not 1 <= turn_limit_ms <= 86_400_000):
            raise BadRequest("turn_limit_ms must be an integer from 1 to 86400000, or null",
                             code="invalid-turn-limit")
        try:
            normal = rules.normalize_params(params)
        except RulesError as e:
            raise BadRequest(str(e), code="invalid-params") from None
        try:  # a game may fix the limit itself (e.g. 60 s for the whole turn)
            rules.turn_timer(normal, turn_limit_ms)
        except RulesError as e:
            raise BadRequest(str(e), code="invalid-turn-limit") from None
        if seed_deadline_ms is None:  # a short turn limit never makes a window below the minimum
            seed_deadline_ms = (max(turn_limit_ms, MIN_SEATING_MS) if turn_limit_ms
                                else DEFAULT_SEED_DEADLINE_MS)
        if (not isinstance(seed_deadline_ms, int) or isinstance(seed_deadline_ms, bool)
                or not MIN_SEATING_MS <= seed_deadline_ms <= 86_400_000):
            raise BadRequest(
                f"seed_deadline_ms must be an integer from {MIN_SEATING_MS} to 86400000: the "
                f"protocol's shortest seating window is {MIN_SEATING_MS} ms, so that every "
                "player has the time to commit to a seed", code="invalid-seed-deadline")
        if seats is None:
            seats = [f"player {name}" for name in rules.seat_names]
        if (not isinstance(seats, Sequence) or len(seats) != len(rules.seat_names)
                or not all(isinstance(name, str) and 0 < len(name) <= 80 for name in seats)):
            raise BadRequest(f"seats must be {len(rules.seat_names)} names of 1 to 80 "
                             "characters", code="invalid-seats")
        for index, name in enumerate(seats):
            check_name(name, f"the name of seat {rules.seat_names[index]}")
        server_seed = secrets.token_bytes(32)
        match_id = secrets.token_hex(8)
        created = self.clock()
        try:
            genesis = make_genesis(game_name=game, params=params, seats=list(seats),
                                   match_id=match_id, server_seed=server_seed,
                                   server_key_id=self.server_key.key_id,
                                   turn_limit_ms=turn_limit_ms, ts=created,
                                   seating_ms=seed_deadline_ms, protocol=protocol)
        except RulesError as e:
            raise BadRequest(str(e), code="invalid-params") from None
        except (InvalidBundle, CanonicalError) as e:
            raise BadRequest(str(e), code="invalid-params") from None
        tokens = [secrets.token_urlsafe(32) for _ in seats]
        row = {
            "id": match_id, "game": genesis["game"],
            "params": canonical_bytes(genesis["params"]).decode(),
            "turn_limit_ms": turn_limit_ms, "created_ms": created, "status": "seating",
            "seat_names": json.dumps(list(seats)),
            "token_hashes": json.dumps([_token_hash(token) for token in tokens]),
            "server_seed": server_seed.hex(), "commitment": genesis["commitment"],
            "next_seq": 1, "deadline_ms": created + seed_deadline_ms,
        }
        # the genesis joins the transparency log in the same transaction: a match created and
        # never finished stays visible
        self.store.create_match(row, [StoredEvent.of(genesis)], log_leaf=genesis_leaf(genesis))
        return {
            "id": match_id, "game": genesis["game"], "params": genesis["params"],
            "commitment": genesis["commitment"], "turn_limit_ms": turn_limit_ms,
            "seed_deadline_ms": created + seed_deadline_ms,
            "server_key_id": self.server_key.key_id, "next_seq": 1,
            "seats": [{"seat": index, "name": name, "token": token}
                      for index, (name, token) in enumerate(zip(seats, tokens, strict=True))],
        }

    def seat_of(self, match_id: str, token: str | None) -> int:
        """The seat a token opens; Unauthorized without one, Forbidden for a wrong one."""
        live = self._live(match_id)
        return self._seat(live, token)
    def register_key(self, match_id: str, token: str | None, public_key: Any) -> dict[str, Any]:
        """A seat registers its Ed25519 key; from then on it must sign its moves. Returns
        ``{"event", "view"}``: the stored event and the seat's view after it."""
        live = self._fresh(match_id)
        seat = self._seat(live, token)
        try:
            parse_public_key(public_key)
        except InvalidKey as e:
            raise BadRequest(str(e), code="invalid-key") from None
        with live.lock:
            recorder = self._writable(live)
            event = self._write(live, recorder.next_seq, lambda rec: rec.append(
                "seat_key", self._stamp(rec), seat=seat, public_key=public_key))[0]
            return self._answer(live, seat, event)

    def add_seed(self, match_id: str, token: str | None, client_seed: Any = None, *,
                 commitment: Any = None, expected_seq: Any = None,
                 sig: Any = None) -> dict[str, Any]:
        """A seat's seed, in one step or two (fairdeal/2, docs/SPEC.md §4).

        - ``commitment`` (64 hex): the first of two steps, a ``seed_commit``;
        - ``client_seed`` (64 hex) after a commitment: its ``seed_reveal``, accepted only once
          every seat has committed or declined, and only if it opens the commitment;
        - ``client_seed`` (64 hex) without one: commit and reveal at once (``client_seed``);
        - ``client_seed`` None (no commitment): decline.

        A seat that registered a key signs the event (``expected_seq`` and ``sig`` over
        ``seat_message`` of ``{seq, prev, type, seat, commitment | client_seed}``). Play starts,
        and the deal is fixed, once every seed is in. Returns ``{"event", "view", "receipt"}``.
        """
        live = self._fresh(match_id)
        seat = self._seat(live, token)
        for name, value in (("client_seed", client_seed), ("commitment", commitment)):
            if value is not None and not _is_hex64(value):
                raise BadRequest(f"{name} must be 64 lowercase hex characters"
                                 + (", or null to decline" if name == "client_seed" else ""),
                                 code="invalid-seed")
        if commitment is not None and client_seed is not None:
            raise BadRequest("send either a commitment (the first of two steps) or the seed, "
                             "not both", code="invalid-seed")
        with live.lock:
            recorder = self._writable(live)
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
            fields["seat"] = seat
            if v2 and replayer.seat_keys[seat] is not None:
                fields["sig"] = self._seat_signature(sig)
                if expected_seq is None:
                    raise BadRequest("this seat registered a key: send expected_seq (the "
                                     "position it signed)", code="invalid-expected-seq")
            elif sig is not None:
                raise BadRequest("this seat registered no key: do not send 'sig'",
                                 code="unexpected-signature")
            at = recorder.next_seq if expected_seq is None else _position(expected_seq)

            def build(rec: MatchRecorder) -> None:
                rec.accept(rec.draft(kind, self._stamp(rec), **fields))

            event = self._write(live, at, build)[0]
            return self._answer(live, seat, event)

    def _answer(self, live: _Live, seat: int, event: dict[str, Any],
                replayed: bool | None = None) -> dict[str, Any]:
        """A write's answer: the stored event, the server's signed receipt for it and the
        seat's view after it."""
        answer = {"event": event, "receipt": self.receipt(live.match_id, event),
                  "view": self._view_locked(live, seat)}
        if replayed is not None:
            answer["replayed"] = replayed
        return answer

    def receipt(self, match_id: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """The server's signed receipt for a stored event (verifier.receipts)."""
        # unchecked: the event is one the recorder accepted (its canonical form checked then)
        # or one read back from its stored canonical bytes
        return receipt_json(match_id, event["seq"], event_hash(event, checked=False),
                            event["ts"], self.server_key)

    @staticmethod
    def _seat_signature(sig: Any) -> str:
        if not isinstance(sig, str):
            raise BadRequest("this seat registered a key: send 'sig', its signature of the "
                             "event", code="missing-signature")
        return sig

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

    def play(self, match_id: str, token: str | None, action: Any, *, expected_seq: Any,
             action_id: Any, client_ts: Any = None, sig: Any = None,
             ts: Any = None) -> dict[str, Any]:
        """Record a seat's move after the rules accept it. Returns ``{"event", "replayed",
        "view"}``: ``view`` is the seat's ``view`` after the move (``next_seq``, ``head``,
        ``legal_actions``…), so a client needs no read between its moves.

        A retry with an ``action_id`` already recorded returns the stored event
        (``replayed: true``) and stores nothing. A seat with a registered key sends
        ``client_ts`` (its own clock, kept as evidence) and ``sig``: the Ed25519 signature of
        ``seat_message(event)`` for ``{seq: expected_seq, prev: head, type: "move", seat,
        action, action_id, client_ts}``. The event's ``ts`` is always the server's clock, which
        alone governs every deadline. (A fairdeal/1 match, created before version 2, still
        takes the seat's signed ``ts`` within ``max_skew_ms``.)
        """
        if not isinstance(expected_seq, int) or isinstance(expected_seq, bool):
            raise BadRequest("expected_seq must be an integer (the match's next_seq)",
                             code="invalid-expected-seq")
        if not isinstance(action_id, str) or not 0 < len(action_id) <= 100:
            raise BadRequest("action_id must be a string of 1 to 100 characters",
                             code="invalid-action-id")
        live = self._live(match_id)  # caught up below only when the client is ahead of it
        self._expire(live)
        seat = self._seat(live, token)
        try:
            with live.lock:
                recorder = self._writable(live)
                if expected_seq != recorder.next_seq:
                    caught_up = self._catch_up(live)
                    if caught_up is not live:  # reloaded: its lock is not the one we hold
                        raise ConflictError(
                            f"match {match_id} was reloaded; fetch the match and retry",
                            next_seq=caught_up.recorder.next_seq if caught_up.recorder else None)
                if expected_seq != recorder.next_seq:
                    raise ConflictError(
                        f"match {match_id}: expected_seq {expected_seq} is not the next "
                        f"position (next_seq is {recorder.next_seq}); fetch the match and retry",
                        next_seq=recorder.next_seq)
                game = recorder.game
                signed = recorder.replayer.seat_keys[seat] is not None
                stamp = -1
                if signed:
                    fields: dict[str, Any] = {"seat": seat, "action": action,
                                              "action_id": action_id,
                                              "sig": self._seat_signature(sig)}
                    if recorder.protocol == PROTOCOL_V1:
                        stamp = self._check_ts(ts)
                    else:
                        fields["client_ts"] = _client_ts(client_ts)
                else:
                    if sig is not None:
                        raise BadRequest("this seat registered no key: do not send 'sig'",
                                         code="unexpected-signature")
                    try:
                        normal = game.action_to_json(game.parse_action(action))
                    except RulesError as e:
                        raise BadRequest(f"not an action of {game.title}: {e}",
                                         code="invalid-action") from None
                    fields = {"seat": seat, "action": normal, "action_id": action_id}
                self._check_turn(recorder, seat)

                def build(rec: MatchRecorder) -> None:
                    when = stamp if stamp >= 0 else self._stamp(rec)
                    rec.accept(rec.draft("move", when, **fields))

                event = self._write(live, expected_seq, build)[0]
                return self._answer(live, seat, event, replayed=False)
        except ConflictError:
            stored = self.store.find_action(match_id, action_id)
            if stored is None:
                raise
            event = stored.to_json()
            if event.get("seat") != seat:
                raise ConflictError(f"action_id {action_id!r} was used by another seat",
                                    code="action-id-taken") from None
            if not self._same_action(live, event["action"], action):
                # a retry must repeat its move: the same id for another move is a client bug
                # (or a second device), and answering with the old move would hide it
                raise ConflictError(
                    f"action_id {action_id!r} was already used at seq {event['seq']} for the "
                    f"action {shown(event['action'])}, not {shown(action)}; a retry must "
                    "send the same action, a new move needs a new action_id",
                    code="action-id-mismatch") from None
            return {"event": event, "replayed": True,
                    "receipt": self.receipt(match_id, event),
                    "view": self.view(match_id, token)}

    @staticmethod
    def _same_action(live: _Live, stored: Any, sent: Any) -> bool:
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

    def _check_turn(self, recorder: MatchRecorder, seat: int) -> None:
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

    def resign(self, match_id: str, token: str | None, *, expected_seq: Any = None,
               client_ts: Any = None, sig: Any = None, ts: Any = None) -> dict[str, Any]:
        """A seat resigns; the match ends, is revealed and sealed (``{"event", "replayed",
        "receipt", "view"}`` as ``play``). A signing seat sends ``expected_seq``,
        ``client_ts`` and ``sig`` over ``{seq, prev, type: "resign", seat, client_ts}``."""
        live = self._fresh(match_id)
        seat = self._seat(live, token)
        with live.lock:
            recorder = self._writable(live)
            resigned = self._resignation(recorder, seat)
            if resigned is not None:
                return self._answer(live, seat, resigned, replayed=True)
            replayer = recorder.replayer
            if replayer.ended or replayer.outcome is not None:
                raise Refused("the match is over", code="match-over")
            if not replayer.started:
                raise Refused("play has not started: nothing to resign yet", code="out-of-phase")
            if expected_seq is None:
                expected_seq = recorder.next_seq
            if not isinstance(expected_seq, int) or isinstance(expected_seq, bool):
                raise BadRequest("expected_seq must be an integer", code="invalid-expected-seq")
            fields: dict[str, Any] = {"seat": seat}
            stamp = -1
            if replayer.seat_keys[seat] is not None:
                fields["sig"] = self._seat_signature(sig)
                if recorder.protocol == PROTOCOL_V1:
                    stamp = self._check_ts(ts)
                else:
                    fields["client_ts"] = _client_ts(client_ts)

            def build(rec: MatchRecorder) -> None:
                when = stamp if stamp >= 0 else self._stamp(rec)
                rec.accept(rec.draft("resign", when, **fields))

            event = self._write(live, expected_seq, build)[0]
            return self._answer(live, seat, event, replayed=False)

    @staticmethod
    def _resignation(recorder: MatchRecorder, seat: int) -> dict[str, Any] | None:
        for event in reversed(recorder.events[-2:]):
            if event["type"] == "resign" and event["seat"] == seat:
                return event
        return None


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
