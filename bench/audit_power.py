"""The power table of docs/audit.md: how many matches each audit test needs to catch a planted
bias, measured by simulation (fairdeal.audit.planted), not guessed.

For each scenario and number of matches n it runs ``--replicates`` independent audits of n
simulated deals and reports the share in which the relevant test FAILs at the audit's
family-wise level (Holm over every test of that audit). The "fair" row is the false alarm rate:
the share of honest audits in which any test fails.

    python bench/audit_power.py [--replicates 20] [--sizes 100,400,1600,6400] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

from fairdeal.audit.planted import abandoned_matches, deals
from fairdeal.audit.stats import ALPHA, run_tests
from fairdeal.audit.tally import Tally

#: (label, scenario, strength, game, the tests that should catch it)
SCENARIOS = [
    ("fair deals (false alarms: any test fails)", "fair", 0.0, "arcomage", ""),
    ("skewed shuffle, 8-bit modulo bias", "skewed", 8, "arcomage", "deal-"),
    ("skewed shuffle, 10-bit modulo bias", "skewed", 10, "arcomage", "deal-"),
    ("skewed shuffle, 8-bit (Toy Battle)", "skewed", 8, "toybattle", "deal-"),
    ("seat A favoured, q = 0.1", "seat", 0.1, "arcomage", "seat-hands"),
    ("seat A favoured, q = 0.3", "seat", 0.3, "arcomage", "seat-hands"),
    ("player favoured (1 of 10), q = 0.3", "player", 0.3, "arcomage", "player-hands"),
    ("player favoured (1 of 10), q = 1", "player", 1.0, "arcomage", "player-hands"),
    ("seat A moves first more, q = 0.1", "first", 0.1, "arcomage", "first-mover"),
    ("seat A moves first more, q = 0.3", "first", 0.3, "arcomage", "first-mover"),
    ("seed bits set with p = 0.5 + 0.005", "seed-bits", 0.005, "arcomage", "seed-bits"),
    ("seed bits set with p = 0.5 + 0.02", "seed-bits", 0.02, "arcomage", "seed-bits"),
    ("skewed infinite-deck draws, 8-bit", "skewed", 8, "arcomage/infinite", "draws"),
    ("player moves first more (1 of 10), q = 0.3", "player-first", 0.3, "arcomage",
     "player-first"),
    ("seed bits repeat with p = 0.5 + 0.02", "seed-runs", 0.02, "arcomage", "seed-runs"),
    ("player's weak deals abandoned unsealed, q = 0.3", "abandon", 0.3, "arcomage",
     "unsealed"),
]


def one_audit(job: tuple[int, int, int]) -> tuple[int, int, bool]:
    index, n, replicate = job
    _, scenario, strength, game, prefix = SCENARIOS[index]
    tally = Tally()
    seed = 1_000_003 * index + 7919 * n + replicate
    name, _, deck = game.partition("/")
    params = {"deck": deck} if deck else {}
    if scenario == "abandon":
        for facts in deals("player", n, seed=seed, game="arcomage"):
            tally.add(facts, 0)
        abandoned = abandoned_matches(n, seed, strength, game="arcomage")
        for player, (created, unsealed) in abandoned.items():
            tally.count_unsealed(player, created, unsealed)
    else:
        for facts in deals(scenario, n, seed=seed, game=name, params=params, strength=strength):
            tally.add(facts, 0)
    failed = [r.name for r in run_tests(tally) if r.verdict == "FAIL"]
    return index, n, any(name.startswith(prefix) for name in failed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--sizes", default="100,400,1600,6400")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default="", help="row numbers to run (1-based), e.g. 13-16")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    rows = range(len(SCENARIOS))
    if args.only:
        first, _, last = args.only.partition("-")
        rows = range(int(first) - 1, int(last or first))
    jobs = [(index, n, r) for index in rows for n in sizes for r in range(args.replicates)]
    hits: dict[tuple[int, int], int] = {}
    start = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        for index, n, hit in pool.imap_unordered(one_audit, jobs):
            hits[index, n] = hits.get((index, n), 0) + hit
    print(f"Power at the family-wise level {ALPHA:g} (Holm), {args.replicates} simulated "
          f"audits per cell, {time.perf_counter() - start:.0f} s\n")
    print("| planted bias | test that catches it | " +
          " | ".join(f"n = {n:,}" for n in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for index, (label, _, _, _, prefix) in enumerate(SCENARIOS):
        if index not in rows:
            continue
        cells = [f"{hits.get((index, n), 0) / args.replicates:.0%}" for n in sizes]
        print(f"| {label} | {prefix.rstrip('-') + '*' if prefix == 'deal-' else prefix or 'any'}"
              f" | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
