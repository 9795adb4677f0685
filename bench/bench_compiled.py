"""Benchmark: verification on the pure and the compiled build, each against python-chess.

Each round runs both builds, one subprocess each (``FAIRDEAL_PURE=1`` for the pure one), in
turn, so both see the same load: a process simulates the two-tower matches bench_audit.py
uses (random against greedy), then times, in CPU seconds, verifying all of them and
python-chess replaying 200 random PGN games with legality, alternately, ``--runs`` times.
It prints each build's events/s ÷ plies/s ratio (the median of its runs) per round, then the
medians over the rounds and the compiled build's speed-up. The machine is shared: compare
the ratios, which carry their own anchor, not the raw rates.

``--anchor DIR`` compares two compiled builds instead: this checkout's and the checkout at
DIR (a worktree of main, say, with its own ``.venv``), each round running both in turn, each
through its own ``.venv/bin/python`` and its own bench/, and prints the ratio of each and the
change from the anchor's (a same-run comparison: both see the same load).

    python bench/bench_compiled.py [--matches 200] [--runs 3] [--rounds 3] [--anchor DIR]
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


def measure(pure: bool, matches: int, runs: int, checkout: Path | None = None
            ) -> dict[str, object]:
    """One build's measurement in a process of its own: this checkout's (pure or compiled),
    or, given ``checkout``, that checkout's through its own venv and bench/."""
    env = {key: value for key, value in os.environ.items() if key != "FAIRDEAL_PURE"}
    if pure:
        env["FAIRDEAL_PURE"] = "1"
    python, bench = sys.executable, BENCH
    if checkout is not None:
        python, bench = str(checkout / ".venv" / "bin" / "python"), checkout / "bench"
    out = subprocess.run([python, "-c", MEASURE, str(bench), str(matches), str(runs)],
                         env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


def against_anchor(anchor: Path, matches: int, runs: int, rounds: int) -> None:
    """This checkout's compiled build and the anchor's, in turn, ``rounds`` times."""
    ratios: dict[str, list[float]] = {"anchor": [], "this": []}
    for round_number in range(1, rounds + 1):
        for name, checkout in (("anchor", anchor), ("this", None)):
            result = measure(False, matches, runs, checkout)
            ratio = float(result["ratio"])  # type: ignore[arg-type]
            ratios[name].append(ratio)
            print(f"round {round_number}: {name} ({result['build']}): verification "
                  f"{result['events_per_s']:,.0f} events/CPU-s, python-chess "
                  f"{result['plies_per_s']:,.0f} plies/CPU-s, ratio {ratio:.2f}", flush=True)
    theirs, ours = statistics.median(ratios["anchor"]), statistics.median(ratios["this"])
    print(f"median ratio to python-chess: anchor {theirs:.2f} "
          f"({', '.join(f'{r:.2f}' for r in ratios['anchor'])}), this checkout {ours:.2f} "
          f"({', '.join(f'{r:.2f}' for r in ratios['this'])}); this ÷ anchor "
          f"{ours / theirs:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--anchor", type=Path, default=None,
                        help="a checkout (with its .venv) whose compiled build to compare with")
    args = parser.parse_args()
    if args.anchor is not None:
        against_anchor(args.anchor, args.matches, args.runs, args.rounds)
        return
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
