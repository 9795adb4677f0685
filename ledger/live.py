"""The live-match cache and the one write path of the ledger.

Every event goes through ``MatchRecorder`` — the same ``MatchReplayer`` the verifier runs — before
it is stored, so what the ledger writes is what ``fairdeal verify`` checks. The recorder of each
live match is cached in memory and rebuilt from the database on a miss (``MatchRecorder.resume``):
a restarted process, or a second worker sharing the database, sees the same matches. A stale
cache is harmless: its next position is already taken in the database, the append conflicts,
the cache is caught up from the store and the caller gets a ConflictError with the fresh
``next_seq``.
A request that reads a match catches its cache up first, but reads the database only when
someone other than this process's store wrote since (``EventStore.outside_writes``): its own
writes are in the cache already.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdeal.verifier.bundle import Bundle, InvalidBundle
from fairdeal.verifier.canonical import CanonicalError
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logleaf import seal_leaf
from fairdeal.verifier.record import MatchRecorder
from fairdeal.verifier.replay import MatchReplayer
from fairdeal.verifier.report import VerificationError
from fairdeal.verifier.verify import verify_bundle

from .errors import BadRequest, ConflictError, Forbidden, MatchNotFound, Refused, Unauthorized
from .store import EventStore, StoredEvent
from .tlog import TransparencyLog

__all__ = [
    "CACHE_SIZE",
    "MAX_SKEW_MS",
    "LiveMatch",
    "LiveMatches",
    "Position",
    "match_status",
    "now_ms",
    "seating_deadline",
    "token_hash",
]

log = logging.getLogger("fairdeal.ledger")

#: a signed move's own timestamp may differ this much from the server clock
MAX_SKEW_MS = 5_000
CACHE_SIZE = 2_048

_CHECK_CODES = {
    "moves": "illegal-action",
    "timing": "out-of-phase",
    "timers": "turn-expired",
    "seat-signatures": "bad-signature",
    "seeds": "out-of-phase",
    "chain": "conflict",
    "rules": "rules",
    "deal": "rules",
    "result": "rules",
}


def now_ms() -> int:
    """The server clock in integer milliseconds."""
    return time.time_ns() // 1_000_000


def token_hash(token: str) -> str:
    """What the ledger keeps of a seat token: its tagged SHA-256 (the token itself never)."""
    return hashlib.sha256(b"fairdeal/seat-token\x00" + token.encode()).hexdigest()


def match_status(recorder: MatchRecorder) -> str:
    """``seating`` until every seed is in, ``playing``, then ``ended`` once revealed."""
    if recorder.events[-1]["type"] == "reveal":
        return "ended"
    replayer = recorder.replayer
    if not replayer.started:
        return "seating"
    return "playing" if replayer.outcome is None else "ending"


@dataclass(slots=True)
class Position:
    """What every seat's view of a live match shares at one position (``ReadSide.view_of``):
    a move is viewed twice there, by the mover in its answer and by the other seat."""

    next_seq: int
    head: str
    #: the view without the seat's own part (``seat``, ``state``, ``legal_actions``)
    view: dict[str, Any]
    #: the seat to act, and whether the match still goes on (legal actions are offered)
    current: int | None
    playing: bool


@dataclass
class LiveMatch:
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
    #: the view's part every seat shares, at the position it was made for
    position: Position | None = None
    #: the spectator's drawing and the next_seq it was drawn at
    drawing: tuple[int, str] | None = None
    #: a replayer of its own that lags the recorder, to caption each move in the state before
    #: it; and the captions so far by seq
    narrator: MatchReplayer | None = None
    captions: dict[int, str] = field(default_factory=dict)
    #: the match row's mutable columns as this process last wrote them (empty after a load)
    written: dict[str, Any] = field(default_factory=dict)
    #: the store's ``outside_writes`` count before the recorder last read every stored event
    #: (None: unknown, read next time)
    synced: int | None = None

    @property
    def seed_deadline_ms(self) -> int | None:
        """When the seats still without a seed are declined (``deadline_ms`` of the row while
        seating; None for matches stored before seating had a deadline)."""
        value = self.row.get("seed_deadline_ms") if self.row else None
        return value if isinstance(value, int) else None

    def seat(self, token: str | None) -> int:
        """The seat ``token`` opens; Unauthorized without one, Forbidden otherwise. Every
        stored hash is compared in constant time, so a wrong token's timing tells nothing."""
        if not token:
            raise Unauthorized("this needs a seat token: send 'Authorization: Bearer <token>'")
        digest = token_hash(token)
        for seat, expected in enumerate(self.token_hashes):
            if hmac.compare_digest(digest, expected):
                return seat
        raise Forbidden(f"that token is not a seat of match {self.match_id}")


