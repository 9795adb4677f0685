"""What the benchmarks share: a free local port, dropping a PostgreSQL schema made for a run,
timing a set of threads from their start to the last one's end, and a process's CPU with its
children's. (A bench runs as a script
from bench/, so ``import benchlib`` finds this file.)"""

from __future__ import annotations

import resource
import socket
import threading
import time

from sqlalchemy import create_engine, text

__all__ = ["cpu_seconds", "drop_pg_schema", "free_port", "run_threads"]


def free_port() -> int:
    """A local TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def drop_pg_schema(url: str, schema: str) -> None:
    """Drop ``schema`` and everything in it from the PostgreSQL database at ``url``."""
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    admin.dispose()


def run_threads(threads: list[threading.Thread]) -> float:
    """Start every thread, wait for all; the wall-clock seconds that took."""
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start


def cpu_seconds() -> float:
    """This process's CPU seconds and those of its finished children (drawing processes, say:
    the CPU is what a loaded machine disturbs least)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime
