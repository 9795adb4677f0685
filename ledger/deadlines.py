"""Deadlines: the timeouts and seat declines a match owes once its clock runs out, and the
background sweeper that writes them.

A timeout is always stamped with the deadline itself (the replayer's ``deadline_ms``: the
previous event's ts + turn limit, or the turn's start + the limit when the rules time the whole
turn), whether the sweeper writes it on time or a request finds it late: the record is the same
as if it had been written at the deadline. Seats that have not added their client seed by the
seating deadline are declined the same way.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from fairdeal.verifier.record import MatchRecorder
from fairdeal.verifier.replay import MatchReplayer

from .errors import ConflictError, LedgerError
from .live import LiveMatch, LiveMatches, log, seating_deadline
from .store import EventStore

__all__ = ["Deadlines"]


class Deadlines:
    """Writes overdue timeouts and seat declines, on request or from a background thread,
    through the live matches' one write path."""

    def __init__(self, matches: LiveMatches, store: EventStore,
                 clock: Callable[[], int]) -> None:
        self.matches = matches
        self.store = store
        self.clock = clock
        self._sweeper: threading.Thread | None = None
        self._sweep_interval: float | None = None
        self._stop = threading.Event()
        self._pid = os.getpid()
        #: more work each sweep does after the timeouts (the tournaments' results sync):
        #: each returns how many things it wrote
        self.hooks: list[Callable[[], int]] = []

    def fresh(self, match_id: str) -> LiveMatch:
        """The match, caught up with the database and with its overdue timeouts written."""
        live = self.matches.catch_up(self.matches.get(match_id))
        self.expire(live)
        return live

    def expire(self, live: LiveMatch) -> int:
        """Decline the missing seeds past the seating deadline, then write every timeout whose
        deadline has passed; each event is stamped with its deadline."""
        written = 0
        for _ in range(2):  # the seating deadline, then (fairdeal/2) the reveals'
            expired = self._expire_seating(live)
            if not expired:
                break
            written += expired
            live = self.matches.catch_up(self.matches.get(live.match_id))
        return written + self._expire_turns(live)

    def _expire_seating(self, live: LiveMatch) -> int:
        """Past the seating deadline, decline every seat that has not fixed its seed
        (fairdeal/2: ``seed_expired``; fairdeal/1: ``client_seed: null``); past the reveal
        deadline, forfeit every seat that committed and did not reveal (``seed_forfeit``: the
        match ends, it is never re-dealt). Each event is stamped with its deadline."""
        with live.lock:
            recorder = live.recorder
            if live.stale or recorder is None:
                return 0
            replayer = recorder.replayer
            if replayer.started or replayer.ended:  # every request of a match in play asks
                return 0
            deadline = seating_deadline(recorder, live)
            if deadline is None or self.clock() < deadline:
                return 0
            late, kind, fields = _late_seats(replayer)

            def build(rec: MatchRecorder) -> None:
                for seat in late:  # never before an event a request stamped just now
                    rec.append(kind, max(deadline, rec.replayer.last_ts), seat=seat, **fields)

            try:
                self.matches.write(live, recorder.next_seq, build)
            except ConflictError:
                pass  # another worker wrote them (or a seed landed in time): catch up
            return len(late)

    def _expire_turns(self, live: LiveMatch) -> int:
        """Write a timeout for every turn whose deadline has passed, one after the other."""
        written = 0
        recorder = live.recorder
        if recorder is None or recorder.replayer.turn_limit_ms is None:
            return written
        for _ in range(1_000):
            with live.lock:
                if live.stale:
                    return written
                replayer = recorder.replayer
                deadline = replayer.deadline_ms()
                if deadline is None or self.clock() < deadline:
                    return written
                seat = recorder.game.current_seat(recorder.state)
                def build(rec: MatchRecorder, ts: int = deadline, seat: int | None = seat) -> None:
                    rec.append("timeout", ts, seat=seat)

                try:
                    self.matches.write(live, recorder.next_seq, build)
                except ConflictError:
                    pass  # another worker wrote it (or a move landed in time): catch up
                written += 1
            live = self.matches.catch_up(self.matches.get(live.match_id))
            recorder = live.recorder
            assert recorder is not None
        return written

    def sweep(self) -> int:
        """Write the timeouts of every match whose deadline passed; return how many matches
        were looked at. The background sweeper calls this; so may a cron job."""
        count = 0
        for match_id in self.store.due(self.clock()):
            try:
                self.fresh(match_id)
            except LedgerError as e:
                log.warning("sweeper: match %s: %s", match_id, e.code)
            count += 1
        for hook in self.hooks:
            try:
                hook()
            except LedgerError as e:
                log.warning("sweeper: hook: %s", e.code)
        return count

    def after_fork(self) -> None:
        """Call in a child process (a gunicorn worker forked after ``--preload``): drop the
        parent's database connections and cache, and restart the sweeper if it ran."""
        if self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self.store.engine.dispose(close=False)
        self.matches.clear()
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
        """Stop the background sweeper (waits up to 5 s for its current sweep)."""
        self._sweep_interval = None
        self._stop.set()
        if self._sweeper is not None:
            self._sweeper.join(timeout=5)
            self._sweeper = None


def _late_seats(replayer: MatchReplayer) -> tuple[list[int], str, dict[str, Any]]:
    """The seats the seating deadline catches, the event each is given, and its fields: a
    forfeit for each seat that committed and did not reveal once commits closed, else a
    decline for each seat without a seed (fairdeal/1: a ``client_seed: null``)."""
    if replayer.commits_closed_ts is not None:
        late = [seat for seat, seed in enumerate(replayer.seat_seeds) if seed.how == "committed"]
        return late, "seed_forfeit", {}
    late = [seat for seat, seeded in enumerate(replayer.seeded) if not seeded]
    if replayer.seating_ms is None:
        return late, "client_seed", {"client_seed": None}
    return late, "seed_expired", {}
