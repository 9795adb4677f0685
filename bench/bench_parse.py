"""Benchmark: parsing alone, the fast path (orjson, verifier/jsonfast.py) against the pure
parser, alternating in one process so both see the same load.

Reports CPU µs per bundle (median of the runs), each way and the ratio, for parse_json (the
parse alone, as request bodies and receipts are read), Bundle.from_bytes (the parse, unbounded,
and the shape checks) and verify_bytes (the whole verification).

    python bench/bench_parse.py [--matches 300] [--runs 5] [--game arcomage]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairdeal.verifier import jsonfast
from fairdeal.verifier.bundle import Bundle, parse_json
from fairdeal.verifier.verify import verify_bytes

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import corpus  # noqa: E402


def per_bundle(work: Callable[[bytes], Any], files: list[bytes], runs: int
               ) -> dict[bool, float]:
    """Median CPU µs per bundle of ``work`` with the fast path on (True) and off (False), the
    two taking turns on every file (the order swapped each run) so that both see the same
    moments of a shared machine."""
    spent: dict[bool, list[float]] = {True: [], False: []}
    for run in range(runs):
        total = {True: 0.0, False: 0.0}
        for data in files:
            for fast in (True, False) if run % 2 else (False, True):
                jsonfast.ENABLED = fast
                start = time.process_time()
                work(data)
                total[fast] += time.process_time() - start
        for fast, seconds in total.items():
            spent[fast].append(seconds * 1e6 / len(files))
    jsonfast.ENABLED = True
    return {fast: statistics.median(times) for fast, times in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--game", default="arcomage")
    args = parser.parse_args()
    if not jsonfast.ENABLED:
        sys.exit("orjson is not installed or FAIRDEAL_PURE is set: nothing to compare")
    files = corpus(args.game, args.matches)
    print(f"{args.game}: {len(files)} bundles, {sum(map(len, files)) / len(files):,.0f} bytes "
          f"each, {args.runs} runs taking turns")
    for data in files:  # warm: the first pass over a corpus costs more, whichever goes first
        verify_bytes(data)
    for name, work in (("parse_json", parse_json), ("Bundle.from_bytes", Bundle.from_bytes),
                       ("verify_bytes", verify_bytes)):
        median = per_bundle(work, files, args.runs)
        print(f"  {name}: pure {median[False]:.1f} µs, orjson {median[True]:.1f} µs per "
              f"bundle ({median[False] / median[True]:.2f}x)")

if __name__ == "__main__":
    main()
