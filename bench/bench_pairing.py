"""Benchmark: the Swiss pairing (``fairdeal-swiss/1``) of whole tournaments — the time to pair
each round (median, worst) and the whole — for 8, 100 and 1,000 players over 9 rounds (7 for
8 players, who run out of opponents sooner), under three result models:

- ``random``: 30% draws, else either seat wins;
- ``ranked``: no draws, the higher-ranked player wins 60%;
- ``seat``: no draws, seat 0 wins — what make.py's arcomage bots do (seat 0 won 450 of the
  450 games of a 100-player, 9-round Swiss), the hardest for the seat rules: whole brackets
  then want the same seat absolutely.

    python bench/bench_pairing.py [--players 8 100 1000] [--rounds 9] [--seed 1]
                                  [--results random ranked seat]

Issue 22 asks a 1,000-player, 9-round Swiss to pair each round in under a few seconds; the
verifier re-derives every round, so this is also its pairing cost. Measured (CPU seconds per
round, median / max, on the shared 2-core machine; before = the Swiss whose stage 1 added all
floaters to a bracket's first chunk and whose only repair re-paired the last 1, 2, 4, … pairs
over complete graphs):

    players  results  before            after
          8  random   0.001 / 0.002     0.001 / 0.002
          8  ranked   0.001 / 0.002     0.001 / 0.002
          8  seat     0.000 / 0.001     0.001 / 0.002
        100  random   0.033 / 0.037     0.038 / 0.046
        100  ranked   0.045 / 0.068     0.041 / 0.055
        100  seat     0.059 / 0.404     0.051 / 0.066
      1,000  random   0.592 / 0.649     0.400 / 0.503
      1,000  ranked   0.577 / 0.613     0.409 / 0.423
      1,000  seat     0.4 / 224         0.478 / 0.607

(Before, at 1,000 players with seat results, rounds 1, 2 and 4 took 0.4 s and round 3 224 s:
the doubling repair re-paired hundreds of players in one matching; the other odd rounds were
not waited for.)

With random and ranked results every round pairs exactly as before (checked at 100 and 1,000
players: stage 2a then pairs as the doubling did); their time differences are the machine's
load and the cheaper refusal of two players who want the same seat absolutely.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time

from fairdeal.verifier.tournament.model import Field, History, Outcome, Pairing, Points
from fairdeal.verifier.tournament.pairing import pair_swiss
from fairdeal.verifier.tournament.primitives import lot


def _winner(model: str, pairing: Pairing, score: dict[str, int], field: Field,
            pick: float) -> str | None:
    """The result of one game under ``model`` (``pick`` uniform in [0, 1))."""
    if model == "random":
        return None if pick < 0.3 else pairing.seats[0 if pick < 0.65 else 1]
    if model == "seat":
        return pairing.seats[0]
    higher, lower = sorted(pairing.seats,
                           key=lambda player: (-score[player], lot(field.lots, player)))
    return higher if pick < 0.6 else lower


def run(players: int, rounds: int, seed: int,
        model: str = "random") -> tuple[list[float], list[float]]:
    """Pair ``rounds`` rounds of a ``players`` Swiss with results drawn from ``model``: the
    seconds each round's pairing took, wall-clock and CPU (the machine is shared, so the CPU
    time is the steadier figure)."""
    rng = random.Random(seed)
    field = Field(tuple(hashlib.sha256(f"{seed}/{index}".encode()).hexdigest()[:16]
                        for index in range(players)),
                  hashlib.sha256(f"lots/{seed}".encode()).digest())
    history = History()
    score = dict.fromkeys(field.players, 0)
    wall, cpu = [], []
    for number in range(1, rounds + 1):
        started, used = time.perf_counter(), time.process_time()
        paired = pair_swiss(field, number, history, Points())
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
        outcomes = []
        for pairing in paired.pairings:
            winner = _winner(model, pairing, score, field, rng.random())
            if winner is not None:
                score[winner] += 1
            outcomes.append(Outcome(number, pairing.seats, winner))
        history = History((*history.rounds, paired), (*history.outcomes, *outcomes))
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[8, 100, 1000])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", nargs="+", choices=("random", "ranked", "seat"),
                        default=["random", "ranked", "seat"])
    args = parser.parse_args()
    for players in args.players:
        rounds = min(args.rounds, players - 1)
        for model in args.results:
            timed = run(players, rounds, args.seed, model)
            for label, times in zip(("wall", "cpu"), timed, strict=True):
                print(f"{players:5d} players, {rounds} rounds, {model:6s} results, {label}: "
                      f"per round median {statistics.median(times):.3f} s, max "
                      f"{max(times):.3f} s; whole {sum(times):.2f} s", flush=True)


if __name__ == "__main__":
    main()