def _stored(recorder: MatchRecorder, event: dict[str, Any]) -> StoredEvent:
    """The stored form of an event the recorder just accepted: the canonical bytes and the
    hash it made of them then (encoded again only if it no longer keeps them)."""
    encoded = recorder.encoded(event["seq"])
    if encoded is None:
        return StoredEvent.of(event, checked=False)
    body, digest = encoded
    return StoredEvent(event["seq"], event["type"], body.decode("utf-8"), digest,
                       event.get("action_id"))


def seating_deadline(recorder: MatchRecorder, live: LiveMatch) -> int | None:
    """While seats fix their seeds: when the server declines (or, once every seed is fixed,
    forfeits) the seats that are late. fairdeal/2 keeps both deadlines in the log itself."""
    replayer = recorder.replayer
    if replayer.seating_ms is None:
        return live.seed_deadline_ms
    if replayer.commits_closed_ts is not None:
        return replayer.reveal_deadline
    return replayer.seating_deadline


#: how many matches' write counts a process keeps for the live streams (``wait_for_write``)
WRITE_COUNTS = 10_000


class LiveMatches:
    """The cache of live matches and the one write path: every event any part of the ledger
    writes goes through ``write``, and so through the match's ``MatchRecorder``."""

    def __init__(self, store: EventStore, server_key: SigningKey,
                 transparency_log: TransparencyLog) -> None:
        self.store = store
        self.server_key = server_key
        #: where a seal's leaf joins the log in the seal's own transaction
        self.log = transparency_log
        self._cache: OrderedDict[str, LiveMatch] = OrderedDict()
        self._cache_lock = threading.Lock()
        #: how many writes this process made, by match (the most recently written
        #: ``WRITE_COUNTS`` matches); the live streams wait on it (``wait_for_write``)
        self._writes: OrderedDict[str, int] = OrderedDict()
        self._wrote = threading.Condition()

    # --- the cache ----------------------------------------------------------------------------

    def get(self, match_id: str) -> LiveMatch:
        """The cached match, loaded from the store on a miss; MatchNotFound when there is
        none. Not caught up: ``catch_up`` reads what other writers stored since."""
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

    def _load(self, match_id: str) -> LiveMatch:
        if not isinstance(match_id, str) or not 0 < len(match_id) <= 64:
            raise MatchNotFound(f"no match {match_id!r}")
        synced = self.store.outside_writes()  # counted before reading: a write after it shows
        row = self.store.match(match_id)
        if row is None:
            raise MatchNotFound(f"no match {match_id!r}")
        recorder = None
        if row["status"] != "imported":
            events = [stored.to_json() for stored in self.store.read(match_id)]
            recorder = MatchRecorder.resume(events, bytes.fromhex(row["server_seed"]))
        row = dict(row)
        row["seed_deadline_ms"] = row["deadline_ms"] if row["status"] == "seating" else None
        return LiveMatch(match_id, recorder, json.loads(row["token_hashes"]), row["status"],
                         row, synced=synced)

    def forget(self, match_id: str, live: LiveMatch | None = None) -> None:
        """Drop a cached match; threads still holding it see ``stale`` and reload."""
        with self._cache_lock:
            dropped = self._cache.pop(match_id, None)
        for entry in (dropped, live):
            if entry is not None:
                entry.stale = True

    def clear(self) -> None:
        """Drop every cached match (a forked worker must not trust its parent's)."""
        with self._cache_lock:
            self._cache.clear()

    def catch_up(self, live: LiveMatch) -> LiveMatch:
        """Feed the cached recorder whatever other writers stored since; reload if it fails.
        Nothing to read while nobody but this store wrote since the last catch-up."""
        if live.stale:
            live = self.get(live.match_id)
        recorder = live.recorder
        if recorder is None:
            return live
        seen = self.store.outside_writes()
        if seen is not None and seen == live.synced:
            return live
        newer = self.store.read(live.match_id, after=recorder.next_seq - 1)
        if not newer:
            live.synced = seen
            return live
        try:
            with live.lock:
                if live.stale:
                    return self.catch_up(live)
                for stored in newer:
                    if stored.seq == recorder.next_seq:
                        recorder.accept(stored.to_json())
                live.status = match_status(recorder)
                live.written.clear()  # another writer changed the row: set every column next
                live.synced = seen
        except (VerificationError, InvalidBundle):
            self.forget(live.match_id, live)
            return self.get(live.match_id)
        return live

    # --- writing -------------------------------------------------------------------------------

    def write(self, live: LiveMatch, expected_seq: int,
              build: Callable[[MatchRecorder], None]) -> list[dict[str, Any]]:
        """Let ``build`` add events to the recorder at ``expected_seq``; seal the match if it
        ended; store everything in one transaction. Any failure forgets the cached recorder;
        the recorder's refusals become the ledger's own errors (Refused, BadRequest), and a
        lost race a ConflictError carrying the fresh ``next_seq``."""
        recorder = self.writable(live)
        if recorder.next_seq != expected_seq:
            raise ConflictError(
                f"match {live.match_id}: expected_seq {expected_seq} is not the next position "
                f"(next_seq is {recorder.next_seq}); fetch the match and retry",
                next_seq=recorder.next_seq)
        try:
            new, update = self._record(live, recorder, expected_seq, build)
        except VerificationError as e:
            self.forget(live.match_id, live)
            raise Refused(e.reason, code=_CHECK_CODES.get(e.check, "refused")) from None
        except (InvalidBundle, CanonicalError) as e:
            self.forget(live.match_id, live)
            raise BadRequest(str(e), code="invalid-event") from None
        except ConflictError as e:
            self.forget(live.match_id, live)
            fresh = self.catch_up(self.get(live.match_id))
            next_seq = fresh.recorder.next_seq if fresh.recorder else None
            raise ConflictError(e.message + "; fetch the match and retry",
                                next_seq=next_seq) from e
        except BaseException:
            self.forget(live.match_id, live)
            raise
        live.status = update["status"]
        live.written.update(update)
        with self._wrote:
            self._writes[live.match_id] = self._writes.pop(live.match_id, 0) + 1
            while len(self._writes) > WRITE_COUNTS:
                # a forgotten count restarts at 0: its waiter wakes and reads once for nothing
                self._writes.popitem(last=False)
            self._wrote.notify_all()
        return new

    def writes(self, match_id: str) -> int:
        """How many writes this process has made to a match (a count for ``wait_for_write``)."""
        with self._wrote:
            return self._writes.get(match_id, 0)

    def wait_for_write(self, match_id: str, seen: int, timeout: float) -> int:
        """Wait until this process has written to the match after the count ``seen``
        (``writes``), at most ``timeout`` seconds; the count then. Writes to other matches
        wake no reader of this one; writes by other processes are not seen here at all: a
        reader polls the store too (the live streams do, every short interval)."""
        with self._wrote:
            self._wrote.wait_for(lambda: self._writes.get(match_id, 0) != seen, timeout)
            return self._writes.get(match_id, 0)

    def _record(self, live: LiveMatch, recorder: MatchRecorder, expected_seq: int,
                build: Callable[[MatchRecorder], None]
                ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """``write``'s work: build, seal an ended match, append; the new events and the row's
        columns as they now are."""
        build(recorder)
        new = recorder.events[expected_seq:]
        update = self._match_update(recorder, live)
        leaf = None
        if recorder.replayer.outcome is not None and new[-1]["type"] != "reveal":
            recorder.reveal(max(new[-1]["ts"], recorder.replayer.last_ts))
            bundle = recorder.seal(self.server_key)
            new = recorder.events[expected_seq:]
            update = self._match_update(recorder, live)
            update.update(self._seal_fields(bundle))
        stored = [_stored(recorder, event) for event in new]
        if stored[-1].type == "reveal":  # sealed: its head joins the log with it
            # the seal names the genesis leaf it closes: counting is per leaf, so a match
            # id dealt twice leaves its other genesis open (None only for a match the log
            # never held: the old seal format then, which a monitor reports)
            leaf = seal_leaf(live.match_id, stored[-1].seq, stored[-1].hash,
                             self.log.genesis_index(live.match_id))
        # set only what changed since this process last wrote the row: every column left
        # out is an index SQLite need not rewrite (status, deadline_ms), a page less to
        # write and sync per move
        changed = {column: value for column, value in update.items()
                   if column == "next_seq" or live.written.get(column, live) != value}
        self.store.append(live.match_id, expected_seq, stored, changed, log_leaf=leaf)
        return new, update

    def accepted_hash(self, match_id: str, event: Mapping[str, Any]) -> str | None:
        """The hash of ``event`` if it is an event the cached recorder of the match accepted
        lately (the very object: a write's answer signs a receipt for the event it just
        stored), None otherwise."""
        with self._cache_lock:
            live = self._cache.get(match_id)
        recorder = None if live is None else live.recorder
        seq = event.get("seq")
        if recorder is None or not isinstance(seq, int) or not 0 <= seq < recorder.next_seq \
                or recorder.events[seq] is not event:
            return None
        encoded = recorder.encoded(seq)
        return None if encoded is None else encoded[1]

    def writable(self, live: LiveMatch) -> MatchRecorder:
        """The recorder to write through; call with ``live.lock`` held. ConflictError when
        another thread found it broken, Refused for an imported (read-only) match."""
        if live.stale:
            raise ConflictError(f"match {live.match_id} changed meanwhile; fetch it and retry")
        if live.recorder is None:
            raise Refused(f"match {live.match_id} was imported: it is read-only",
                          code="read-only")
        return live.recorder

    def _match_update(self, recorder: MatchRecorder, live: LiveMatch) -> dict[str, Any]:
        replayer = recorder.replayer
        last = recorder.events[-1]
        status = match_status(recorder)
        deadline = None
        if status == "seating":  # the sweeper finds seatings by this deadline too
            deadline = seating_deadline(recorder, live)
        elif status == "playing":  # per action, or for the whole turn (the rules say which)
            deadline = replayer.deadline_ms()
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
