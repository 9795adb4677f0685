"""The transparency log: appends per second, and inclusion-proof generation time at 1 million
leaves, on a SQLite file (and PostgreSQL with --postgres URL or FAIRDEAL_TEST_POSTGRES_URL).

    .venv/bin/python bench/bench_log.py [--leaves 1000000] [--appends 2000] [--postgres URL]

Not a test: it prints a table. "append" is ``append_leaf`` in a transaction of its own, exactly
as a genesis or a seal joins the log (lock, read the size and the left siblings, insert the leaf
and the nodes it completes); the anchor is one event INSERT in a transaction of its own on the
same database in the same run, so the ratio says what logging adds to a write. The 1-million-leaf
tree is bulk-loaded level by level (its hashes computed with the verifier's own node_hash), then
appends and proofs are timed on it; the proof anchor is the same proof built in memory from the
same nodes. Medians of the timed calls; the machine may be loaded, so read the ratios.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from benchlib import drop_pg_schema
from sqlalchemy import Engine, insert, text

from fairdeal.ledger.store import open_engine
from fairdeal.ledger.tlog import LOG_TABLES, TransparencyLog, append_leaf
from fairdeal.verifier.checkpoint import Checkpoint
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.merkle import (
    fold,
    inclusion_nodes,
    leaf_hash,
    node_hash,
    verify_inclusion,
)

_LEAVES, _NODES = LOG_TABLES[0], LOG_TABLES[1]
KEY = SigningKey.from_seed(b"\x42" * 32)


def _leaf(number: int) -> bytes:
    """A leaf the size of a real genesis leaf (about 200 bytes)."""
    return (b'{"event":"' + f"{number:064x}".encode() + b'","game":"arcomage","kind":"genesis",'
            b'"leaf":"fairdeal.log/1","match_id":"' + f"{number:016x}".encode()
            + b'","seats":["player A","player B"],"ts":1796000000000}')


def _bulk_load(engine: Engine, count: int) -> dict[tuple[int, int], bytes]:
    """Store a tree of ``count`` leaves level by level; return the nodes (for the anchor)."""
    nodes: dict[tuple[int, int], bytes] = {}
    level_hashes = []
    batch: list[dict[str, object]] = []
    with engine.begin() as conn:
        for number in range(count):
            body = _leaf(number)
            digest = leaf_hash(body)
            level_hashes.append(digest)
            batch.append({"idx": number, "kind": "genesis", "match_id": f"{number:016x}",
                          "body": body.decode()})
            if len(batch) == 20_000:
                conn.execute(insert(_LEAVES), batch)
                batch = []
        if batch:
            conn.execute(insert(_LEAVES), batch)
        level = 0
        while level_hashes:
            rows = [{"level": level, "idx": index, "hash": digest.hex()}
                    for index, digest in enumerate(level_hashes)]
            for start in range(0, len(rows), 50_000):
                conn.execute(insert(_NODES), rows[start:start + 50_000])
            nodes.update(((level, index), digest) for index, digest in enumerate(level_hashes))
            level_hashes = [node_hash(level_hashes[i], level_hashes[i + 1])
                            for i in range(0, len(level_hashes) - 1, 2)]
            level += 1
    return nodes


def _median_ms(calls: Iterator[Callable[[], object]]) -> float:
    times = []
    for call in calls:
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _appends(engine: Engine, first: int, count: int) -> tuple[float, float]:
    """(log appends per second, anchor inserts per second) at the current size."""
    started = time.perf_counter()
    for number in range(first, first + count):
        with engine.begin() as conn:
            append_leaf(conn, "genesis", f"{number:016x}", _leaf(number))
    logged = count / (time.perf_counter() - started)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE IF NOT EXISTS bench_anchor "
                          "(id BIGINT PRIMARY KEY, body TEXT NOT NULL)"))
    started = time.perf_counter()
    for number in range(first, first + count):
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO bench_anchor (id, body) VALUES (:i, :b)"),
                         {"i": number, "b": _leaf(number).decode()})
    anchor = count / (time.perf_counter() - started)
    return logged, anchor


def run(name: str, engine: Engine, leaves: int, appends: int) -> None:
    log = TransparencyLog(engine, KEY, "fairdeal.bench/log")
    small, small_anchor = _appends(engine, 0, appends)
    print(f"{name:10} appends at size 0..{appends}: {small:8.0f}/s   anchor insert "
          f"{small_anchor:8.0f}/s   ratio {small / small_anchor:.2f}")
    with engine.begin() as conn:  # start again from an empty log for the big tree
        for table in ("log_leaves", "log_nodes", "bench_anchor"):
            if engine.dialect.name == "sqlite":
                conn.execute(text(f"DROP TRIGGER IF EXISTS {table}_no_delete"))
                conn.execute(text(f"DELETE FROM {table}"))
            else:
                conn.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
                conn.execute(text(f"DELETE FROM {table}"))
    started = time.perf_counter()
    nodes = _bulk_load(engine, leaves)
    print(f"{name:10} bulk-loaded {leaves} leaves in {time.perf_counter() - started:.1f} s")
    size = leaves
    rng = random.Random(1)
    indices = [rng.randrange(size) for _ in range(300)]
    stored = _median_ms(lambda i=i: log.inclusion_proof(i, size) for i in indices)
    memory = _median_ms(lambda i=i: [fold([nodes[n] for n in group])
                                     for group in inclusion_nodes(i, size)] for i in indices)
    proof = log.inclusion_proof(indices[0], size)
    checkpoint_started = time.perf_counter()
    note = log.checkpoint()
    signed = (time.perf_counter() - checkpoint_started) * 1000
    cp = Checkpoint.from_note(note)[0]
    verify = _median_ms(lambda: verify_inclusion(leaf_hash(_leaf(indices[0])), indices[0],
                                                 size, proof, cp.root) for _ in range(300))
    print(f"{name:10} inclusion proof at {size} leaves: {stored:.3f} ms from the store, "
          f"{memory:.3f} ms in memory (anchor), ratio {stored / memory:.1f}; "
          f"{len(proof)} hashes; verify {verify:.3f} ms; first checkpoint {signed:.0f} ms")
    big, big_anchor = _appends(engine, size, appends)
    print(f"{name:10} appends at size {size}..{size + appends}: {big:8.0f}/s   anchor insert "
          f"{big_anchor:8.0f}/s   ratio {big / big_anchor:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=1_000_000)
    parser.add_argument("--appends", type=int, default=2_000)
    parser.add_argument("--postgres", default=os.environ.get("FAIRDEAL_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-bench-log-"))
    try:
        engine = open_engine(f"sqlite:///{folder / 'log.db'}")
        run("sqlite", engine, args.leaves, args.appends)
        engine.dispose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.postgres:
        schema = "bench_" + secrets.token_hex(4)
        engine = open_engine(args.postgres, pg_schema=schema)
        try:
            run("postgresql", engine, args.leaves, args.appends)
        finally:
            engine.dispose()
            drop_pg_schema(args.postgres, schema)


if __name__ == "__main__":
    main()
