"""Benchmark: parsing alone, the fast path (orjson, verifier/jsonfast.py) against the pure
parser, alternating in one process so both see the same load.

Reports CPU µs per bundle (median of the runs) for Bundle.from_bytes (what verification parses
with) and parse_json (request bodies, receipts), each way, and the ratio.

    python bench/bench_parse.py [--matches 300] [--runs 7] [--game arcomage]
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

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import corpus  # noqa: E402


def seconds(parse: Callable[[bytes], Any], files: list[bytes], fast: bool) -> float:
    jsonfast.ENABLED = fast
    start = time.process_time()  # CPU time: the machine is shared
    for data in files:
        parse(data)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--game", default="arcomage")
    args = parser.parse_args()
    if not jsonfast.ENABLED:
        sys.exit("orjson is not installed or FAIRDEAL_PURE is set: nothing to compare")
    files = corpus(args.game, args.matches)
    print(f"{args.game}: {len(files)} bundles, {sum(map(len, files)) / len(files):,.0f} bytes "
          f"each, {args.runs} runs alternating")
    for name, parse in (("Bundle.from_bytes", Bundle.from_bytes), ("parse_json", parse_json)):
        spent: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.runs):
            for fast in (False, True):
                spent[fast].append(seconds(parse, files, fast))
        pure, fast_ = (statistics.median(spent[f]) * 1e6 / len(files) for f in (False, True))
        print(f"  {name}: pure {pure:.1f} µs, orjson {fast_:.1f} µs per bundle "
              f"({pure / fast_:.2f}x)")
    jsonfast.ENABLED = True


if __name__ == "__main__":
    main()
