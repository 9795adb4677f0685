"""Where the viewer's matches come from: the ledger's read API, through one small adapter.

The viewer needs only ``list_matches``, ``get_match``, ``public_events``, ``bundle_bytes``,
``import_bundle`` and (for live matches) ``spectator_view``. ``MemoryLedger`` offers the same
calls over bundles held in memory, so the pages, the tests and the benchmark run without a
database; the real ledger is found on ``app.extensions["fairdeal.ledger"]``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.keys import key_id, parse_public_key
from fairdeal.verifier.report import Report
from fairdeal.verifier.verify import verify_bytes

__all__ = ["LedgerReader", "MatchSummary", "MemoryLedger", "summarize"]


def _field(record: Any, *names: str, default: Any = None) -> Any:
    """The first of ``names`` found on a dict or an object (the ledger may return either)."""
    for name in names:
        if isinstance(record, Mapping):
            if name in record:
                return record[name]
        elif hasattr(record, name):
            return getattr(record, name)
    return default


@dataclass(frozen=True)
class MatchSummary:
    """One line of the home page's match list."""

    match_id: str
    game: str
    params: Mapping[str, Any]
    seats: tuple[str, ...]
    status: str  # "live" or "ended"
    result: Mapping[str, Any] | None
    events: int
    turn_limit_ms: int | None
    created_ms: int | None

    @property
    def live(self) -> bool:
        return self.status != "ended"


def summarize(record: Any) -> MatchSummary:
    """A ledger match record (dict or object, genesis-shaped or flat) as a MatchSummary."""
    genesis = _field(record, "genesis", default=None) or {}
    seats_raw = _field(record, "seats", default=None) or genesis.get("seats", [])
    seats = tuple(
        str(_field(seat, "name", default=seat)) if not isinstance(seat, str) else seat
        for seat in seats_raw
    )
    result = _field(record, "result", default=None)
    status = _field(record, "status", "state", default=None)
    ended = _field(record, "ended", "sealed", default=None)
    if status is None:
        status = "ended" if (ended or result) else "live"
    status = "ended" if str(status).lower() in ("ended", "sealed", "revealed", "over",
                                               "finished", "imported") else "live"
    return MatchSummary(
        match_id=str(_field(record, "match_id", "id", default=genesis.get("match_id", ""))),
        game=str(_field(record, "game", default=genesis.get("game", ""))),
        params=_field(record, "params", default=None) or genesis.get("params", {}),
        seats=seats,
        status=status,
        result=result,
        events=int(_field(record, "events", "event_count", "length", default=0) or 0)
        if not isinstance(_field(record, "events"), list) else len(_field(record, "events")),
        turn_limit_ms=_field(record, "turn_limit_ms", default=genesis.get("turn_limit_ms")),
        created_ms=_field(record, "created_ms", "ts", default=genesis.get("ts")),
    )


class MemoryLedger:
    """The ledger's read API over sealed bundles (and live event lists) held in memory.

    ``server_keys`` are the public keys (``ed25519:<hex>``) this viewer counts as its own: a
    bundle signed by another key is labelled "signed by another server", never "verified".

    >>> store = MemoryLedger()
    >>> store.list_matches(10, 0)
    []
    """

    def __init__(self, server_keys: Sequence[str] = ()) -> None:
        self.server_keys = tuple(server_keys)
        self._bundles: dict[str, bytes] = {}
        self._live: dict[str, list[dict[str, Any]]] = {}
        self._order: list[str] = []
        self._lock = threading.Lock()

    def import_bundle(self, data: bytes) -> tuple[str | None, Report]:
        """Store a sealed bundle that verifies: ``(match_id, report)``, ``match_id`` None when
        it does not verify (the real ledger's contract)."""
        report = verify_bytes(data)
        if not report.ok:
            return None, report
        match_id = Bundle.from_bytes(data).match_id
        with self._lock:
            if match_id not in self._bundles and match_id not in self._live:
                self._order.append(match_id)
            self._bundles[match_id] = bytes(data)
            self._live.pop(match_id, None)
        return match_id, report

    def add_live(self, events: list[dict[str, Any]]) -> str:
        """Hold a match in play as its public events so far (appending replaces them)."""
        match_id = str(events[0]["match_id"])
        with self._lock:
            if match_id not in self._live and match_id not in self._bundles:
                self._order.append(match_id)
            self._live[match_id] = [dict(event) for event in events]
        return match_id

    def _record(self, match_id: str) -> dict[str, Any] | None:
        if match_id in self._bundles:
            bundle = Bundle.from_bytes(self._bundles[match_id])
            events = bundle.events
            return {"match_id": match_id, "genesis": events[0], "status": "ended",
                    "result": events[-1]["result"], "events": len(events)}
        if match_id in self._live:
            events = self._live[match_id]
            return {"match_id": match_id, "genesis": events[0], "status": "live",
                    "result": None, "events": len(events)}
        return None

    def list_matches(self, limit: int = 20, offset: int = 0, game: str | None = None,
                     signer: str | None = None) -> list[dict[str, Any]]:
        """Newest first; ``signer`` ("this" or "other") as the ledger's: sealed under one of
        ``server_keys``, or under another key."""
        records = [self._record(match_id) for match_id in reversed(self._order)]
        chosen = [r for r in records if r and (game is None or r["genesis"]["game"] == game)]
        if signer is not None:
            chosen = [r for r in chosen if r["match_id"] in self._bundles
                      and (self._signer(r["match_id"]) in self.server_keys) == (signer == "this")]
        return chosen[offset:offset + limit]

    def _signer(self, match_id: str) -> str:
        return Bundle.from_bytes(self._bundles[match_id]).server_key

    def keys(self) -> list[dict[str, Any]]:
        """The keys this viewer counts as its own (as the ledger's ``keys``)."""
        return [{"key": key, "key_id": key_id(parse_public_key(key))}
                for key in self.server_keys]

    def get_match(self, match_id: str) -> dict[str, Any]:
        """The match's summary; LookupError when there is none (as the ledger's MatchNotFound)."""
        record = self._record(match_id)
        if record is None:
            raise LookupError(f"no match {match_id!r}")
        return record

    def public_events(self, match_id: str, after: int = -1) -> list[dict[str, Any]] | None:
        if match_id in self._bundles:
            events = Bundle.from_bytes(self._bundles[match_id]).events
        elif match_id in self._live:
            events = self._live[match_id]
        else:
            return None
        return [event for event in events if event["seq"] > after]

    def bundle_bytes(self, match_id: str) -> bytes | None:
        return self._bundles.get(match_id)

    def spectator_view(self, match_id: str) -> dict[str, Any] | None:
        """Public state only; a memory store has no seed for a live match, so no state."""
        record = self._record(match_id)
        if record is None:
            return None
        return {"match_id": match_id, "status": record["status"], "events": record["events"],
                "view": None}


