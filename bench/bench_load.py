"""A load run: `fairdeal play -c N --duration S` (the bots, in a process of their own) against
gunicorn on SQLite and on PostgreSQL; moves per second held, p50/p99 move latency, errors,
and every match's chain verified afterwards with the pinned server key.

    .venv/bin/python bench/bench_load.py [--seconds 60] [--concurrency 16] [--postgres URL]
    make bench-load

Not a test: it prints a table (and, with --profile, a py-spy profile of one worker). The bots
share the machine's cores with the server: on the project's 2-core machine the load generator
is a good part of the load.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from fairdeal.ledger.client import ApiClient
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.verify import verify_bytes

BIN = Path(sys.executable).parent
_STATS = re.compile(r"(\d+) matches, (\d+) moves in ([\d.]+) s: (\d+) moves/s \((\d+) conflicts\)"
                    r"; move latency p50 ([\d.]+) ms, p99 ([\d.]+) ms")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(backend: str, seconds: float, concurrency: int, workers: int, threads: int,
        pg_url: str | None, profile: Path | None, server_path: str | None = None
        ) -> dict[str, Any]:
    """One load run; ``server_path`` serves another checkout's code (a folder holding
    ``fairdeal/`` with its layers: the anchor), with the same bots and the same checks."""
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-load-"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}
    env["FAIRDEAL_DATA_DIR"] = str(folder)
    env["FAIRDEAL_RATE_LIMITS"] = "off"  # the bots create matches far faster than a person
    if server_path is not None:
        env["PYTHONPATH"] = server_path
    schema = None
    url = f"sqlite:///{folder / 'ledger.db'}"
    if backend == "postgresql":
        assert pg_url is not None
        schema = "load_" + secrets.token_hex(4)
        open_engine(pg_url, pg_schema=schema).dispose()
        url = pg_url + ("&" if "?" in pg_url else "?") + f"options=-csearch_path%3D{schema}"
        env["FAIRDEAL_DATABASE_URL"] = url
    key = load_or_create_server_key(folder)
    port = _free_port()
    log = (folder / "gunicorn.log").open("wb")
    server = subprocess.Popen([str(BIN / "gunicorn"), "-w", str(workers), "--threads",
                               str(threads), "-b", f"127.0.0.1:{port}", "--log-level", "warning",
                               "fairdeal.web.app:create_app()"], env=env, stdout=log, stderr=log)
    spy = None
    try:
        client = ApiClient(f"http://127.0.0.1:{port}", timeout=2)
        client.wait_until_up(20)
        if profile is not None and (BIN / "py-spy").exists():
            worker_pid = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True,
                                        text=True).stdout.split()[0]
            spy = subprocess.Popen([str(BIN / "py-spy"), "record", "--pid", worker_pid,
                                    "--duration", str(int(min(seconds, 30))), "--format", "raw",
                                    "--output", str(profile), "--nonblocking"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        played = subprocess.run([str(BIN / "fairdeal"), "play", "--server",
                                 f"http://127.0.0.1:{port}", "--game", "arcomage", "-n",
                                 "1000000", "-c", str(concurrency), "--duration", str(seconds),
                                 "--turn-limit", "600", "--seed", "7"],
                                capture_output=True, text=True, timeout=seconds + 600)
        if spy is not None:
            spy.wait(timeout=120)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    found = _STATS.search(played.stdout)
    result: dict[str, Any] = {"backend": backend + (" (anchor)" if server_path else ""),
                              "exit": played.returncode,
                              "stderr": played.stderr[-500:]}
    if found:
        matches, moves, took, rate, conflicts, p50, p99 = found.groups()
        result.update(matches=int(matches), moves=int(moves), seconds=float(took),
                      moves_per_s=int(rate), conflicts=int(conflicts), p50_ms=float(p50),
                      p99_ms=float(p99))
    # every chain verifies: each sealed match's bundle, with the pinned server key
    engine = open_engine(url)
    ledger = Ledger(EventStore(engine), key)
    verified = failed = 0
    try:
        for row in ledger.store.matches(limit=10**6):
            data = ledger.bundle_bytes(row["id"])
            if data is None:
                continue
            report = verify_bytes(data, key.public_text)
            verified += report.ok
            failed += not report.ok
    finally:
        engine.dispose()
        if schema is not None and pg_url is not None:
            admin = create_engine(pg_url)
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()
        shutil.rmtree(folder, ignore_errors=True)
    result.update(verified=verified, failed=failed)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--postgres", default=os.environ.get("FAIRDEAL_TEST_POSTGRES_URL"))
    parser.add_argument("--profile", type=Path, default=None,
                        help="py-spy raw profile of one worker (SQLite run) to this file")
    parser.add_argument("--anchor", default=None, metavar="FOLDER",
                        help="also serve the code in FOLDER/fairdeal (e.g. the commit before a "
                        "change), alternating with this checkout in the same run")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    backends = ["sqlite"] + (["postgresql"] if args.postgres else [])
    rows = []
    for _ in range(args.rounds):
        for backend in backends:
            for path in ([args.anchor] if args.anchor else []) + [None]:
                rows.append(run(backend, args.seconds, args.concurrency, args.workers,
                                args.threads, args.postgres,
                                args.profile if backend == "sqlite" and not path else None,
                                path))
    print(f"gunicorn -w {args.workers} --threads {args.threads}; fairdeal play -c "
          f"{args.concurrency} --duration {args.seconds:g}; load average now "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'database':<20}{'moves':>8}{'s':>7}{'moves/s':>9}{'p50 ms':>8}{'p99 ms':>8}"
          f"{'errors':>8}{'409s':>6}{'verified':>10}")
    for row in rows:
        errors = 0 if row["exit"] == 0 else 1
        print(f"{row['backend']:<20}{row.get('moves', 0):>8}{row.get('seconds', 0):>7.1f}"
              f"{row.get('moves_per_s', 0):>9}{row.get('p50_ms', 0):>8.1f}"
              f"{row.get('p99_ms', 0):>8.1f}{errors:>8}{row.get('conflicts', 0):>6}"
              f"{row['verified']:>6}/{row['verified'] + row['failed']}")
        if row["exit"] != 0:
            print("  play failed:", row["stderr"])


if __name__ == "__main__":
    main()
