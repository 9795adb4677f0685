"""Benchmark: the fairness audit of two-tower matches (random against greedy, simulate's
default), and verification against python-chess's PGN replay in the same run.

Reports, as medians of several runs:
- matches audited per second with 1 and with 2 worker processes;
- the share of the audit's time in verification, in re-deriving and counting the deals, and in
  the statistics;
- verification events/s against python-chess PGN replay plies/s with legality (the same machine,
  the same moment: the ratio is what to compare, the machine being shared and loaded);
- the floor: what the per-match essentials alone cost in the same run (parsing the JSON, one
  Ed25519 verification, the canonical bytes and SHA-256 of every event, the rules applying
  every move to a state already at hand), and the ratio to python-chess that even a verifier
  doing nothing else could reach;
- the audit of ``--big`` matches (default 100,000) fed as a generator with 2 workers. It cycles
  through the ``--matches`` distinct simulated bundles: simulating 100,000 greedy matches would
  take far longer than auditing them, and the audit's work per match is the same.

The bench installs ``chess`` for itself (pip) when it is missing.

    python bench/bench_audit.py [--matches 1000] [--runs 3] [--big 100000]
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from itertools import cycle, islice

from fairdeal.audit import audit_bundles, run_tests
from fairdeal.audit.facts import match_facts
from fairdeal.audit.tally import Tally
from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.keys import parse_public_key, verify_signature
from fairdeal.verifier.protocol import head_message, ply_stream
from fairdeal.verifier.replay import MatchReplayer
from fairdeal.verifier.verify import chain_hashes, verify_bytes, verify_replayed


def corpus(count: int) -> list[tuple[str, bytes]]:
    settings = SimulationSettings("arcomage", {}, ("random", "greedy"))
    return [(b["events"][0]["match_id"], json.dumps(b, separators=(",", ":")).encode())
            for b in simulate_matches(settings, count, seed="bench-audit", server_key=None)]


def _chess() -> object:
    try:
        return importlib.import_module("chess.pgn")
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "chess"], check=True)
        return importlib.import_module("chess.pgn")


def chess_games(count: int) -> list[str]:
    """``count`` random legal games as PGN text (seeded, so every run replays the same)."""
    pgn = _chess()
    import chess

    source = random.Random(7)
    games = []
    for _ in range(count):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160:
            board.push(source.choice(list(board.legal_moves)))
        game = pgn.Game.from_board(board)  # type: ignore[attr-defined]
        games.append(str(game))
    return games


def chess_replay(games: list[str]) -> int:
    """Parse every PGN and replay it: read_game checks each SAN move is legal on the board."""
    pgn = _chess()
    plies = 0
    for text in games:
        game = pgn.read_game(io.StringIO(text))  # type: ignore[attr-defined]
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            plies += 1
        assert not game.errors, game.errors
    return plies


def floor(files: list[tuple[str, bytes]], runs: int) -> dict[str, float]:
    """CPU seconds for the corpus of the work no verification of it can skip, each part on its
    own: the JSON parse (json.loads, no checks), the server's one signature, every event's
    canonical bytes and hash (the chain), and the rules applying every move to the state before
    it (the states gathered beforehand, so no protocol check and no replayer is timed). Each
    parse is dropped at once, as verification drops it: a list of a thousand parsed bundles
    would time the garbage collector walking them too."""
    texts = [data for _, data in files]
    bundles = [Bundle.from_bytes(data) for data in texts]
    signed = [(parse_public_key(b.server_key), bytes.fromhex(b.signature),
               head_message(b.match_id, len(b.events) - 1, chain_hashes(b.events)[-1]))
              for b in bundles]
    plays = []
    for bundle in bundles:
        replayer = MatchReplayer(bundle.genesis, bytes.fromhex(bundle.events[-1]["server_seed"]))
        for event in bundle.events[1:]:
            if event["type"] == "move" and replayer.state is not None:
                plays.append((replayer.game, replayer.state, event["action"], replayer.deal,
                              replayer.ply))
            replayer.feed(event)

    def signatures() -> None:
        for public, signature, message in signed:
            assert verify_signature(public, signature, message)

    def rules() -> None:
        for game, state, action, deal, ply in plays:
            game.apply(state, game.parse_action(action), ply_stream(deal, ply))

    def cpu(fn: object) -> float:
        return timed(fn, runs, clock=time.process_time)

    return {
        "JSON parse": cpu(lambda: all(json.loads(text) for text in texts)),
        "one Ed25519 verification": cpu(signatures),
        "chain (canonical bytes + SHA-256)": cpu(lambda: [chain_hashes(b.events) for b in bundles]),
        "the rules alone": cpu(rules),
    }


def _cpu(times: os.times_result) -> float:
    return times.user + times.system + times.children_user + times.children_system


def timed(fn: object, runs: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """The median of ``runs`` calls of ``fn``, by ``clock`` (wall time unless told)."""
    times = []
    for _ in range(runs):
        start = clock()
        fn()  # type: ignore[operator]
        times.append(clock() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big", type=int, default=100_000)
    args = parser.parse_args()
    files = corpus(args.matches)
    events = sum(len(json.loads(data)["events"]) for _, data in files)
    print(f"two-tower duel (random,greedy): {len(files)} distinct matches, {events} events "
          f"({events / len(files):.1f} per match), medians of {args.runs} runs; the machine "
          "is shared and loaded, so compare the same-run ratios")
    ours = against_chess(files, events, args.runs)
    print_floor(files, events, args.runs, ours)
    audit_shares(files, args.runs)
    audit_rates(files, args.runs)
    if args.big:
        audit_big(files, args.big)


def alternating_rates(files: list[bytes], events: int, games: list[str], plies: int,
                      runs: int) -> tuple[list[float], list[float], list[float]]:
    """``runs`` rounds of verifying every file, then python-chess replaying ``games``, in turn
    so both see the same load: our events and their plies per CPU-second (CPU time of this
    process: on a shared machine the wall clock mostly measures the others), and each
    round's ratio."""
    ours: list[float] = []
    theirs: list[float] = []
    ratios: list[float] = []
    for _ in range(runs):
        start = time.process_time()
        for data in files:
            assert verify_bytes(data).ok
        verify_s = time.process_time() - start
        start = time.process_time()
        chess_replay(games)
        chess_s = time.process_time() - start
        ours.append(events / verify_s)
        theirs.append(plies / chess_s)
        ratios.append(ours[-1] / theirs[-1])
    return ours, theirs, ratios


