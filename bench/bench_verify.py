"""Benchmark: full verification of two-tower matches on one core.

Reports matches/s and events/s (median of several runs) and the share of time spent in
parsing, hashing (the chain), the signature and the commitment, and the rules (the replay).
Aim (issue 2): 1,000 two-tower matches verified per second per core.

    python bench/bench_verify.py [--matches 300] [--runs 5] [--game arcomage]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.keys import parse_public_key, verify_signature
from fairdeal.verifier.protocol import commitment, head_message
from fairdeal.verifier.replay import MatchReplayer
from fairdeal.verifier.verify import chain_hashes, verify_bytes


def corpus(game: str, count: int, bots: tuple[str, str] = ("random", "greedy")) -> list[bytes]:
    params = {} if game != "arcomage" else {"deck": "normal"}
    settings = SimulationSettings(game, params, bots)
    return [json.dumps(b, separators=(",", ":")).encode()
            for b in simulate_matches(settings, count, seed="bench", server_key=None)]


def phases(files: list[bytes]) -> dict[str, float]:
    """Seconds spent in each phase over the whole corpus (the same work verify_bytes does)."""
    spent = {"parse": 0.0, "hashing": 0.0, "signature": 0.0, "rules": 0.0}
    for data in files:
        t0 = time.perf_counter()
        bundle = Bundle.from_bytes(data)
        t1 = time.perf_counter()
        hashes = chain_hashes(bundle.events)
        t2 = time.perf_counter()
        genesis, reveal = bundle.events[0], bundle.events[-1]
        seed = bytes.fromhex(reveal["server_seed"])
        verify_signature(parse_public_key(bundle.server_key), bytes.fromhex(bundle.signature),
                         head_message(genesis["match_id"], len(hashes) - 1, hashes[-1]))
        commitment(seed, genesis)
        t3 = time.perf_counter()
        replayer = MatchReplayer(genesis, seed)
        for event in bundle.events[1:]:
            replayer.feed(event)
        t4 = time.perf_counter()
        spent["parse"] += t1 - t0
        spent["hashing"] += t2 - t1
        spent["signature"] += t3 - t2
        spent["rules"] += t4 - t3
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--game", default="arcomage")
    parser.add_argument("--bots", default="random,greedy",
                        help="random,random makes longer matches")
    args = parser.parse_args()
    first, second = args.bots.split(",")
    files = corpus(args.game, args.matches, (first, second))
    events = sum(len(json.loads(f)["events"]) for f in files)
    assert all(verify_bytes(f).ok for f in files)
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        for data in files:
            verify_bytes(data)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"{args.game} ({args.bots}): {len(files)} matches, {events} events "
          f"({events / len(files):.1f} per match), {args.runs} runs")
    print(f"  full verification: median {median * 1000:.1f} ms for the corpus "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})")
    print(f"  {len(files) / median:,.0f} matches/s, {events / median:,.0f} events/s on one core")
    shares = [phases(files) for _ in range(args.runs)]
    total = {k: statistics.median(s[k] for s in shares) for k in shares[0]}
    whole = sum(total.values())
    print("  share of time: " + ", ".join(
        f"{name} {100 * spent / whole:.0f}%" for name, spent in total.items()))


if __name__ == "__main__":
    main()
