"""Benchmark: live streams under the production servers. For each server configuration it
opens N streams (GET /api/v1/matches/ID/stream, held open, read by raw sockets), then measures
what everyone else gets meanwhile — GET /api/v1/matches/ID, median and worst of 20, or the
count that timed out after 2 s — and how long a move takes to reach a stream (POST of the move
answered → its frame read; median of 20 moves).

    python bench/bench_stream.py [--streams 8] [--database-url URL]

Configurations: gunicorn's sync worker (each stream holds a whole worker), gunicorn gthread
with few and with many threads, granian with few and many blocking threads; two workers each.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fairdeal.client import ApiClient

BIN = Path(sys.executable).parent
CONFIGS = {
    "gunicorn sync -w 2": ["gunicorn", "-w", "2"],
    "gunicorn gthread -w 2 --threads 4": ["gunicorn", "-w", "2", "--threads", "4"],
    "gunicorn gthread -w 2 --threads 40": ["gunicorn", "-w", "2", "--threads", "40"],
    "granian -w 2 --blocking-threads 4": ["granian", "--workers", "2", "--blocking-threads", "4"],
    "granian -w 2 --blocking-threads 40": ["granian", "--workers", "2",
                                           "--blocking-threads", "40"],
}


def _command(words: list[str], port: int) -> list[str]:
    program, *rest = words
    if program == "gunicorn":
        return [str(BIN / "gunicorn"), *rest, "-b", f"127.0.0.1:{port}",
                "fairdeal.web.app:create_app()"]
    return [str(BIN / "granian"), "--interface", "wsgi", "--factory", *rest, "--host",
            "127.0.0.1", "--port", str(port), "--log-level", "warning",
            "fairdeal.web.app:create_app"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _open_stream(port: int, match_id: str) -> tuple[socket.socket, Any]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET /api/v1/matches/{match_id}/stream HTTP/1.1\r\nHost: x\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    return sock, sock.makefile("rb")


def _others(port: int, match_id: str) -> tuple[float, float, int]:
    """Median and worst ms of 20 GETs of the match, and how many took over 2 s."""
    times, late = [], 0
    for _ in range(20):
        client = ApiClient(f"http://127.0.0.1:{port}", timeout=2)
        started = time.perf_counter()
        try:
            client.call("GET", f"/matches/{match_id}")
            times.append((time.perf_counter() - started) * 1000)
        except OSError:
            late += 1
    if not times:
        return float("nan"), float("nan"), late
    return statistics.median(times), max(times), late


def _delivery(port: int, match_id: str, tokens: list[str], reader: Any) -> float:
    """Median ms from a move's answer to its frame on the stream ``reader``."""
    client = ApiClient(f"http://127.0.0.1:{port}", timeout=5)
    waits = []
    for number in range(20):
        view = client.call("GET", f"/matches/{match_id}")
        if view["status"] != "playing":
            break
        token = tokens[view["current_seat"]]
        mine = client.call("GET", f"/matches/{match_id}", token=token)
        answer = client.call("POST", f"/matches/{match_id}/actions",
                             {"action": mine["legal_actions"][0],
                              "expected_seq": mine["next_seq"], "action_id": f"b{number}"},
                             token)
        done = time.perf_counter()
        wanted = f"id: {answer['event']['seq']}\n".encode()
        while reader.readline() != wanted:
            pass
        waits.append((time.perf_counter() - done) * 1000)
    return statistics.median(waits)


def run(name: str, words: list[str], streams: int, database_url: str | None) -> str:
    port = _free_port()
    env = {**os.environ, "FAIRDEAL_DATA_DIR": tempfile.mkdtemp(prefix="bench-stream-"),
           "FAIRDEAL_RATE_LIMITS": "off", "FAIRDEAL_STREAM_HEARTBEAT_S": "1"}
    env.pop("FAIRDEAL_DATABASE_URL", None)
    if database_url:
        env["FAIRDEAL_DATABASE_URL"] = database_url
    process = subprocess.Popen(_command(words, port), env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    held: list[socket.socket] = []
    try:
        client = ApiClient(f"http://127.0.0.1:{port}", timeout=5)
        assert client.wait_until_up(60), f"{name} did not start"
        created = client.call("POST", "/matches", {"game": "arcomage", "turn_limit_ms": None})
        match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
        for token in tokens:
            client.call("POST", f"/matches/{match_id}/seed", {"client_seed": None}, token)
        before = _others(port, match_id)
        readers = []
        for _ in range(streams):
            sock, reader = _open_stream(port, match_id)
            held.append(sock)
            readers.append(reader)
        time.sleep(1.0)
        during = _others(port, match_id)
        delivery = (_delivery(port, match_id, tokens, readers[-1])
                    if during[2] == 0 else float("nan"))
        return (f"| {name} | {before[0]:.1f} | {during[0]:.1f} / {during[1]:.0f} | "
                f"{during[2]} of 20 | {delivery:.0f} |")
    finally:
        for sock in held:
            sock.close()
        process.terminate()
        try:
            process.wait(40)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--only", default=None, help="Only configurations naming this.")
    args = parser.parse_args()
    print(f"{args.streams} streams open; GET /matches/ID ms: median alone | median / worst "
          "with the streams open | over 2 s | move → stream ms (median)")
    print("| server | alone | with streams | timed out | delivery |")
    print("| --- | --- | --- | --- | --- |")
    for name, words in CONFIGS.items():
        if args.only and args.only not in name:
            continue
        print(run(name, words, args.streams, args.database_url), flush=True)


if __name__ == "__main__":
    main()
