"""Faults: the server SIGKILLed mid-write again and again, the SQLite file's disk full, and
PostgreSQL stopped and started during a stream of moves. In each: no acknowledged move lost,
no half-written event (the stored events replay as a chain under the rules, SQLite's
integrity check passes), a 503 with Retry-After while the database is away, and recovery
without a manual step.

``FAIRDEAL_KILL_ROUNDS`` sets how many times the server is killed (3 here; ``make faults``
runs 100)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from fairdeal.client import ApiClient
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.web.app import create_app

from .faults import PG_BIN, MoveStream, PrivatePostgres, ServeProcess, check_stored

KILL_ROUNDS = int(os.environ.get("FAIRDEAL_KILL_ROUNDS", "3"))


def _flask_call(client: Any) -> Callable[..., tuple[int, Any, Any]]:
    def call(method: str, path: str, body: Any = None, token: str | None = None
             ) -> tuple[int, Any, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = client.open("/api/v1" + path, method=method, json=body, headers=headers)
        return response.status_code, response.get_json(), response.headers
    return call


class _Streams:
    """Matches played one after another in a thread until ``stop``."""

    def __init__(self, call: Callable[..., tuple[int, Any, Any]]) -> None:
        self.call = call
        self.streams = [MoveStream(call, seed=1)]
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _play(self) -> None:
        try:
            while not self.done.is_set():
                if not self.streams[-1].step():
                    self.streams.append(MoveStream(self.call, seed=len(self.streams) + 1))
        except BaseException as e:  # noqa: BLE001  reported by stop()
            self.error = e

    @property
    def acknowledged(self) -> int:
        return sum(len(stream.acknowledged) for stream in self.streams)

    @property
    def unavailable(self) -> int:
        return sum(stream.unavailable for stream in self.streams)

    def wait_for(self, count: int, timeout: float = 120) -> None:
        give_up = time.monotonic() + timeout
        while self.acknowledged < count:
            assert self.error is None, self.error
            assert time.monotonic() < give_up, "no progress"
            time.sleep(0.005)

    def stop(self) -> None:
        self.done.set()
        self.thread.join(timeout=180)
        if self.error is not None:
            raise self.error

    def check(self, store: EventStore) -> None:
        for stream in self.streams:
            row = store.match(stream.match_id)
            assert row is not None
            events = [stored.to_json() for stored in store.read(stream.match_id)]
            check_stored(events, stream.acknowledged, bytes.fromhex(row["server_seed"]))


def test_sigkill_mid_write_again_and_again_loses_no_acknowledged_move(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, env={"FAIRDEAL_RATE_LIMITS": "off"})
    server.start()
    client = ApiClient(f"http://127.0.0.1:{server.port}", timeout=5)

    def call(method: str, path: str, body: Any = None, token: str | None = None
             ) -> tuple[int, Any, Any]:
        data = None if body is None else json.dumps(body).encode()
        status, raw = client.raw(method, path, data, token)
        return status, json.loads(raw) if raw else None, {}

    streams = _Streams(call)
    rng = random.Random(11)
    try:
        for _ in range(KILL_ROUNDS):
            streams.wait_for(streams.acknowledged + 2)
            time.sleep(rng.random() * 0.03)  # somewhere in a request: reading, writing, answering
            server.kill()
            server.start()
        streams.wait_for(streams.acknowledged + 2)
        streams.stop()
    finally:
        streams.done.set()
        server.stop()
    assert sum(stream.network_errors for stream in streams.streams) >= 1
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        streams.check(EventStore(engine))
    finally:
        engine.dispose()
    assert "Traceback" not in server.log.read_text()


@pytest.fixture
def small_disk() -> Iterator[tuple[Path, Callable[[], None], Callable[[], None]]]:
    """A 32 MiB tmpfs (we run as root, here and in CI), with fill() and free(): a file that
    takes every byte left, and its removal. (SQLite's WAL alone grows to 4 MiB before its
    checkpoint.)"""
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-disk-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(folder)],
                             capture_output=True, text=True)
    assert mounted.returncode == 0, ("the disk-full test mounts a small tmpfs and needs root: "
                                     + mounted.stderr)
    filler = folder / "filler"

    def fill() -> None:
        try:
            with filler.open("ab") as out:
                while True:
                    out.write(b"\0" * 65536)
                    out.flush()
        except OSError:  # no space left: that is the point
            pass

    def free() -> None:
        filler.unlink(missing_ok=True)

    try:
        yield folder, fill, free
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_full_disk_is_a_503_and_writes_resume_once_there_is_room(small_disk: Any) -> None:
    folder, fill, free = small_disk
    engine = open_engine(f"sqlite:///{folder / 'ledger.db'}")
    ledger = Ledger(EventStore(engine), load_or_create_server_key(folder))
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                      "FAIRDEAL_RATE_LIMITS": "off"})
    stream = MoveStream(_flask_call(app.test_client()), seed=3)
    for _ in range(5):
        stream.step()
    fill()

    def make_room() -> None:  # an operator frees space a moment after the first 503
        while stream.unavailable == 0:
            time.sleep(0.01)
        time.sleep(0.3)
        free()

    helper = threading.Thread(target=make_room, daemon=True)
    helper.start()
    try:
        for _ in range(400):
            if not stream.step() or (stream.unavailable and len(stream.acknowledged) > 12):
                break
    finally:
        free()
    helper.join(timeout=10)
    assert stream.unavailable >= 1 and stream.retry_after == {"1"}
    assert len(stream.acknowledged) > 6  # it went on after the disk had room again
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
    row = ledger.store.match(stream.match_id)
    check_stored([stored.to_json() for stored in ledger.store.read(stream.match_id)],
                 stream.acknowledged, bytes.fromhex(row["server_seed"]))
    engine.dispose()


@pytest.mark.postgres
@pytest.mark.skipif(PG_BIN is None, reason="needs PostgreSQL's server binaries (initdb)")
def test_postgresql_stopped_and_started_during_a_stream_loses_nothing() -> None:
    cluster = PrivatePostgres()
    cluster.start()
    engine = None
    try:
        engine = open_engine(cluster.url)
        folder = Path(tempfile.mkdtemp(prefix="fairdeal-pgkey-"))
        ledger = Ledger(EventStore(engine), load_or_create_server_key(folder))
        app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                          "FAIRDEAL_RATE_LIMITS": "off"})
        streams = _Streams(_flask_call(app.test_client()))
        try:
            for _ in range(2):
                streams.wait_for(streams.acknowledged + 3)
                cluster.stop()
                time.sleep(1.0)
                cluster.start()
            streams.wait_for(streams.acknowledged + 3)
        finally:
            streams.stop()
        assert streams.unavailable >= 1
        assert {value for stream in streams.streams for value in stream.retry_after} == {"1"}
        streams.check(EventStore(engine))
    finally:
        if engine is not None:
            engine.dispose()
        cluster.destroy()


def test_the_disk_full_equivalent_without_root_is_the_same_503(tmp_path: Path) -> None:
    """Where no tmpfs can be mounted, SQLite's own size limit (max_page_count) makes the same
    SQLITE_FULL error: the same 503, the same recovery."""
    limit = {"pages": 0}
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")

    @event.listens_for(engine, "connect")
    def _cap(connection: Any, _: Any) -> None:
        if limit["pages"]:
            connection.execute(f"PRAGMA max_page_count = {limit['pages']}")

    engine.dispose()
    ledger = Ledger(EventStore(engine), load_or_create_server_key(tmp_path))
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                      "FAIRDEAL_RATE_LIMITS": "off"})
    client = app.test_client()
    stream = MoveStream(_flask_call(client), seed=4)
    with engine.connect() as conn:
        pages = conn.execute(text("PRAGMA page_count")).scalar()
    limit["pages"] = int(pages)
    engine.dispose()
    created = client.post("/api/v1/matches", json={"game": "wyrdstone"})
    for _ in range(50):
        if created.status_code == 503:
            break
        created = client.post("/api/v1/matches", json={"game": "wyrdstone"})
    assert created.status_code == 503
    assert created.headers["Retry-After"] == "1"
    assert "disk is full" in created.get_json()["error"]["message"]
    limit["pages"] = 0
    engine.dispose()
    for _ in range(5):
        stream.step()
    assert len(stream.acknowledged) >= 4