class LedgerReader:
    """The ledger's read calls with one contract: None for "no such match", never an exception.

    Works over ``fairdeal.ledger.service.Ledger`` (which raises MatchNotFound, a LookupError)
    and over MemoryLedger alike.
    """

    def __init__(self, ledger: Any) -> None:
        self.ledger = ledger

    def get(self, match_id: str) -> dict[str, Any] | None:
        try:
            record = self.ledger.get_match(match_id)
        except LookupError:
            return None
        return dict(record) if record is not None else None

    def bundle(self, match_id: str) -> bytes | None:
        try:
            data = self.ledger.bundle_bytes(match_id)
        except LookupError:
            return None
        return bytes(data) if data is not None else None

    def events(self, match_id: str, page: int = 1_000) -> list[dict[str, Any]] | None:
        """Every public event so far (read page by page)."""
        events: list[dict[str, Any]] = []
        try:
            while True:
                batch = self.ledger.public_events(match_id, events[-1]["seq"] if events else -1)
                if not batch:
                    break
                events.extend(dict(event) for event in batch)
                if len(batch) < page:
                    break
        except LookupError:
            return None
        return events

    def spectator(self, match_id: str) -> dict[str, Any] | None:
        """The public view of a live match, or None when the ledger has none to give."""
        try:
            view = self.ledger.spectator_view(match_id)
        except Exception:  # noqa: BLE001  the view is a nicety: the events are what the page is built on
            return None
        return dict(view) if view is not None else None

    def spectator_svg(self, match_id: str) -> str | None:
        """The game's own drawing of a live match's public state, or None when the ledger has
        none to give (a memory store, a match not started)."""
        draw = getattr(self.ledger, "spectator_svg", None)
        if draw is None:
            return None
        try:
            drawing = draw(match_id)
        except Exception:  # noqa: BLE001  the drawing is a nicety, as the view
            return None
        return str(drawing) if drawing is not None else None

    def captions(self, match_id: str) -> dict[int, str]:
        """A live match's public move captions by seq (empty when the ledger has none)."""
        narrate = getattr(self.ledger, "public_captions", None)
        if narrate is None:
            return {}
        try:
            return {int(seq): str(text) for seq, text in narrate(match_id).items()}
        except Exception:  # noqa: BLE001  the raw action is shown instead
            return {}

    def matches(self, limit: int, offset: int, game: str | None,
                signer: str | None = None) -> list[Any]:
        if signer:
            return list(self.ledger.list_matches(limit, offset, game, signer=signer))
        if game:
            return list(self.ledger.list_matches(limit, offset, game))
        return list(self.ledger.list_matches(limit, offset))

    def server_keys(self) -> set[str]:
        """The public keys (``ed25519:<hex>``) this server seals matches with: a bundle is
        "verified" here only when it is signed by one of them."""
        keys = getattr(self.ledger, "keys", None)
        if keys is None:
            return set()
        return {str(item.get("key")) for item in keys() if isinstance(item, Mapping)}

    def store(self, data: bytes) -> str:
        """Import a bundle; return its id or raise ValueError with the ledger's reason."""
        try:
            outcome = self.ledger.import_bundle(data)
        except Exception as e:
            raise ValueError(str(e)) from e
        if isinstance(outcome, tuple):
            match_id, report = outcome
            if match_id is None:
                raise ValueError(f"it does not verify: {getattr(report, 'failure', '')}")
            return str(match_id)
        return str(outcome)
