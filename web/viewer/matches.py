"""A match loaded for viewing: its events, its verification report and the kept snapshots.

A ``LoadedMatch`` is built once per match (from a sealed bundle's bytes, or from a live match's
public events) and kept in an LRU, so a step page only looks a snapshot up: step N is never a
replay from zero. Pure: no Flask here, so every piece is testable on its own.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal.games import RulesError, get_rules
from fairdeal.verifier.bundle import Bundle, InvalidBundle
from fairdeal.verifier.protocol import PLAY_TYPES
from fairdeal.verifier.replay import Step, replay_steps
from fairdeal.verifier.report import CHECKS, OPTIONAL_CHECKS, Report, VerificationError
from fairdeal.verifier.verify import chain_hashes, verify_bytes

__all__ = ["LoadedMatch", "MatchCache", "StepInfo", "load_bundle", "load_live"]

#: drawings kept per match (a card duel's SVG is ~10 kB; the LRU holds 64 matches)
SVG_CACHE_SIZE = 128


@dataclass(frozen=True)
class StepInfo:
    """One step as the viewer shows it: the snapshot and one line about what happened."""

    number: int
    seq: int
    event: Mapping[str, Any] | None
    state: Any
    caption: str
    seat: int | None


@dataclass
class LoadedMatch:
    """Everything the match page needs, computed once.

    ``sealed`` matches carry a full verification report; ``live`` ones only know their public
    events, so nothing but the chain so far can be checked (the seed comes at the end).
    ``steps`` stops before the first failing event of a bundle that does not verify.
    """

    key: str
    match_id: str
    events: list[dict[str, Any]]
    report: Report
    live: bool = False
    bundle_bytes: bytes | None = None
    #: the public key the bundle is signed with (``ed25519:<hex>``), for the panel
    server_key: str | None = None
    game: Any = None
    steps: list[StepInfo] = field(default_factory=list)
    replay_error: str | None = None
    #: seq → step number, for the events that are steps
    step_of_seq: dict[int, int] = field(default_factory=dict)
    #: per-step rendered SVG, keyed by (step, perspective); small and bounded by the LRU
    svg_cache: dict[tuple[int, int | None], str] = field(default_factory=dict)
    #: rendered pieces of the page that do not depend on the step (the event list)
    html_cache: dict[tuple[str, ...], str] = field(default_factory=dict)
    #: a live match's move captions by seq, written by the ledger from public information
    captions: dict[int, str] = field(default_factory=dict)

    @property
    def genesis(self) -> Mapping[str, Any] | None:
        return self.events[0] if self.events else None

    @property
    def failure_seq(self) -> int | None:
        failure = self.report.failure
        return failure.seq if failure is not None else None

    @property
    def last_step(self) -> int:
        return len(self.steps) - 1

    def step(self, number: int) -> StepInfo | None:
        """Step ``number`` clamped to the steps there are (None when there are none)."""
        if not self.steps:
            return None
        return self.steps[max(0, min(number, len(self.steps) - 1))]

    def svg(self, number: int, seat: int | None) -> str:
        """The game's drawing of step ``number`` from ``seat``'s perspective (cached)."""
        key = (number, seat)
        cached = self.svg_cache.get(key)
        if cached is None:
            step = self.step(number)
            if step is None or self.game is None:
                return ""
            cached = str(self.game.render_svg(step.state, seat))
            if len(self.svg_cache) >= SVG_CACHE_SIZE:
                self.svg_cache.clear()
            self.svg_cache[key] = cached
        return cached


def _caption(game: Any, previous: Any, event: Mapping[str, Any] | None, number: int) -> str:
    if number == 0 or event is None:
        return "The deal"
    seat_names = getattr(game, "seat_names", ())
    seat = event.get("seat")
    who = f"Seat {seat_names[seat]}" if isinstance(seat, int) and seat < len(seat_names) else "?"
    kind = event["type"]
    if kind == "move" and previous is not None:
        try:
            return str(game.describe_action(previous, game.parse_action(event["action"])))
        except Exception as e:  # noqa: BLE001  a game's description must never break the page
            return f"{who} played {event.get('action')!r} ({type(e).__name__})"
    if kind == "timeout":
        return f"{who} let the turn run out: the server wrote a timeout"
    if kind == "resign":
        return f"{who} resigned"
    return str(kind)


def _step_infos(game: Any, steps: Sequence[Step]) -> list[StepInfo]:
    infos = []
    previous = None
    for step in steps:
        event = step.event if step.number else None
        seat = event.get("seat") if event is not None else None
        infos.append(StepInfo(step.number, step.seq, event, step.state,
                              _caption(game, previous, event, step.number), seat))
        previous = step.state
    return infos


def _error_words(error: VerificationError) -> str:
    where = f"event {error.seq} " if error.seq is not None else ""
    return f"{where}({error.check} check): {error.reason}"


def load_bundle(data: bytes, key: str | None = None,
                trusted_key: str | None = None) -> LoadedMatch:
    """Verify a bundle's bytes and keep every snapshot up to the first failing event.

    ``trusted_key`` pins the server key (``ed25519:<hex>``, already checked by the caller).
    Never raises for bad input: a malformed file gives a match with no events whose report
    names the problem.
    """
    if key is None:
        pin = (trusted_key or "").encode()
        key = "u-" + hashlib.sha256(data + b"\x00" + pin).hexdigest()[:32]
    report = verify_bytes(data, trusted_key)
    try:
        bundle = Bundle.from_bytes(data)
    except InvalidBundle:
        return LoadedMatch(key=key, match_id="", events=[], report=report, bundle_bytes=data)
    match = LoadedMatch(key=key, match_id=bundle.match_id, events=bundle.events, report=report,
                        bundle_bytes=data, server_key=bundle.server_key)
    failed_check = report.failure.check if report.failure else None
    if failed_check == "rules":
        match.replay_error = report.failure.reason if report.failure else None
        return match
    try:
        seed = bytes.fromhex(bundle.events[-1]["server_seed"])
        replayer, steps, error = replay_steps(bundle.events, seed)
    except VerificationError as e:
        match.replay_error = _error_words(e)
        return match
    match.game = replayer.game
    limit = match.failure_seq
    if limit is not None:
        # the stepper goes up to the failing event, not past it
        steps = [step for step in steps if step.seq < limit]
    if error is not None and match.replay_error is None:
        match.replay_error = _error_words(error)
    match.steps = _step_infos(replayer.game, steps)
    match.step_of_seq = {step.seq: step.number for step in match.steps}
    return match


def load_live(match_id: str, events: list[dict[str, Any]], key: str | None = None,
              captions: dict[int, str] | None = None) -> LoadedMatch:
    """A match still in play, from its public events: only the chain so far can be checked.
    ``captions`` are the ledger's public captions of its moves (by seq), if it has them."""
    report = Report()
    report.facts.update(match_id=match_id, events=len(events))
    if events:
        genesis = events[0]
        report.facts.update(
            game=genesis.get("game"), params=genesis.get("params"),
            seats=[seat.get("name") for seat in genesis.get("seats", [])],
            commitment=genesis.get("commitment"), server_seed=None, result=None,
            key_id=genesis.get("server_key_id"), key_pinned=False)
        report.passed("format", f"{len(events)} public events so far")
        try:
            hashes = chain_hashes(events)
            report.passed("chain", f"{len(events)} events so far, head {hashes[-1][:16]}…")
        except VerificationError as e:
            report.failed(e)
        except (KeyError, TypeError) as e:
            report.failed(VerificationError("chain", f"an event is missing a field: {e}"))
    match = LoadedMatch(key=key or f"live-{match_id}-{len(events)}", match_id=match_id,
                        events=events, report=report, live=True,
                        captions=dict(captions or {}))
    try:
        match.game = (get_rules(events[0]["game"], events[0].get("rules_version", ""))
                      if events else None)  # the rules the match is played under
    except RulesError:
        match.game = None
    plays = [event for event in events if event.get("type") in PLAY_TYPES]
    match.step_of_seq = {event["seq"]: index + 1 for index, event in enumerate(plays)}
    return match


