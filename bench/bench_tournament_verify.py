"""Benchmark: verifying a whole tournament export, and how much of it is its matches'. A Swiss
is played by bots with the players' keys (fixtures/tournaments/make.py's organiser: real,
seat-signed matches), then verified with verify_tournament; the matches' own verification
(verifier.verify_bytes, twice for a disputed one) is timed apart from the rest (the chain, the
signatures, the pairings re-derived, the results, the standings).

    python bench/bench_tournament_verify.py [--players 32] [--rounds 5]

Issue 22 asks that a tournament's verification be dominated by its matches'.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from fairdeal.verifier.tournament import matches as tournament_matches
from fairdeal.verifier.tournament import verify_tournament

ROOT = Path(__file__).parents[1]


def _make() -> object:
    spec = importlib.util.spec_from_file_location("tournament_make",
                                                  ROOT / "fixtures" / "tournaments" / "make.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tournament_make"] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    make = _make()
    started = time.perf_counter()
    export = make.play(make.Plan(f"bench{args.players}", "swiss",  # type: ignore[attr-defined]
                                 args.players, rounds=args.rounds))
    played = time.perf_counter() - started
    spent = [0.0]
    real = tournament_matches.verify_bytes

    def timed(*a: object, **k: object) -> object:
        begin = time.perf_counter()
        try:
            return real(*a, **k)  # type: ignore[arg-type]
        finally:
            spent[0] += time.perf_counter() - begin

    tournament_matches.verify_bytes = timed  # type: ignore[assignment]
    data = make._match_bytes(export["tournament"])  # type: ignore[attr-defined]
    begin = time.perf_counter()
    report = verify_tournament(data, export["matches"])
    total = time.perf_counter() - begin
    assert report.ok, report.failure
    matches = len(export["matches"])
    print(f"{args.players} players, {args.rounds} rounds, {matches} matches "
          f"(played in {played:.1f} s)")
    print(f"verified in {total:.2f} s: the matches {spent[0]:.2f} s "
          f"({100 * spent[0] / total:.0f} %), the rest {total - spent[0]:.2f} s")


if __name__ == "__main__":
    main()