def against_chess(files: list[tuple[str, bytes]], events: int,
                  runs: int) -> tuple[float, float]:
    """Verification against python-chess, interleaved so both see the same load; prints the
    rates and their ratio, returns the medians (ours in events, theirs in plies, per
    CPU-second)."""
    games = chess_games(200)
    plies = chess_replay(games)
    ours, theirs, ratios = alternating_rates([data for _, data in files], events, games, plies,
                                             runs)
    print(f"  verification: {statistics.median(ours):,.0f} events per CPU-second; python-chess "
          f"PGN replay with legality: {statistics.median(theirs):,.0f} plies per CPU-second "
          f"({len(games)} random games, {plies} plies); ratio {statistics.median(ratios):.2f} "
          f"(median; runs {', '.join(f'{r:.2f}' for r in ratios)})")
    return statistics.median(ours), statistics.median(theirs)


def print_floor(files: list[tuple[str, bytes]], events: int, runs: int,
                rates: tuple[float, float]) -> None:
    """The floor: what even a verifier doing nothing but the essentials would spend, against
    verification as a whole and python-chess (``rates``: against_chess's medians)."""
    ours, plies_per_s = rates
    parts = floor(files, runs)
    whole_s = sum(parts.values())
    per_match = ", ".join(f"{name} {1e6 * seconds / len(files):.0f}" for name, seconds
                          in parts.items())
    floor_rate = events / whole_s
    print(f"  the floor, per match in µs of CPU: {per_match}; together "
          f"{1e6 * whole_s / len(files):.0f} µs = {floor_rate:,.0f} events/s, so at most "
          f"{floor_rate / plies_per_s:.2f}x python-chess with no other check at all; "
          f"verification as a whole: {1e6 * events / ours / len(files):.0f} "
          "µs per match")


def audit_shares(files: list[tuple[str, bytes]], runs: int) -> None:
    """Where the audit's time goes: parsing, verification, deriving the deals, statistics."""
    bundles = [Bundle.from_bytes(data) for _, data in files]
    parse_s = timed(lambda: [Bundle.from_bytes(data) for _, data in files], runs)
    verify_s = timed(lambda: [verify_replayed(bundle) for bundle in bundles], runs)
    # the audit reads each deal off the replayer that verified the match (audit.run.examine)
    replayers: list[MatchReplayer | None] = [verify_replayed(bundle)[1] for bundle in bundles]

    def derive() -> Tally:
        tally = Tally()
        for bundle, replayer in zip(bundles, replayers, strict=True):
            facts = match_facts(bundle, replayer)
            if facts is not None:
                tally.add(facts, bundle.genesis["ts"])
        return tally

    derive_s = timed(derive, runs)
    tally = derive()
    stats_s = timed(lambda: run_tests(tally), runs)
    whole = parse_s + verify_s + derive_s + stats_s
    print(f"  share of the audit's time: parsing {100 * parse_s / whole:.0f}%, verification "
          f"{100 * verify_s / whole:.0f}%, deriving and counting the deals "
          f"{100 * derive_s / whole:.0f}%, statistics {100 * stats_s / whole:.0f}% "
          f"(the statistics run once, on the merged counts, whatever the number of matches)")


def audit_rates(files: list[tuple[str, bytes]], runs: int) -> None:
    """Matches audited per second, 1 and 2 workers: wall time, and the CPU time of this
    process and its workers (on a machine shared with others, the wall time mostly measures
    the others; the CPU time says what the audit itself costs)."""
    for workers in (1, 2):
        walls, cpus = [], []
        for _ in range(runs):
            before, start = os.times(), time.perf_counter()
            audit_bundles(files, workers=workers, chunk=100)
            walls.append(time.perf_counter() - start)
            cpus.append(_cpu(os.times()) - _cpu(before))
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(f"  audit with {workers} worker(s): {len(files) / wall:,.0f} matches/s wall, "
              f"{len(files) / cpu:,.0f} matches per CPU-second (median of {runs})")


def audit_big(files: list[tuple[str, bytes]], big: int) -> None:
    """The audit of ``big`` matches fed as a generator to 2 workers, cycling the corpus."""
    def feed() -> Iterator[tuple[str, bytes]]:
        return islice(cycle(files), big)

    before, start = os.times(), time.perf_counter()
    audited = audit_bundles(feed(), workers=2)
    seconds = time.perf_counter() - start
    cpu = _cpu(os.times()) - _cpu(before)
    verdicts = [r.verdict for r in run_tests(audited)]
    print(f"  {big:,} matches as a generator, 2 workers: {seconds:.1f} s "
          f"({big / seconds:,.0f} matches/s; aim: under 25 s); {audited.matches:,} "
          f"counted, {len(audited.failures)} failed; {cpu:.1f} CPU-seconds in all, so "
          f"{cpu / 2:.1f} s on two otherwise idle cores")
    # the cycled corpus repeats each deal: the statistics are not meaningful here
    _ = verdicts


if __name__ == "__main__":
    main()
