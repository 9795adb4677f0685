"""The audit's map and merge: every bundle is verified, then counted, in chunks that run here,
in worker processes, or on a Dask cluster; only merged counts come back.

Memory stays bounded whatever the number of bundles: the input is consumed lazily, a chunk at a
time, and at most a few chunks per worker are in flight at once.

>>> tally = audit_bundles((str(p), p.read_bytes()) for p in paths)  # doctest: +SKIP
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from typing import Any

from fairdeal.games import RulesError, get_game
from fairdeal.verifier.bundle import Bundle, InvalidBundle
from fairdeal.verifier.keys import InvalidKey, key_id, parse_public_key
from fairdeal.verifier.verify import verify_replayed

from .facts import match_facts, seat_players
from .tally import Tally

__all__ = ["CHUNK", "Filters", "Item", "add_ledger_counts", "audit_bundles", "examine",
           "tally_chunk"]

#: one bundle to audit: where it came from (a file, "match <id>") and its bytes
Item = tuple[str, bytes]
_KEY_ID = re.compile(r"[0-9a-f]{16}\Z")
#: bundles per task: large enough that a task's overhead is small against its work
CHUNK = 250
#: chunks in flight per worker: enough to keep it busy, few enough to bound memory
IN_FLIGHT = 3


@dataclass(frozen=True)
class Filters:
    """Which matches the audit counts. Every field left None admits everything.

    ``board`` is a game's board or battlefield (its ``board`` or ``battlefield`` parameter), by
    id or name (any case);
    ``since`` and ``until`` bound the genesis time (ms since the epoch, ``until`` exclusive);
    ``player`` is a seat's name, exactly; ``seat_key`` a seat key's id (16 hex digits,
    ``verifier.keys.key_id``): the matches that key signed a seat of.

    ``signers`` are the public keys (``ed25519:<hex>``) whose matches the audit counts as its
    own: a bundle sealed under any other key is counted apart, by key (``Tally.apart``), and
    never mixed in — anyone can seal a bundle under a key of their own and have it stored by a
    ledger's import (docs/audit.md, "Whose matches"). None pools every key (the library's
    default for bundles the caller already trusts). ``each_key``: the bundles of those other
    keys are verified and tallied too, each key on its own (``Tally.by_key``)."""

    game: str | None = None
    board: str | None = None
    deck: str | None = None
    since: int | None = None
    until: int | None = None
    player: str | None = None
    seat_key: str | None = None
    signers: frozenset[str] | None = None
    each_key: bool = False

    def check(self) -> None:
        """Raise ValueError naming a filter that can never match."""
        if self.game is not None:
            try:
                get_game(self.game)
            except RulesError as e:
                raise ValueError(str(e)) from None
        if self.deck is not None and self.deck.casefold() not in ("normal", "infinite"):
            raise ValueError(f"deck {self.deck!r} is not one of: normal, infinite")
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise ValueError("the date range is empty: the start is not before the end")
        if self.seat_key is not None and not _KEY_ID.match(self.seat_key):
            raise ValueError(f"a seat key id is 16 lowercase hex digits, got {self.seat_key!r}")

    def accepts(self, genesis: dict[str, Any]) -> bool:
        """Whether a match with this genesis is counted."""
        if self.game is not None and genesis["game"] != self.game:
            return False
        params = genesis["params"]
        if self.board is not None and not _board_matches(genesis["game"], params, self.board):
            return False
        if self.deck is not None and params.get("deck") != self.deck.casefold():
            return False
        ts = genesis["ts"]
        if self.since is not None and ts < self.since:
            return False
        if self.until is not None and ts >= self.until:
            return False
        return self.player is None or self.player in seat_players(genesis)

    def accepts_keys(self, events: Sequence[dict[str, Any]]) -> bool:
        """Whether the match's seat keys pass ``seat_key`` (read off its ``seat_key``
        events, which come before any move)."""
        if self.seat_key is None:
            return True
        for event in events:
            public_key = event.get("public_key")
            # a key that is not text is no key at all, as parse_public_key would say too
            if event.get("type") != "seat_key" or not isinstance(public_key, str):
                continue
            try:
                if key_id(parse_public_key(public_key)) == self.seat_key:
                    return True
            except InvalidKey:
                continue
        return False

    def words(self) -> str:
        """The filters in one line for the report ("" when there are none)."""
        parts = [f"{name} {value}" for name, value in
                 (("game", self.game), ("board", self.board), ("deck", self.deck),
                  ("player", self.player), ("seat key", self.seat_key))
                 if value is not None]
        if self.since is not None:
            parts.append(f"from {_date(self.since)}")
        if self.until is not None:
            parts.append(f"until {_date(self.until)}")
        return ", ".join(parts)


def _date(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _board_matches(game_name: str, params: dict[str, Any], wanted: str) -> bool:
    key = "battlefield" if "battlefield" in params else "board" if "board" in params else None
    if key is None:
        return False
    try:
        normal = get_game(game_name).normalize_params({key: wanted})
    except RulesError:
        return False
    return bool(normal.get(key) == params[key])


def examine(tally: Tally, where: str, data: bytes, filters: Filters) -> None:
    """Verify one bundle and count it, or list it as failing (the map step, one match)."""
    try:
        bundle = Bundle.from_bytes(data)
    except InvalidBundle as e:
        tally.fail(where, f"format check failed: {e}")
        return
    if not filters.accepts(bundle.genesis) or not filters.accepts_keys(bundle.events):
        tally.skipped += 1
        return
    key = bundle.server_key
    if filters.signers is not None and key not in filters.signers:
        # not this audit's signer: counted apart, so a stranger's bundles never steer its tests
        tally.apart[key] = tally.apart.get(key, 0) + 1
        if not filters.each_key:
            return
        tally = tally.by_key.setdefault(key, Tally())
    report, replayer = verify_replayed(bundle)
    if report.failure is not None:
        tally.fail(where, str(report.failure))
        return
    facts = match_facts(bundle, replayer)
    if facts is None:
        tally.undealt += 1
        return
    tally.add(facts, bundle.genesis["ts"])


def add_ledger_counts(tally: Tally, counts: tuple[dict[str, tuple[int, int]],
                                                 dict[str, tuple[int, int]]],
                      filters: Filters) -> None:
    """Add a ledger's matches created and never sealed (``Ledger.player_counts``: by name, by
    seat key) for the players ``filters`` admits: everyone, one name, or one seat key."""
    by_name, by_key = counts
    if filters.seat_key is None:
        for name, (created, unsealed) in by_name.items():
            if filters.player in (None, name):
                tally.count_unsealed(name, created, unsealed)
    if filters.player is None:
        for kid, (created, unsealed) in by_key.items():
            if filters.seat_key in (None, kid):
                tally.count_unsealed_key(kid, created, unsealed)


def tally_chunk(items: Sequence[Item], filters: Filters) -> Tally:
    """The counts of one chunk of bundles: a pure function, safe to run anywhere."""
    tally = Tally()
    for where, data in items:
        examine(tally, where, data, filters)
    return tally


def _sized(items: Sequence[Item], filters: Filters) -> tuple[Tally, int]:
    return tally_chunk(items, filters), len(items)


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


Progress = Callable[[int], None]


def audit_bundles(items: Iterable[Item], filters: Filters | None = None, *, workers: int = 1,
                  dask_address: str | None = None, chunk: int = CHUNK,
                  progress: Progress | None = None) -> Tally:
    """Verify and count every bundle; return the merged counts.

    ``workers`` > 1 spreads the chunks over that many processes; ``dask_address`` sends them
    to the Dask scheduler there instead. ``progress`` is told how many bundles each merged
    chunk held."""
    filters = filters or Filters()
    filters.check()
    if dask_address is not None:
        return _on_dask(items, filters, dask_address, chunk, progress)
    if workers > 1:
        return _on_processes(items, filters, workers, chunk, progress)
    total = Tally()
    for part in _chunks(items, chunk):
        total.merge(tally_chunk(part, filters))
        if progress is not None:
            progress(len(part))
    return total


def _on_processes(items: Iterable[Item], filters: Filters, workers: int, chunk: int,
                  progress: Progress | None) -> Tally:
    import multiprocessing

    total = Tally()
    # fork shares the loaded rules with the workers at no cost; elsewhere spawn re-imports
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with multiprocessing.get_context(method).Pool(workers) as pool:
        pending: deque[tuple[Any, int]] = deque()
        for part in _chunks(items, chunk):
            pending.append((pool.apply_async(tally_chunk, (part, filters)), len(part)))
            while len(pending) >= IN_FLIGHT * workers:
                _collect(total, pending, progress)
        while pending:
            _collect(total, pending, progress)
    return total


def _collect(total: Tally, pending: deque[tuple[Any, int]], progress: Progress | None) -> None:
    result, size = pending.popleft()
    total.merge(result.get())
    if progress is not None:
        progress(size)


def _on_dask(items: Iterable[Item], filters: Filters, address: str, chunk: int,
             progress: Progress | None) -> Tally:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ValueError("--dask needs Dask: pip install 'fairdeal[dask]'") from None
    total = Tally()
    # a scheduler that does not answer within 10 s is reported, not waited for
    # (where Dask is not installed, as when pip builds the compiled audit modules, mypy sees
    # its names as Any: the ignores are then unused, and allowed to be)
    with Client(address, set_as_default=False,  # type: ignore[no-untyped-call, unused-ignore]
                timeout="10s") as client:
        window = IN_FLIGHT * max(1, sum(client.nthreads().values()))
        done: Any = None  # made with the first future: it then knows the client
        in_flight = 0

        def take_one() -> None:
            future = next(done)
            part, size = future.result()
            total.merge(part)
            if progress is not None:
                progress(size)

        for part in _chunks(items, chunk):
            future = client.submit(_sized, part, filters, pure=False)
            if done is None:
                done = as_completed(  # type: ignore[no-untyped-call, unused-ignore]
                    [future], loop=client.loop)
            else:
                done.add(future)
            in_flight += 1
            if in_flight >= window:
                take_one()
                in_flight -= 1
        for _ in range(in_flight):
            take_one()
    return total
