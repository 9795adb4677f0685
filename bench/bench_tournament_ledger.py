"""Benchmark: a large Swiss on the server (ledger.tournaments*) — registering the players
(each a signed event checked and stored), starting, and pairing round 1, which creates every
table's match with both seat keys and its genesis leaf in the round's own transaction — on a
SQLite file, or PostgreSQL with ``--database-url``.

    python bench/bench_tournament_ledger.py [--players 1000] [--database-url URL]

Issue 22 asks a 1,000-player Swiss to pair each round in under a few seconds; this measures
the server's share (the pairing itself: bench/bench_pairing.py). Each registration is preceded
by the read a client makes to sign at the head. Measured on the shared 2-core machine, SQLite,
1,000 players: the registrations 36 s in all (both the read and the write fold the whole log,
so the 1,000th costs most: about 10 ms for the write alone), round 1's 500 tables paired and
their matches created in 2.1 s, the tournament read in 0.24 s.
"""

from __future__ import annotations

import argparse
import secrets
import tempfile
import time

from fairdeal.ledger.service import Ledger
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.tournament.primitives import signed_message


def run(players: int, database_url: str | None) -> dict[str, float]:
    """The seconds each step took."""
    ledger = Ledger.open(tempfile.mkdtemp(), database_url)
    arbiter = SigningKey.generate()
    created = ledger.create_tournament(name="bench swiss", game="arcomage", system="swiss",
                                       rounds=9, arbiter_key=arbiter.public_text,
                                       max_players=4096)
    tid, organiser = created["id"], created["organiser_token"]
    timings: dict[str, float] = {}
    start = time.perf_counter()
    for number in range(players):
        key = SigningKey.generate()
        row = ledger.tournament(tid)
        fields = {"public_key": key.public_text, "name": f"player {number}",
                  "entropy": secrets.token_hex(32)}
        event = {"seq": row["next_seq"], "prev": row["head"], "type": "register",
                 "player": key.key_id, **fields}
        ledger.register_player(tid, {**fields, "expected_seq": row["next_seq"],
                                     "sig": key.sign(signed_message(event)).hex()})
    timings["register"] = time.perf_counter() - start
    ledger.start_tournament(tid, organiser)
    start = time.perf_counter()
    ledger.pair_next_round(tid, organiser)
    timings["pair round 1"] = time.perf_counter() - start
    start = time.perf_counter()
    ledger.tournament(tid)
    timings["read"] = time.perf_counter() - start
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    for step, seconds in run(args.players, args.database_url).items():
        print(f"{step:>14}: {seconds:7.2f} s")


if __name__ == "__main__":
    main()
