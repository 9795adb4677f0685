"""The documented fuzz run (``make fuzz``): mutated inputs against every target until the
count is reached; zero problems (tracebacks, 5xx answers, hangs over 2 s) expected.

    .venv/bin/python -m fuzzing.run --inputs 1000000 --workers 2 --out out/fuzz

Each worker is a process of its own with its own targets (and its own SQLite ledger), and
takes a share of the count. An input's target is drawn by weight; its mutation is byte-wise
or structural (fuzzing/mutate.py) from a seed of the corpus: the honest, tampered and hostile
fixtures. A Hypothesis phase runs the strategies of fuzzing/strategies.py on top. An input that
breaks a target is written to fixtures/hostile/found/ (raw bytes and the problem) and counted;
an input that takes over 2 s is run again, and counted as a hang if it is slow again (the
machine is shared: one slow run may be someone else's load). The totals go to
``<out>/summary.json`` and are printed; the exit status is 1 if anything broke.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
FOUND = ROOT / "fixtures" / "hostile" / "found"
HANG_S = 2.0
#: how the inputs are shared out (by count): the verifier's parse-and-check path is the cheapest
#: and the widest; the API's paths go through Flask and the ledger
WEIGHTS = {"verifier": 0.55, "api-bodies": 0.2, "api-bundles": 0.1, "upload": 0.07, "cli": 0.08}


def corpus() -> list[bytes]:
    """The seeds: every committed fixture bundle, honest, tampered and hostile."""
    files = sorted((ROOT / "fixtures" / "bundles").glob("*/*.json"))
    files += sorted((ROOT / "fixtures" / "hostile" / "bundles").glob("*.json"))
    return [path.read_bytes() for path in files if path.name != "expected.json"]


def _record(target: str, data: bytes, problem: str) -> str:
    FOUND.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(data).hexdigest()[:12]
    (FOUND / f"{target}-{digest}.bin").write_bytes(data)
    (FOUND / f"{target}-{digest}.txt").write_text(problem[-5000:])
    return digest


class Hung(BaseException):
    """Raised by the watchdog inside an input that ran past WATCHDOG_S (not an Exception, so
    no ``except Exception`` of the code under test swallows it)."""


#: an input still running after this long is stopped and counted as a hang
WATCHDOG_S = 30


def _watchdog(signum: int, frame: Any) -> None:
    raise Hung()


def _run_guarded(target: Any, data: bytes) -> str | None:
    signal.setitimer(signal.ITIMER_REAL, WATCHDOG_S)
    try:
        problem: str | None = target.run(data)
        return problem
    except Hung:
        return f"hang: stopped after {WATCHDOG_S} s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def worker(index: int, count: int, seed: int, out: str) -> dict[str, Any]:
    """Run ``count`` inputs; return the counts."""
    # the problems the server logs are the ones we count; keep its log quiet otherwise
    import logging

    from fuzzing.mutate import mutate_bytes, structural
    from fuzzing.targets import TARGETS
    logging.disable(logging.CRITICAL)

    signal.signal(signal.SIGALRM, _watchdog)
    rng = random.Random(seed * 1000 + index)
    seeds = corpus()
    parsed = []
    for data in seeds:
        try:
            parsed.append(json.loads(data))
        except (ValueError, RecursionError):  # the hostile seeds that are not JSON at all
            pass
    targets = {name: make() for name, make in TARGETS.items()}
    names = list(WEIGHTS)
    weights = [WEIGHTS[name] for name in names]
    stats: dict[str, Any] = {"inputs": 0, "problems": 0, "hangs": 0, "slowest_s": 0.0,
                             "by_target": {name: 0 for name in names}, "found": []}
    started = time.monotonic()
    progress = Path(out) / f"worker-{index}.json"
    for done in range(count):
        name = rng.choices(names, weights)[0]
        if rng.random() < 0.5 or not parsed:
            data = mutate_bytes(rng.choice(seeds), rng)
        else:
            data = structural(rng.choice(parsed), rng)
        target = targets[name]
        t0 = time.monotonic()
        problem = _run_guarded(target, data)
        took = time.monotonic() - t0
        if took > HANG_S and problem is None:
            t0 = time.monotonic()
            _run_guarded(target, data)
            again = time.monotonic() - t0
            if again > HANG_S:
                problem = f"hang: {took:.2f} s, then {again:.2f} s"
                stats["hangs"] += 1
            took = min(took, again)
        stats["slowest_s"] = max(stats["slowest_s"], took)
        stats["inputs"] += 1
        stats["by_target"][name] += 1
        if problem is not None:
            stats["problems"] += 1
            stats["found"].append({"target": name, "input": _record(name, data, problem),
                                   "problem": problem.strip().splitlines()[-1][:300]})
        if done % 5000 == 0 or done == count - 1:
            stats["elapsed_s"] = round(time.monotonic() - started, 1)
            progress.write_text(json.dumps(stats, indent=1))
    for target in targets.values():
        target.close()
    return stats


def hypothesis_phase(examples: int) -> dict[str, Any]:
    """The Hypothesis strategies against the verifier and the API (its own count)."""
    from fuzzing.strategies import run_hypothesis

    return run_hypothesis(examples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--hypothesis", type=int, default=2_000,
                        help="Hypothesis examples on top of the mutation inputs")
    parser.add_argument("--out", default="out/fuzz")
    args = parser.parse_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    share = [args.inputs // args.workers + (i < args.inputs % args.workers)
             for i in range(args.workers)]
    started = time.monotonic()
    # the code under test is the checkout as the run starts (the workers import it then)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        jobs = [pool.apply_async(worker, (i, share[i], args.seed, args.out))
                for i in range(args.workers)]
        results = [job.get() for job in jobs]
    hypothesis = hypothesis_phase(args.hypothesis) if args.hypothesis else {}
    summary = {
        "inputs": sum(r["inputs"] for r in results),
        "problems": sum(r["problems"] for r in results) + hypothesis.get("problems", 0),
        "hangs": sum(r["hangs"] for r in results),
        "slowest_s": max(r["slowest_s"] for r in results),
        "by_target": {name: sum(r["by_target"][name] for r in results) for name in WEIGHTS},
        "hypothesis": hypothesis,
        "found": [item for r in results for item in r["found"]],
        "seconds": round(time.monotonic() - started, 1),
        "workers": args.workers, "seed": args.seed, "python": sys.version.split()[0],
        "commit": commit,
        "load_average": os.getloadavg(),
    }
    (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "found"}, indent=1))
    for item in summary["found"][:20]:
        print("found:", item)
    return 1 if summary["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
