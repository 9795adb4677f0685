"""Benchmark: verification on the pure and the compiled build, each against python-chess.

Each round runs both builds, one subprocess each (``FAIRDEAL_PURE=1`` for the pure one), in
turn, so both see the same load: a process simulates the two-tower matches bench_audit.py
uses (random against greedy), then times, in CPU seconds, verifying all of them and
python-chess replaying 200 random PGN games with legality, alternately, ``--runs`` times.
It prints each build's events/s ÷ plies/s ratio (the median of its runs) per round, then the
medians over the rounds and the compiled build's speed-up. The machine is shared: compare
the ratios, which carry their own anchor, not the raw rates.

    python bench/bench_compiled.py [--matches 200] [--runs 3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent

#: one build's measurement: JSON with the ratios and the rates
MEASURE = """
import json, statistics, sys
sys.path.insert(0, sys.argv[1])
from bench_audit import alternating_rates, chess_games, chess_replay, corpus
from fairdeal.games.compiled import build_name

matches, runs = int(sys.argv[2]), int(sys.argv[3])
files = [data for _, data in corpus(matches)]
events = sum(len(json.loads(data)["events"]) for data in files)
games = chess_games(200)
plies = chess_replay(games)
ours, theirs, ratios = alternating_rates(files, events, games, plies, runs)
print(json.dumps({"build": build_name(), "ratio": statistics.median(ratios),
                  "events_per_s": statistics.median(ours),
                  "plies_per_s": statistics.median(theirs), "events": events}))
"""


def measure(pure: bool, matches: int, runs: int) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != "FAIRDEAL_PURE"}
    if pure:
        env["FAIRDEAL_PURE"] = "1"
    out = subprocess.run([sys.executable, "-c", MEASURE, str(BENCH), str(matches), str(runs)],
                         env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ratios: dict[bool, list[float]] = {True: [], False: []}
    for round_number in range(1, args.rounds + 1):
        for pure in (True, False):
            result = measure(pure, args.matches, args.runs)
            ratio = float(result["ratio"])  # type: ignore[arg-type]
            ratios[pure].append(ratio)
            print(f"round {round_number}: {result['build']}: verification "
                  f"{result['events_per_s']:,.0f} events/CPU-s, python-chess "
                  f"{result['plies_per_s']:,.0f} plies/CPU-s, ratio {ratio:.2f}", flush=True)
    pure_ratio, compiled_ratio = (statistics.median(ratios[True]),
                                  statistics.median(ratios[False]))
    print(f"median ratio to python-chess: pure {pure_ratio:.2f} "
          f"({', '.join(f'{r:.2f}' for r in ratios[True])}), compiled {compiled_ratio:.2f} "
          f"({', '.join(f'{r:.2f}' for r in ratios[False])}); compiled ÷ pure "
          f"{compiled_ratio / pure_ratio:.2f}")


if __name__ == "__main__":
    main()
