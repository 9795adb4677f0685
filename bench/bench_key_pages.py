"""Benchmark: a seat key's page on a big store, against the home page's listing as the anchor.

Fills a SQLite file (or the PostgreSQL schema of --database-url) with ``--matches`` match rows
and their seat-key rows written straight into the tables (the index is what is measured, not
the write path): each match has two seats with keys drawn from ``--keys`` keys, one of which
("the busy key") sits in a tenth of all matches. Then times, alternating in one process so all
see the same load (median of ``--runs``, ms):

- ``home``: the newest 20 matches (``EventStore.matches``, the home page's query): the anchor;
- ``key page``: a key's first page of 21 (``EventStore.key_matches``), the busy key's and a
  quiet one's, and a page deep in the busy key's list (by cursor);
- ``prefix``: resolving a 6-digit key-id prefix (``EventStore.key_ids``);
- ``record``: the busy key's record (every seat it held: it grows with the key's matches).

    python bench/bench_key_pages.py [--matches 200000] [--keys 2000] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from fairdeal.ledger.players import KeyPages
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.ledger.tables import MatchRow, SeatKeyRow

_MATCHES = MatchRow.__table__  # type: ignore[attr-defined]
_SEAT_KEYS = SeatKeyRow.__table__  # type: ignore[attr-defined]


def fill(store: EventStore, matches: int, keys: int, rng: random.Random) -> list[str]:
    """The rows; returns the key ids, the busy one first."""
    kids = [f"{rng.getrandbits(64):016x}" for _ in range(keys)]
    start = 1_800_000_000_000
    with store.engine.begin() as conn:
        for base in range(0, matches, 5000):
            rows, seats = [], []
            for n in range(base, min(matches, base + 5000)):
                match_id = f"{n:016x}"
                rows.append({"id": match_id, "game": "arcomage", "params": "{}",
                             "created_ms": start + n * 1000, "status": "ended",
                             "seat_names": json.dumps(["ann", "bob"]), "commitment": "0" * 64,
                             "token_hashes": "[]", "next_seq": 7, "verified": True,
                             "result": json.dumps({"winner": n % 2, "reason": "resigned"})})
                pair = (kids[0] if n % 10 == 0 else rng.choice(kids[1:]), rng.choice(kids[1:]))
                for seat, kid in enumerate(pair):
                    seats.append({"match_id": match_id, "seq": 1 + seat, "seat": seat,
                                  "key_id": kid, "public_key": "ed25519:" + "0" * 64,
                                  "created_ms": start + n * 1000, "signed": True})
            conn.execute(insert(_MATCHES), rows)
            conn.execute(insert(_SEAT_KEYS), seats)
    return kids


def timed(work: Callable[[], Any]) -> float:
    start = time.perf_counter()
    work()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--keys", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-keys-"))
    engine = open_engine(args.database_url or f"sqlite:///{folder / 'ledger.db'}")
    store = EventStore(engine)
    rng = random.Random(21)
    began = time.perf_counter()
    kids = fill(store, args.matches, args.keys, rng)
    print(f"filled {args.matches:,} matches, {args.keys:,} keys in "
          f"{time.perf_counter() - began:.1f} s")
    pages = KeyPages(store, lambda row: dict(row))
    busy, quiet = kids[0], kids[1]
    deep = store.key_matches(busy, 1, (1_800_000_000_000 + args.matches * 500, "f" * 16))
    cursor = (deep[0]["created_ms"], deep[0]["id"]) if deep else None
    cases: dict[str, Callable[[], Any]] = {
        "home (anchor)": lambda: store.matches(20, 0),
        "key page, busy key": lambda: store.key_matches(busy, 21),
        "key page, quiet key": lambda: store.key_matches(quiet, 21),
        "key page, busy key, halfway by cursor": lambda: store.key_matches(busy, 21, cursor),
        "prefix (6 digits)": lambda: store.key_ids(busy[:6], 6),
        "record, busy key": lambda: pages.record(busy),
    }
    spent: dict[str, list[float]] = {name: [] for name in cases}
    for run in range(args.runs):
        for name, work in (cases.items() if run % 2 else reversed(cases.items())):
            spent[name].append(timed(work))
    anchor = statistics.median(spent["home (anchor)"])
    busy_count = pages.record(busy)["total"]
    print(f"median of {args.runs} runs, ms (ratio to the home listing); the busy key played "
          f"{busy_count:,} matches")
    for name, values in spent.items():
        median = statistics.median(values)
        print(f"  {name:<40} {median:9.2f} ms  ({median / anchor:6.2f}x)")
    engine.dispose()


if __name__ == "__main__":
    main()