def check_rows(match: LoadedMatch) -> list[dict[str, str]]:
    """Every check, in order, with its status and one-line meaning.

    A live match lists the checks it cannot run yet as "pending", never as passed; an
    optional check (the receipts) as "skipped", as the verifier does without its input.
    """
    done = {check.name: check for check in match.report.checks}
    rows = []
    for name, title in CHECKS:
        check = done.get(name)
        if check is not None:
            rows.append({"name": name, "status": check.status, "title": title,
                         "detail": check.detail})
        elif match.live and name in OPTIONAL_CHECKS:
            # the server has no player's receipts: this check is the player's to run
            rows.append({"name": name, "status": "skipped", "title": title,
                         "detail": "runs only with a player's receipts (fairdeal verify "
                                   "--receipts FILE)"})
        elif match.live:
            rows.append({"name": name, "status": "pending", "title": title,
                         "detail": "not yet verifiable: the seed is revealed at the end"})
        else:
            rows.append({"name": name, "status": "not-checked", "title": title, "detail": ""})
    return rows


class MatchCache:
    """A small thread-safe LRU of loaded matches, keyed by the caller's key.

    >>> cache = MatchCache(2)
    >>> cache.get("a", lambda: 1), cache.get("a", lambda: 2)
    (1, 1)
    """

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, build: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = build()
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def peek(self, key: str) -> Any:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
