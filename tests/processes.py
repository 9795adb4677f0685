"""What the tests that run `fairdeal` as a process share: the command, a free local port, a
`fairdeal serve` process to start, SIGKILL and stop, the database it is given (the data
folder's SQLite file or a fresh PostgreSQL schema), and the command lines of the production
WSGI servers fairdeal is run under (gunicorn, granian)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

#: the installed `fairdeal` command of this environment
FAIRDEAL = str(Path(sys.executable).parent / "fairdeal")
#: the production servers, as docs/ledger.md runs them (both in the test extra)
WSGI_SERVERS = ("gunicorn", "granian")
PG_ENV = "FAIRDEAL_TEST_POSTGRES_URL"


@contextmanager
def fresh_database(backend: str) -> Iterator[str | None]:
    """None for the data folder's SQLite file (``backend`` "sqlite"), or the URL of a fresh
    PostgreSQL schema, dropped afterwards (skips without FAIRDEAL_TEST_POSTGRES_URL)."""
    if backend == "sqlite":
        yield None
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"PostgreSQL tests need a server: set {PG_ENV}, e.g. "
                    "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    from sqlalchemy import create_engine, text

    from fairdeal.ledger.store import open_engine

    schema = "t_" + secrets.token_hex(6)
    open_engine(base, pg_schema=schema).dispose()
    try:
        yield base + ("&" if "?" in base else "?") + f"options=-csearch_path%3D{schema}"
    finally:
        admin = create_engine(base)
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


def wsgi_server_command(server: str, port: int, workers: int = 2, threads: int = 4,
                        app: str | None = None) -> list[str]:
    """The command that serves fairdeal's app factory with ``server`` on 127.0.0.1:``port``,
    or ``app`` (``"module:name"``, a plain WSGI app) in its place."""
    program = str(Path(sys.executable).parent / server)
    if server == "gunicorn":
        return [program, "-w", str(workers), "--threads", str(threads), "-b",
                f"127.0.0.1:{port}", app or "fairdeal.web.app:create_app()"]
    if server == "granian":
        return [program, "--interface", "wsgi", *([] if app else ["--factory"]), "--workers",
                str(workers), "--blocking-threads", str(threads), "--host", "127.0.0.1",
                "--port", str(port), "--log-level", "warning",
                app or "fairdeal.web.app:create_app"]
    raise ValueError(f"no such server: {server}")


def free_port() -> int:
    """A local TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServeProcess:
    """`fairdeal serve` on a data folder (its SQLite file, or ``database_url``), on a free port;
    the environment's FAIRDEAL_DATABASE_URL and FAIRDEAL_DATA_DIR never leak into it."""

    def __init__(self, data_dir: Path, database_url: str | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "serve.log"
        self.extra_env = dict(env or {})
        #: the global options every `fairdeal` call against this server's data uses
        self.options = ["--data-dir", str(data_dir)]
        if database_url is not None:
            self.options += ["--database-url", database_url]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, wait_s: float = 30) -> None:
        from fairdeal.client import ApiClient

        env = {name: value for name, value in os.environ.items()
               if name not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}
        env.update(self.extra_env)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [FAIRDEAL, *self.options, "serve", "--port", str(self.port)],
                stdout=log, stderr=log, env=env)
        if not ApiClient(self.url, timeout=2).wait_until_up(wait_s):
            raise AssertionError("the server did not start: " + self.log.read_text()[-2000:])

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
