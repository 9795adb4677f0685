"""Benchmark: the Swiss pairing (``fairdeal-swiss/1``) of whole tournaments with random
results — the time to pair each round (median, worst) and the whole — for 8, 100 and 1,000
players over 9 rounds (7 for 8 players, who run out of opponents sooner).

    python bench/bench_pairing.py [--players 8 100 1000] [--rounds 9] [--seed 1]

Issue 22 asks a 1,000-player, 9-round Swiss to pair each round in under a few seconds; the
verifier re-derives every round, so this is also its pairing cost.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time

from fairdeal.verifier.tournament.model import Field, History, Outcome, Points
from fairdeal.verifier.tournament.pairing import pair_swiss


def run(players: int, rounds: int, seed: int) -> tuple[list[float], list[float]]:
    """Pair ``rounds`` rounds of a ``players`` Swiss with random results (30% draws): the
    seconds each round's pairing took, wall-clock and CPU (the machine is shared, so the CPU
    time is the steadier figure)."""
    rng = random.Random(seed)
    field = Field(tuple(hashlib.sha256(f"{seed}/{index}".encode()).hexdigest()[:16]
                        for index in range(players)),
                  hashlib.sha256(f"lots/{seed}".encode()).digest())
    history = History()
    wall, cpu = [], []
    for number in range(1, rounds + 1):
        started, used = time.perf_counter(), time.process_time()
        paired = pair_swiss(field, number, history, Points())
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
        outcomes = []
        for pairing in paired.pairings:
            pick = rng.random()
            winner = None if pick < 0.3 else pairing.seats[0 if pick < 0.65 else 1]
            outcomes.append(Outcome(number, pairing.seats, winner))
        history = History((*history.rounds, paired), (*history.outcomes, *outcomes))
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[8, 100, 1000])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for players in args.players:
        rounds = min(args.rounds, players - 1)
        for label, times in zip(("wall", "cpu"), run(players, rounds, args.seed), strict=True):
            print(f"{players:5d} players, {rounds} rounds, {label}: per round median "
                  f"{statistics.median(times):.3f} s, max {max(times):.3f} s; "
                  f"whole {sum(times):.2f} s")


if __name__ == "__main__":
    main()
