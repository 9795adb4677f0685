"""A load run: `fairdeal play -c N --duration S` (the bots, in a process of their own) against
gunicorn and granian on SQLite and on PostgreSQL; moves per second held, p50/p99 move latency,
errors, every match's chain verified afterwards with the pinned server key, and the CPU time
the server and the bots each spent per move (what bounds the rate on a machine whose cores
they share: at most cores / (server + bots CPU per move)).

    .venv/bin/python bench/bench_load.py [--seconds 60] [--concurrency 16] [--postgres URL]
        [--servers gunicorn,granian] [--rounds N]
    .venv/bin/python bench/bench_load.py --in-process 6   # the server's CPU without HTTP
    make bench-load

Not a test: it prints a table (and, with --profile, a py-spy profile of one worker). The bots
share the machine's cores with the server: on the project's 2-core machine the load generator
is a good part of the load.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchlib import drop_pg_schema, free_port

from fairdeal.client import ApiClient
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.verify import verify_bytes

BIN = Path(sys.executable).parent
#: `fairdeal play`'s last line; its counts in words (verifier.report.counted): "12,345 moves",
#: "1 conflict"
_STATS = re.compile(r"([\d,]+) match(?:es)?, ([\d,]+) moves? in ([\d.]+) s: (\d+) moves/s "
                    r"\(([\d,]+) conflicts?\); move latency p50 ([\d.]+) ms, p99 ([\d.]+) ms")



def server_command(server: str, port: int, workers: int, threads: int) -> list[str]:
    """gunicorn's threaded workers, or granian's (HTTP in Rust, the app in Python threads)."""
    if server == "gunicorn":
        return [str(BIN / "gunicorn"), "-w", str(workers), "--threads", str(threads), "-b",
                f"127.0.0.1:{port}", "--log-level", "warning", "fairdeal.web.app:create_app()"]
    return [str(BIN / "granian"), "--interface", "wsgi", "--factory", "--workers", str(workers),
            "--blocking-threads", str(threads), "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "warning", "fairdeal.web.app:create_app"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_cpu(pid: int) -> float:
    """CPU seconds so far of process ``pid`` and its descendants (Linux's /proc): read while
    it runs, so the server's start-up (imports, the app) is left out of the per-move figure."""
    total, pending = 0.0, [pid]
    tick = os.sysconf("SC_CLK_TCK")
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:  # gone meanwhile
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        pending.extend(int(child) for child in children)
    return total


def _postgres_cpu() -> float:
    """CPU seconds so far of this machine's PostgreSQL processes (the database shares the cores
    when it runs here; 0 when it does not, or /proc cannot tell)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, _, rest = text.partition(" (")[2].rpartition(")")
        if name.startswith("postgres"):
            fields = rest.split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def run(backend: str, seconds: float, concurrency: int, workers: int, threads: int,
        pg_url: str | None, profile: Path | None, server_path: str | None = None,
        server_name: str = "gunicorn") -> dict[str, Any]:
    """One load run; ``server_path`` serves another checkout's code (a folder holding
    ``fairdeal/`` with its layers: the anchor), its bots too, and the same checks."""
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-load-"))
    env, url, schema = _server_env(folder, backend, pg_url, server_path)
    key = load_or_create_server_key(folder)
    port = free_port()
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen(server_command(server_name, port, workers, threads), env=env,
                              stdout=log, stderr=log)
    try:
        played, cpu = _play(port, server.pid, seconds, concurrency, profile, server_path)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    label = f"{server_name}, {backend}" + (" (anchor)" if server_path else "")
    result = _result(label, played, cpu)
    if result["exit"] != 0:  # the server's side of a failure (a 500 logs its error's type)
        result["server_log"] = (folder / "server.log").read_text(errors="replace")[-1500:]
    try:
        verified, failed = _verify_all(url, key)
    finally:
        if schema is not None and pg_url is not None:
            drop_pg_schema(pg_url, schema)
        shutil.rmtree(folder, ignore_errors=True)
    result.update(verified=verified, failed=failed)
    return result


def _server_env(folder: Path, backend: str, pg_url: str | None,
                server_path: str | None) -> tuple[dict[str, str], str, str | None]:
    """The server's environment, its database URL, and the PostgreSQL schema made for the
    run (None on SQLite): a fresh data folder and database each run, rate limits off."""
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
    return env, url, schema


def _play(port: int, server_pid: int, seconds: float, concurrency: int,
          profile: Path | None, bots_path: str | None
          ) -> tuple[subprocess.CompletedProcess[str], dict[str, float]]:
    """`fairdeal play` against the server once it is up (with a py-spy profile of one worker
    if asked), and the CPU seconds the server, the bots and PostgreSQL spent meanwhile.
    ``bots_path`` plays another checkout's bots (the anchor's, like its server): the bots'
    CPU a move is half of what bounds the rate."""
    client = ApiClient(f"http://127.0.0.1:{port}", timeout=2)
    client.wait_until_up(20)
    server_before, bots_before = _tree_cpu(server_pid), _children_cpu()
    database_before = _postgres_cpu()
    spy = None
    if profile is not None and (BIN / "py-spy").exists():
        worker_pid = subprocess.run(["pgrep", "-P", str(server_pid)], capture_output=True,
                                    text=True).stdout.split()[0]
        spy = subprocess.Popen([str(BIN / "py-spy"), "record", "--pid", worker_pid,
                                "--duration", str(int(min(seconds, 30))), "--format", "raw",
                                "--output", str(profile), "--nonblocking"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    played = subprocess.run([str(BIN / "fairdeal"), "play", "--server",
                             f"http://127.0.0.1:{port}", "--game", "arcomage", "-n",
                             "1000000", "-c", str(concurrency), "--duration", str(seconds),
                             "--turn-limit", "600", "--seed", "7"],
                            capture_output=True, text=True, timeout=seconds + 600,
                            env=_bots_env(bots_path))
    cpu = {"bots": _children_cpu() - bots_before,
           "server": _tree_cpu(server_pid) - server_before,
           "database": _postgres_cpu() - database_before}
    if spy is not None:
        spy.wait(timeout=120)
    return played, cpu


def _bots_env(bots_path: str | None) -> dict[str, str]:
    """The bots' environment: this one, or with ``bots_path`` (a folder holding ``fairdeal/``)
    first on the path."""
    env = dict(os.environ)
    if bots_path is not None:
        env["PYTHONPATH"] = bots_path
    return env


def _result(label: str, played: subprocess.CompletedProcess[str],
            cpu: dict[str, float]) -> dict[str, Any]:
    """The run's row: what `fairdeal play` reported, and the CPU milliseconds per move."""
    found = _STATS.search(played.stdout)
    result: dict[str, Any] = {"backend": label, "exit": played.returncode,
                              "stderr": played.stderr[-500:]}
    if found:
        matches, moves, took, rate, conflicts, p50, p99 = (
            group.replace(",", "") for group in found.groups())
        result.update(matches=int(matches), moves=int(moves), seconds=float(took),
                      moves_per_s=int(rate), conflicts=int(conflicts), p50_ms=float(p50),
                      p99_ms=float(p99), server_ms=1000 * cpu["server"] / max(1, int(moves)),
                      bots_ms=1000 * cpu["bots"] / max(1, int(moves)),
                      database_ms=1000 * cpu["database"] / max(1, int(moves)))
    elif played.returncode == 0:
        result.update(exit=1, stderr="no figures in what play printed: "
                      + played.stdout[-300:])
    return result


