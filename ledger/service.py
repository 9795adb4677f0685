"""The match lifecycle over the event store: create, seat keys, client seeds, moves, timeouts,
resignation, reveal and seal, export and import.

Every event goes through ``MatchRecorder`` — the same ``MatchReplayer`` the verifier runs — before
it is stored, so what the ledger writes is what ``fairdeal verify`` checks. The recorder of each
live match is cached in memory and rebuilt from the database on a miss (``MatchRecorder.resume``):
a restarted process, or a second worker sharing the database, sees the same matches. A stale
cache is harmless: its next position is already taken in the database, the append conflicts,
the cache is caught up from the store and the caller gets a 409 with the fresh ``next_seq``.

Time: a move is stamped with the server clock when it is accepted, unless the seat signs its
moves (then the client stamps it and signs it; the stamp must lie within ``max_skew_ms`` of the
server clock). A timeout is always stamped with the deadline itself (previous event's ts +
turn limit), whether the background sweeper writes it on time or a request finds it late: the
record is the same as if it had been written at the deadline.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal.games import RulesError, get_game
from fairdeal.verifier.bundle import Bundle, InvalidBundle
from fairdeal.verifier.canonical import CanonicalError, canonical_bytes
from fairdeal.verifier.keys import InvalidKey, SigningKey, parse_public_key
from fairdeal.verifier.protocol import BUNDLE_FORMAT
from fairdeal.verifier.record import MatchRecorder, make_genesis
from fairdeal.verifier.replay import MatchReplayer
from fairdeal.verifier.report import Report, VerificationError
from fairdeal.verifier.verify import chain_hashes, verify_bundle, verify_bytes

from .errors import (
    BadRequest,
    ConflictError,
    Forbidden,
    LedgerError,
    MatchNotFound,
    NotEnded,
    Refused,
    Unauthorized,
)
from .store import EventStore, StoredEvent

__all__ = ["DEFAULT_SEED_DEADLINE_MS", "DEFAULT_TURN_LIMIT_MS", "Ledger", "now_ms"]

log = logging.getLogger("fairdeal.ledger")

DEFAULT_TURN_LIMIT_MS = 60_000
#: how long seats have to add or decline their seeds when the match has no turn limit
DEFAULT_SEED_DEADLINE_MS = 300_000
#: a signed move's own timestamp may differ this much from the server clock
MAX_SKEW_MS = 5_000
CACHE_SIZE = 2_048

_CHECK_CODES = {
    "moves": "illegal-action",
    "timing": "out-of-phase",
    "timers": "turn-expired",
    "move-signatures": "bad-signature",
    "chain": "conflict",
    "rules": "rules",
    "deal": "rules",
    "result": "rules",
}


def now_ms() -> int:
    """The server clock in integer milliseconds."""
    return time.time_ns() // 1_000_000


def _token_hash(token: str) -> str:
    return hashlib.sha256(b"fairdeal/seat-token\x00" + token.encode()).hexdigest()


def _status(recorder: MatchRecorder) -> str:
    """``seating`` until every seed is in, ``playing``, then ``ended`` once revealed."""
    if recorder.events[-1]["type"] == "reveal":
        return "ended"
    replayer = recorder.replayer
    if not replayer.started:
        return "seating"
    return "playing" if replayer.outcome is None else "ending"


@dataclass
class _Live:
    """A cached match: its recorder and what never changes about it."""

    match_id: str
    recorder: MatchRecorder | None  # None for an imported match (read-only)
    token_hashes: list[str]
    status: str
    #: the match row as loaded: what never changes (game, params, seats, commitment, ...)
    row: dict[str, Any] = field(default_factory=dict)
    #: dropped from the cache (a write through it failed): reload before using it
    stale: bool = False
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: the summary part of a view while seating or playing (built once from ``row``)
    summary: dict[str, Any] | None = None
    #: the spectator's drawing and the next_seq it was drawn at
    drawing: tuple[int, str] | None = None
    #: a replayer of its own that lags the recorder, to caption each move in the state before
    #: it; and the captions so far by seq
    narrator: MatchReplayer | None = None
    captions: dict[int, str] = field(default_factory=dict)

    @property
    def seed_deadline_ms(self) -> int | None:
        """When the seats still without a seed are declined (``deadline_ms`` of the row while
        seating; None for matches stored before seating had a deadline)."""
        value = self.row.get("seed_deadline_ms") if self.row else None
        return value if isinstance(value, int) else None


class Ledger:
    """Live matches on a database, and the sealed and imported ones.

    The viewer and the API call these methods (all return JSON-ready values):

    - ``list_matches(limit=50, offset=0, game=None)`` → summaries: id, game, params, seats,
      status (``seating``/``playing``/``ended``/``imported``), result, verified, created_ms,
      events.
    - ``get_match(match_id)`` → one summary plus commitment, turn limit, deadline, server key id.
    - ``public_events(match_id, after=-1)`` → the events after a position. Before the reveal no
      event carries anything secret (events never hold the server seed, hands or deck order).
    - ``bundle_bytes(match_id)`` → the sealed bundle's bytes, or None before the end.
    - ``import_bundle(data)`` → ``(match_id, report)``; ``match_id`` is None when it failed.
    - ``spectator_view(match_id)`` / ``seat_view(match_id, token)`` → what they may see.
    """

    def __init__(self, store: EventStore, server_key: SigningKey, *,
                 clock: Callable[[], int] = now_ms, max_skew_ms: int = MAX_SKEW_MS) -> None:
        self.store = store
        self.server_key = server_key
        self.clock = clock
        self.max_skew_ms = max_skew_ms
        self._cache: OrderedDict[str, _Live] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._sweep_interval: float | None = None
        self._stop = threading.Event()
        self._pid = os.getpid()

    @classmethod
    def open(cls, data_dir: Any, database_url: str | None = None, **kwargs: Any) -> Ledger:
        """The ledger of a data folder (its SQLite file and key), or of ``database_url``."""
        from .keys import load_or_create_server_key
        from .store import database_url as url_for
        from .store import open_engine

        engine = open_engine(url_for(data_dir, database_url))
        return cls(EventStore(engine), load_or_create_server_key(data_dir), **kwargs)

    # --- the cache ----------------------------------------------------------------------------

    def _live(self, match_id: str) -> _Live:
        with self._cache_lock:
            live = self._cache.get(match_id)
            if live is not None:
                self._cache.move_to_end(match_id)
                return live
        live = self._load(match_id)
        with self._cache_lock:
            live = self._cache.setdefault(match_id, live)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return live

    def _load(self, match_id: str) -> _Live:
        if not isinstance(match_id, str) or not 0 < len(match_id) <= 64:
            raise MatchNotFound(f"no match {match_id!r}")
        row = self.store.match(match_id)
        if row is None:
            raise MatchNotFound(f"no match {match_id!r}")
        recorder = None
        if row["status"] != "imported":
            events = [stored.to_json() for stored in self.store.read(match_id)]
            recorder = MatchRecorder.resume(events, bytes.fromhex(row["server_seed"]))
        row = dict(row)
        row["seed_deadline_ms"] = row["deadline_ms"] if row["status"] == "seating" else None
        return _Live(match_id, recorder, json.loads(row["token_hashes"]), row["status"], row)

    def _forget(self, match_id: str, live: _Live | None = None) -> None:
        """Drop a cached match; threads still holding it see ``stale`` and reload."""
        with self._cache_lock:
            dropped = self._cache.pop(match_id, None)
        for entry in (dropped, live):
            if entry is not None:
                entry.stale = True

    def _usable(self, live: _Live) -> None:
        """Call with ``live.lock`` held: refuse a recorder another thread found broken."""
        if live.stale:
            raise ConflictError(f"match {live.match_id} changed meanwhile; fetch it and retry")

    def _catch_up(self, live: _Live) -> _Live:
        """Feed the cached recorder whatever other writers stored since; reload if it fails."""
        if live.stale:
            live = self._live(live.match_id)
        recorder = live.recorder
        if recorder is None:
            return live
        newer = self.store.read(live.match_id, after=recorder.next_seq - 1)
        if not newer:
            return live
        try:
            with live.lock:
                if live.stale:
                    return self._catch_up(live)
                for stored in newer:
                    if stored.seq == recorder.next_seq:
                        recorder.accept(stored.to_json())
                live.status = _status(recorder)
        except (VerificationError, InvalidBundle):
            self._forget(live.match_id, live)
            return self._live(live.match_id)
        return live

    def _fresh(self, match_id: str) -> _Live:
        """The match, caught up with the database and with its overdue timeouts written."""
        live = self._catch_up(self._live(match_id))
        self._expire(live)
        return live

    # --- writing -------------------------------------------------------------------------------

    def _write(self, live: _Live, expected_seq: int,
               build: Callable[[MatchRecorder], None]) -> list[dict[str, Any]]:
        """Let ``build`` add events to the recorder at ``expected_seq``; seal the match if it
        ended; store everything in one transaction. Any failure forgets the cached recorder."""
        self._usable(live)
        recorder = self._writable(live)
        if recorder.next_seq != expected_seq:
            raise ConflictError(
                f"match {live.match_id}: expected_seq {expected_seq} is not the next position "
                f"(next_seq is {recorder.next_seq}); fetch the match and retry",
                next_seq=recorder.next_seq)
        try:
            build(recorder)
            new = recorder.events[expected_seq:]
            update = self._match_update(recorder, live)
            if recorder.replayer.outcome is not None and new[-1]["type"] != "reveal":
                recorder.reveal(max(new[-1]["ts"], recorder.replayer.last_ts))
                bundle = recorder.seal(self.server_key)
                new = recorder.events[expected_seq:]
                update = self._match_update(recorder, live)
                update.update(self._seal_fields(bundle))
            stored = [StoredEvent.of(event) for event in new]
            self.store.append(live.match_id, expected_seq, stored, update)
        except VerificationError as e:
            self._forget(live.match_id, live)
            raise Refused(e.reason, code=_CHECK_CODES.get(e.check, "refused")) from None
        except (InvalidBundle, CanonicalError) as e:
            self._forget(live.match_id, live)
            raise BadRequest(str(e), code="invalid-event") from None
        except ConflictError as e:
            self._forget(live.match_id, live)
            fresh = self._catch_up(self._live(live.match_id))
            next_seq = fresh.recorder.next_seq if fresh.recorder else None
            raise ConflictError(e.message + "; fetch the match and retry",
                                next_seq=next_seq) from e
        except BaseException:
            self._forget(live.match_id, live)
            raise
        live.status = update["status"]
        return new

    def _writable(self, live: _Live) -> MatchRecorder:
        self._usable(live)
        if live.recorder is None:
            raise Refused(f"match {live.match_id} was imported: it is read-only",
                          code="read-only")
        return live.recorder

    def _match_update(self, recorder: MatchRecorder, live: _Live) -> dict[str, Any]:
        replayer = recorder.replayer
        last = recorder.events[-1]
        status = _status(recorder)
        deadline = None
        if status == "seating":  # the sweeper finds seatings by this deadline too
            deadline = live.seed_deadline_ms
        elif status == "playing" and replayer.turn_limit_ms is not None:
            deadline = last["ts"] + replayer.turn_limit_ms
        update: dict[str, Any] = {"next_seq": recorder.next_seq, "status": status,
                                  "deadline_ms": deadline}
        if last["type"] == "reveal":
            update["result"] = json.dumps(last["result"], sort_keys=True)
        return update

    def _seal_fields(self, bundle: Mapping[str, Any]) -> dict[str, Any]:
        report = verify_bundle(Bundle.from_json(bundle), self.server_key.public_text)
        if not report.ok:  # a bug in the ledger or the rules: store it, but never claim it
            log.error("sealed match %s does not verify: %s", bundle["events"][0]["match_id"],
                      report.failure)
        return {"seal_key": bundle["signature"]["key"], "seal_sig": bundle["signature"]["sig"],
                "verified": report.ok}

    def _expire_seating(self, live: _Live) -> int:
        """Past the seating deadline, decline the seed of every seat that has not added one
        (``client_seed: null``, stamped with the deadline), so play starts."""
        with live.lock:
            recorder = live.recorder
            deadline = live.seed_deadline_ms
            if live.stale or recorder is None or deadline is None:
                return 0
            replayer = recorder.replayer
            if replayer.started or self.clock() < deadline:
                return 0
            missing = [seat for seat, seeded in enumerate(replayer.seeded) if not seeded]

            def build(rec: MatchRecorder) -> None:
                for seat in missing:  # never before an event a request stamped just now
                    rec.append("client_seed", max(deadline, rec.replayer.last_ts), seat=seat,
                               client_seed=None)

            try:
                self._write(live, recorder.next_seq, build)
            except ConflictError:
                pass  # another worker declined them (or a seed landed in time): catch up
            return len(missing)

    def _expire(self, live: _Live) -> int:
        """Decline the missing seeds past the seating deadline, then write every timeout whose
        deadline has passed; each event is stamped with its deadline."""
        written = self._expire_seating(live)
        if written:
            live = self._catch_up(self._live(live.match_id))
        recorder = live.recorder
        if recorder is None or recorder.replayer.turn_limit_ms is None:
            return written
        for _ in range(1_000):
            with live.lock:
                if live.stale:
                    return written
                replayer = recorder.replayer
                if not replayer.started or replayer.outcome is not None or replayer.ended:
                    return written
                deadline = replayer.last_ts + replayer.turn_limit_ms
                if self.clock() < deadline:
                    return written
                seat = recorder.game.current_seat(recorder.state)
                def build(rec: MatchRecorder, ts: int = deadline, seat: int | None = seat) -> None:
                    rec.append("timeout", ts, seat=seat)

                try:
                    self._write(live, recorder.next_seq, build)
                except ConflictError:
                    pass  # another worker wrote it (or a move landed in time): catch up
                written += 1
            live = self._catch_up(self._live(live.match_id))
            recorder = live.recorder
            assert recorder is not None
        return written

    def sweep(self) -> int:
        """Write the timeouts of every match whose deadline passed; return how many matches
        were looked at. The background sweeper calls this; so may a cron job."""
        count = 0
        for match_id in self.store.due(self.clock()):
            try:
                self._fresh(match_id)
            except LedgerError as e:
                log.warning("sweeper: match %s: %s", match_id, e.code)
            count += 1
        return count

    def after_fork(self) -> None:
        """Call in a child process (a gunicorn worker forked after ``--preload``): drop the
        parent's database connections and cache, and restart the sweeper if it ran."""
        if self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self.store.engine.dispose(close=False)
        with self._cache_lock:
            self._cache.clear()
        if self._sweep_interval is not None:
            self._sweeper = None
            self.start_sweeper(self._sweep_interval)

    def start_sweeper(self, interval: float = 0.25) -> None:
        """Run ``sweep`` every ``interval`` seconds in a daemon thread of this process."""
        self._sweep_interval = interval
        if self._sweeper is not None and self._sweeper.is_alive():
            return
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(interval):
                try:
                    self.sweep()
                except Exception as e:  # noqa: BLE001  keep sweeping; never log bodies or seeds
                    log.warning("sweeper: %s", type(e).__name__)

        self._sweeper = threading.Thread(target=loop, name="fairdeal-sweeper", daemon=True)
        self._sweeper.start()

    def stop_sweeper(self) -> None:
        self._sweep_interval = None
        self._stop.set()
        if self._sweeper is not None:
            self._sweeper.join(timeout=5)
            self._sweeper = None

    # --- the lifecycle -------------------------------------------------------------------------

    def create_match(self, game: str, params: Mapping[str, Any] | None = None, *,
                     turn_limit_ms: int | None = DEFAULT_TURN_LIMIT_MS,
                     seats: Sequence[str] | None = None,
                     seed_deadline_ms: int | None = None) -> dict[str, Any]:
        """Create a match: draw its server seed, publish the commitment, issue seat tokens.

        The tokens are returned here once and only their hashes are kept. A seat that has not
        added or declined its seed ``seed_deadline_ms`` after the creation (default: the turn
        limit, or DEFAULT_SEED_DEADLINE_MS without one) is declined by the server.
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
        if seed_deadline_ms is None:
            seed_deadline_ms = turn_limit_ms or DEFAULT_SEED_DEADLINE_MS
        if (not isinstance(seed_deadline_ms, int) or isinstance(seed_deadline_ms, bool)
                or not 1 <= seed_deadline_ms <= 86_400_000):
            raise BadRequest("seed_deadline_ms must be an integer from 1 to 86400000",
                             code="invalid-seed-deadline")
        if seats is None:
            seats = [f"player {name}" for name in rules.seat_names]
        if (not isinstance(seats, Sequence) or len(seats) != len(rules.seat_names)
                or not all(isinstance(name, str) and 0 < len(name) <= 80 for name in seats)):
            raise BadRequest(f"seats must be {len(rules.seat_names)} names of 1 to 80 "
                             "characters", code="invalid-seats")
        server_seed = secrets.token_bytes(32)
        match_id = secrets.token_hex(8)
        created = self.clock()
        try:
            genesis = make_genesis(game_name=game, params=params, seats=list(seats),
                                   match_id=match_id, server_seed=server_seed,
                                   server_key_id=self.server_key.key_id,
                                   turn_limit_ms=turn_limit_ms, ts=created)
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
        self.store.create_match(row, [StoredEvent.of(genesis)])
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

    def _seat(self, live: _Live, token: str | None) -> int:
        if not token:
            raise Unauthorized("this needs a seat token: send 'Authorization: Bearer <token>'")
        digest = _token_hash(token)
        for seat, expected in enumerate(live.token_hashes):
            if hmac.compare_digest(digest, expected):
                return seat
        raise Forbidden(f"that token is not a seat of match {live.match_id}")

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
            return {"event": event, "view": self._view_locked(live, seat)}

    def add_seed(self, match_id: str, token: str | None, client_seed: Any) -> dict[str, Any]:
        """A seat adds its client seed (64 hex) or declines (None). Play starts, and the deal is
        fixed, once every seat has done one or the other. Returns ``{"event", "view"}``."""
        live = self._fresh(match_id)
        seat = self._seat(live, token)
        if client_seed is not None and (not isinstance(client_seed, str) or len(client_seed) != 64
                                        or any(c not in "0123456789abcdef" for c in client_seed)):
            raise BadRequest("client_seed must be 64 lowercase hex characters, or null to "
                             "decline", code="invalid-seed")
        with live.lock:
            recorder = self._writable(live)
            replayer = recorder.replayer
            if replayer.started:
                raise Refused("the deal is fixed: every seat already added or declined its "
                              "seed", code="out-of-phase")
            if replayer.seeded[seat]:
                raise Refused(f"seat {seat} already added or declined its seed",
                              code="out-of-phase")
            event = self._write(live, recorder.next_seq, lambda rec: rec.append(
                "client_seed", self._stamp(rec), seat=seat, client_seed=client_seed))[0]
            return {"event": event, "view": self._view_locked(live, seat)}

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
             action_id: Any, ts: Any = None, sig: Any = None) -> dict[str, Any]:
        """Record a seat's move after the rules accept it. Returns ``{"event", "replayed",
        "view"}``: ``view`` is the seat's ``view`` after the move (``next_seq``, ``head``,
        ``legal_actions``…), so a client needs no read between its moves.

        A retry with an ``action_id`` already recorded returns the stored event
        (``replayed: true``) and stores nothing. A seat with a registered key sends ``ts`` and
        ``sig``: the Ed25519 signature of ``move_message(event)`` for the event
        ``{seq: expected_seq, prev: head, type: "move", ts, seat, action, action_id}``.
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
                if signed:
                    stamp = self._check_ts(ts)
                    if not isinstance(sig, str):
                        raise BadRequest("this seat registered a key: send 'sig', its signature "
                                         "of the move", code="missing-signature")
                    fields: dict[str, Any] = {"seat": seat, "action": action,
                                              "action_id": action_id, "sig": sig}
                else:
                    if sig is not None:
                        raise BadRequest("this seat registered no key: do not send 'sig'",
                                         code="unexpected-signature")
                    try:
                        normal = game.action_to_json(game.parse_action(action))
                    except RulesError as e:
                        raise BadRequest(f"not an action of {game.title}: {e}",
                                         code="invalid-action") from None
                    stamp = -1
                    fields = {"seat": seat, "action": normal, "action_id": action_id}
                self._check_turn(recorder, seat)

                def build(rec: MatchRecorder) -> None:
                    when = stamp if stamp >= 0 else self._stamp(rec)
                    rec.accept(rec.draft("move", when, **fields))

                event = self._write(live, expected_seq, build)[0]
                return {"event": event, "replayed": False,
                        "view": self._view_locked(live, seat)}
        except ConflictError:
            stored = self.store.find_action(match_id, action_id)
            if stored is None:
                raise
            event = stored.to_json()
            if event.get("seat") != seat:
                raise ConflictError(f"action_id {action_id!r} was used by another seat",
                                    code="action-id-taken") from None
            return {"event": event, "replayed": True, "view": self.view(match_id, token)}

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
               ts: Any = None, sig: Any = None) -> dict[str, Any]:
        """A seat resigns; the match ends, is revealed and sealed (``{"event", "replayed",
        "view"}`` as ``play``). A signing seat sends
        ``expected_seq``, ``ts`` and ``sig`` over ``{seq, prev, type: "resign", ts, seat}``."""
        live = self._fresh(match_id)
        seat = self._seat(live, token)
        with live.lock:
            recorder = self._writable(live)
            resigned = self._resignation(recorder, seat)
            if resigned is not None:
                return {"event": resigned, "replayed": True,
                        "view": self._view_locked(live, seat)}
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
                stamp = self._check_ts(ts)
                if not isinstance(sig, str):
                    raise BadRequest("this seat registered a key: send 'sig'",
                                     code="missing-signature")
                fields["sig"] = sig

            def build(rec: MatchRecorder) -> None:
                when = stamp if stamp >= 0 else self._stamp(rec)
                rec.accept(rec.draft("resign", when, **fields))

            event = self._write(live, expected_seq, build)[0]
            return {"event": event, "replayed": False, "view": self._view_locked(live, seat)}

    @staticmethod
    def _resignation(recorder: MatchRecorder, seat: int) -> dict[str, Any] | None:
        for event in reversed(recorder.events[-2:]):
            if event["type"] == "resign" and event["seat"] == seat:
                return event
        return None

    # --- reading -------------------------------------------------------------------------------

    def _summary(self, row: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "id": row["id"], "game": row["game"], "params": json.loads(row["params"]),
            "seats": json.loads(row["seat_names"]), "status": row["status"],
            "result": json.loads(row["result"]) if row["result"] else None,
            "verified": bool(row["verified"]), "imported": row["status"] == "imported",
            "created_ms": row["created_ms"], "events": row["next_seq"],
        }

    def list_matches(self, limit: int = 50, offset: int = 0,
                     game: str | None = None) -> list[dict[str, Any]]:
        """Match summaries, newest first (see the class docstring)."""
        limit = max(0, min(int(limit), 500))
        return [self._summary(row)
                for row in self.store.matches(limit=limit, offset=max(0, int(offset)), game=game)]

    def get_match(self, match_id: str) -> dict[str, Any]:
        """One match's summary, commitment and timing; MatchNotFound when there is none."""
        row = self.store.match(match_id) if isinstance(match_id, str) else None
        if row is None:
            raise MatchNotFound(f"no match {match_id!r}")
        return {**self._summary(row), "commitment": row["commitment"],
                "turn_limit_ms": row["turn_limit_ms"], "deadline_ms": row["deadline_ms"],
                "next_seq": row["next_seq"]}

    def view(self, match_id: str, token: str | None = None) -> dict[str, Any]:
        """The match as the caller may see it: a seat's own view with its legal actions, or the
        spectator view. Carries ``next_seq`` (the next ``expected_seq``) and ``head`` (the
        ``prev`` of the next event, for seats that sign)."""
        live = self._fresh(match_id)
        seat = None if token is None else self._seat(live, token)
        recorder = live.recorder
        if recorder is None:  # imported: everything is public after the reveal
            match = self.get_match(match_id)
            match.update(next_seq=match["events"], head=None, seat=seat, current_seat=None,
                         state=None, legal_actions=[])
            return match
        with live.lock:
            if live.stale:  # a failed write elsewhere dropped it: read again
                return self.view(match_id, token)
            return self._view_locked(live, seat)

    def _view_locked(self, live: _Live, seat: int | None) -> dict[str, Any]:
        """``view`` of a cached live match; call with ``live.lock`` held (the write paths call
        it right after their append, so a move's answer carries the seat's next view)."""
        recorder = live.recorder
        assert recorder is not None
        live.status = _status(recorder)
        if live.status in ("seating", "playing"):  # nothing else in the row changed
            if live.summary is None:
                live.summary = {**self._summary(live.row), "commitment": live.row["commitment"],
                                "turn_limit_ms": live.row["turn_limit_ms"]}
            match = {**live.summary, "events": recorder.next_seq}
        else:
            match = self.get_match(live.match_id)
        replayer = recorder.replayer
        game = recorder.game
        state = recorder.state
        current = None if state is None else game.current_seat(state)
        legal: list[Any] = []
        if seat is not None and current == seat and replayer.outcome is None:
            legal = [game.action_to_json(action) for action in game.legal_actions(state)]
        match.update(
            next_seq=recorder.next_seq, head=recorder.head, seat=seat,
            status=live.status, current_seat=current, started=replayer.started,
            seeded=list(replayer.seeded),
            seat_keys=[None if key is None else "ed25519:" + key.hex()
                       for key in replayer.seat_keys],
            deadline_ms=(replayer.last_ts + replayer.turn_limit_ms
                         if replayer.turn_limit_ms is not None and replayer.started
                         and not replayer.ended
                         else live.seed_deadline_ms if not replayer.started else None),
            state=None if state is None else game.view(state, seat),
            legal_actions=legal,
        )
        return match

    def board_svg(self, match_id: str, token: str | None = None) -> str | None:
        """The board now, drawn by the game itself: ``render_svg(state, None, spectator=True)``
        — public information only — without a token, the seat's own perspective with one.
        None before play starts, and for imported matches (their bundle draws every step)."""
        live = self._fresh(match_id)
        seat = None if token is None else self._seat(live, token)
        recorder = live.recorder
        if recorder is None:
            return None
        with live.lock:
            if live.stale:
                return self.board_svg(match_id, token)
            state = recorder.state
            if state is None:
                return None
            if seat is None and live.drawing is not None and live.drawing[0] == recorder.next_seq:
                return live.drawing[1]
            drawing = recorder.game.render_svg(state, seat, spectator=seat is None)
            if seat is None:  # the live page polls it: draw each position once
                live.drawing = (recorder.next_seq, drawing)
            return drawing

    def spectator_svg(self, match_id: str) -> str | None:
        """The board as a spectator may see it now (see ``board_svg``)."""
        return self.board_svg(match_id, None)

    def public_captions(self, match_id: str, after: int = -1) -> dict[int, str]:
        """One line for people about each move after position ``after``, by seq: the game's
        ``describe_action`` in the state before the move. It names only what the move itself
        makes public (the card played, the troop placed, how many troops are drawn — never
        which); tests/web/api/test_captions.py proves it for every game. It captions the
        events this process holds: call it after ``public_events``, which catches up."""
        live = self._live(match_id)  # no second catch-up read: public_events just did one
        recorder = live.recorder
        if recorder is None:
            return {}
        with live.lock:
            if live.stale:
                return self.public_captions(match_id, after)
            self._narrate(live, recorder)
            return {seq: text for seq, text in live.captions.items() if seq > after}

    def _narrate(self, live: _Live, recorder: MatchRecorder) -> None:
        """Feed the match's narrator up to the recorder, captioning each move on the way."""
        if live.narrator is None:
            live.narrator = MatchReplayer(recorder.events[0],
                                          bytes.fromhex(live.row["server_seed"]))
            live.captions = {}
        narrator = live.narrator
        game = recorder.game
        events = recorder.events
        for event in events[narrator.last_seq + 1:]:
            if event["type"] == "move" and narrator.state is not None:
                try:
                    action = game.parse_action(event["action"])
                    live.captions[event["seq"]] = game.describe_action(narrator.state, action)
                except (RulesError, KeyError, ValueError):
                    pass  # the event list shows the raw action instead
            try:
                narrator.feed(event)
            except VerificationError:  # the recorder checked it already: never expected
                log.error("narrator: match %s stops at event %s", live.match_id, event["seq"])
                return

    def spectator_view(self, match_id: str) -> dict[str, Any]:
        """What anyone may see of a match: public state only."""
        return self.view(match_id, None)

    def seat_view(self, match_id: str, token: str) -> dict[str, Any]:
        """What one seat may see: its own hand and legal actions, nothing of the opponent's."""
        return self.view(match_id, token)

    def public_events(self, match_id: str, after: int = -1,
                      limit: int = 1_000) -> list[dict[str, Any]]:
        """Events after position ``after``. Before the reveal they hold nothing secret."""
        live = self._fresh(match_id)
        events = [stored.to_json()
                  for stored in self.store.read(live.match_id, after=after, limit=limit)]
        for event in events:  # the reveal is the only event with a seed, and it is the last
            if "server_seed" in event and event["type"] != "reveal":
                raise RuntimeError("an event other than the reveal carries a seed")
        return events

    def bundle_bytes(self, match_id: str) -> bytes | None:
        """The sealed bundle (canonical JSON), or None while the match is not over."""
        row = self.store.match(match_id) if isinstance(match_id, str) else None
        if row is None:
            raise MatchNotFound(f"no match {match_id!r}")
        if row["seal_sig"] is None:
            self._fresh(match_id)  # an overdue timeout may end it right now
            row = self.store.match(match_id)
            assert row is not None
            if row["seal_sig"] is None:
                return None
        bodies = [stored.body.encode() for stored in self.store.read(match_id)]
        signature = canonical_bytes({"key": row["seal_key"], "sig": row["seal_sig"]})
        return (b'{"events":[' + b",".join(bodies) + b'],"format":'
                + json.dumps(BUNDLE_FORMAT).encode() + b',"signature":' + signature + b"}")

    def bundle(self, match_id: str) -> bytes:
        """The sealed bundle's bytes; NotEnded before the end."""
        data = self.bundle_bytes(match_id)
        if data is None:
            raise NotEnded(f"match {match_id} is not over: its bundle is sealed at the end, "
                           "after the reveal")
        return data

    def import_bundle(self, data: bytes) -> tuple[str | None, Report]:
        """Verify a bundle from elsewhere and store it read-only when it passes.

        Returns ``(match_id, report)``; ``match_id`` is None when verification failed.
        Importing the same bundle twice is harmless; a different match under an existing id
        is a ConflictError.
        """
        report = verify_bytes(data)
        if not report.ok:
            return None, report
        bundle = Bundle.from_bytes(data)
        hashes = chain_hashes(bundle.events)
        genesis, reveal = bundle.genesis, bundle.events[-1]
        if self._holds(bundle.match_id, hashes):
            return bundle.match_id, report
        row = {
            "id": bundle.match_id, "game": genesis["game"],
            "params": canonical_bytes(genesis["params"]).decode(),
            "turn_limit_ms": genesis["turn_limit_ms"], "created_ms": genesis["ts"],
            "status": "imported",
            "seat_names": json.dumps([seat["name"] for seat in genesis["seats"]]),
            "token_hashes": "[]", "server_seed": None, "commitment": genesis["commitment"],
            "next_seq": len(bundle.events), "deadline_ms": None,
            "result": json.dumps(reveal["result"], sort_keys=True),
            "seal_key": bundle.server_key, "seal_sig": bundle.signature, "verified": True,
        }
        stored = [StoredEvent(event["seq"], event["type"], canonical_bytes(event).decode(),
                              digest, None)
                  for event, digest in zip(bundle.events, hashes, strict=True)]
        try:
            self.store.create_match(row, stored)
        except ConflictError:
            if not self._holds(bundle.match_id, hashes):
                raise
        return bundle.match_id, report

    def _holds(self, match_id: str, hashes: Sequence[str]) -> bool:
        """True when this very match (same head) is stored; ConflictError when another is."""
        if self.store.match(match_id) is None:
            return False
        tail = self.store.read(match_id, after=len(hashes) - 2, limit=2)
        if len(tail) != 1 or tail[0].hash != hashes[-1]:
            raise ConflictError(f"another match is stored under id {match_id!r}",
                                code="match-exists")
        return True

    def keys(self) -> list[dict[str, Any]]:
        """The server's public keys (the one that signs new matches first)."""
        return [{"key": self.server_key.public_text, "key_id": self.server_key.key_id,
                 "use": "seals matches created here"}]