def _verify_all(url: str, key: SigningKey) -> tuple[int, int]:
    """Every chain verifies: each sealed match's bundle, with the pinned server key; how many
    did and how many did not."""
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
    return verified, failed


def in_process(matches: int, seed: int = 7) -> dict[str, float]:
    """The server's CPU without HTTP: the bots' ``play_match`` through an ``ApiClient`` whose
    requests are WSGI calls of the app in this process (a fresh SQLite data folder), each
    request's thread CPU counted. Returns the medians, in µs, of a move's POST and of a seat's
    GET, and the server's CPU a move (every request of the matches: creation, seats, seeds,
    bundles). Run it from each checkout in turn to compare two builds."""
    import random
    import statistics
    import time

    from werkzeug.test import EnvironBuilder

    from fairdeal.client import play_match
    from fairdeal.web.app import create_app

    folder = Path(tempfile.mkdtemp(prefix="fairdeal-wsgi-"))
    app = create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False,
                      "FAIRDEAL_RATE_LIMITS": "off"})
    spent: dict[str, list[float]] = {"post": [], "get": [], "all": []}

    class InProcess(ApiClient):
        def raw(self, method: str, path: str, data: bytes | None = None,
                token: str | None = None) -> tuple[int, bytes]:
            route, _, query = (self._prefix + path).partition("?")
            headers = {"Accept": "application/json"}
            if token is not None:
                headers["Authorization"] = f"Bearer {token}"
            environ = EnvironBuilder(
                path=route, base_url="http://127.0.0.1:8000", query_string=query,
                method=method, headers=headers, data=data,
                content_type="application/json" if data is not None else None,
                environ_base={"REMOTE_ADDR": "127.0.0.1"}, multithread=True).get_environ()
            status: list[str] = []
            started = time.thread_time()
            answer = app(environ, lambda line, headers, exc_info=None: status.append(line))
            body = b"".join(answer)
            getattr(answer, "close", lambda: None)()
            took = time.thread_time() - started
            spent["all"].append(took)
            if route.endswith("/actions"):
                spent["post"].append(took)
            elif method == "GET" and token is not None and route.count("/") == 4:
                spent["get"].append(took)
            return int(status[0].split()[0]), body

    client = InProcess("http://127.0.0.1:8000")
    key = client.call("GET", "/keys")["keys"][0]["key"]
    master = random.Random(seed)
    moves = sum(play_match(client, "arcomage", rng=random.Random(master.randbytes(16)),
                           server_key=key)["moves"] for _ in range(matches))
    shutil.rmtree(folder, ignore_errors=True)
    return {"post_us": 1e6 * statistics.median(spent["post"]),
            "get_us": 1e6 * statistics.median(spent["get"]),
            "server_us_a_move": 1e6 * sum(spent["all"]) / max(1, moves), "moves": moves}


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
                        help="also serve and play the code in FOLDER/fairdeal (e.g. the commit "
                        "before a change), alternating with this checkout in the same run")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--servers", default="gunicorn,granian",
                        help="which WSGI servers, alternating in each round")
    parser.add_argument("--in-process", type=int, default=0, metavar="MATCHES",
                        help="only the server's CPU without HTTP: MATCHES matches through "
                        "WSGI calls in this process (run from each checkout in turn)")
    args = parser.parse_args()
    if args.in_process:
        figures = in_process(args.in_process)
        print(f"in-process, {figures['moves']:.0f} moves: a move's POST "
              f"{figures['post_us']:.0f} µs, a seat's GET {figures['get_us']:.0f} µs (medians "
              f"of thread CPU); the server's CPU a move {figures['server_us_a_move']:.0f} µs; "
              f"load average {os.getloadavg()[0]:.1f}")
        return
    backends = ["sqlite"] + (["postgresql"] if args.postgres else [])
    servers = [name.strip() for name in args.servers.split(",") if name.strip()]
    for name in servers:
        if name not in ("gunicorn", "granian") or not (BIN / name).exists():
            parser.error(f"no server {name!r} here (gunicorn and granian come with "
                         "pip install 'fairdeal[server]')")
    rows = []
    for _ in range(args.rounds):
        for backend in backends:
            for server_name in servers:
                for path in ([args.anchor] if args.anchor else []) + [None]:
                    profiled = backend == "sqlite" and not path and server_name == servers[0]
                    rows.append(run(backend, args.seconds, args.concurrency, args.workers,
                                    args.threads, args.postgres,
                                    args.profile if profiled else None, path, server_name))
    print(f"{args.workers} workers x {args.threads} threads; fairdeal play -c "
          f"{args.concurrency} --duration {args.seconds:g}; load average now "
          f"{os.getloadavg()[0]:.1f}; CPU ms per move of the server (all its processes), "
          f"the bots and this machine's PostgreSQL; {os.cpu_count()} cores")
    print(f"{'server, database':<22}{'moves':>8}{'s':>7}{'moves/s':>9}{'p50 ms':>8}"
          f"{'p99 ms':>8}{'errors':>8}{'409s':>6}{'verified':>10}{'server':>8}{'bots':>6}"
          f"{'pg':>6}")
    for row in rows:
        errors = 0 if row["exit"] == 0 else 1
        print(f"{row['backend']:<22}{row.get('moves', 0):>8}{row.get('seconds', 0):>7.1f}"
              f"{row.get('moves_per_s', 0):>9}{row.get('p50_ms', 0):>8.1f}"
              f"{row.get('p99_ms', 0):>8.1f}{errors:>8}{row.get('conflicts', 0):>6}"
              f"{row['verified']:>6}/{row['verified'] + row['failed']}"
              f"{row.get('server_ms', 0):>8.2f}{row.get('bots_ms', 0):>6.2f}"
              f"{row.get('database_ms', 0):>6.2f}")
        if row["exit"] != 0:
            print("  play failed:", row["stderr"])
            print("  the server's log ends:", row.get("server_log", ""))


if __name__ == "__main__":
    main()
