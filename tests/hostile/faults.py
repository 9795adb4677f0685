"""Helpers of the fault tests: a `fairdeal serve` process to kill, a private PostgreSQL cluster
to stop and start (initdb in a temp dir, on a port of its own: the shared server is never
touched), and a stream of moves that retries what the server could not do and remembers every
move it acknowledged."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..processes import ServeProcess, free_port

__all__ = ["PG_BIN", "MoveStream", "PrivatePostgres", "ServeProcess", "check_stored"]

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None) \
    if Path("/usr/lib/postgresql").exists() else None


class PrivatePostgres:
    """A PostgreSQL cluster of our own in a temp dir, on its own port, run as the postgres
    user when we are root (initdb refuses root). Stop and start it as often as wanted."""

    def __init__(self) -> None:
        assert PG_BIN is not None
        self.folder = Path(tempfile.mkdtemp(prefix="fairdeal-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync")
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(PG_BIN / tool), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check,
                              timeout=120)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-w", "-l", str(self.folder / "log"),
                  "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                  "-c fsync=on", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "fast", "stop", check=False)

    def destroy(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


class MoveStream:
    """Random legal moves of one match through ``call(method, path, body, token) -> (status,
    json, headers)``. What the server could not do (503, a network error) is retried with the
    same request — same action, same expected_seq, same action_id — so it is safe whether or
    not the first try was stored. ``acknowledged`` maps action_id -> (seq, action) of every
    move the server answered 201/200 for."""

    def __init__(self, call: Callable[..., tuple[int, Any, Any]], game: str = "arcomage",
                 seed: int = 1) -> None:
        self.call = call
        self.rng = random.Random(seed)
        self.acknowledged: dict[str, tuple[int, Any]] = {}
        self.unavailable = 0
        self.network_errors = 0
        self.retry_after: set[str] = set()
        status, created, _ = self._retry("POST", "/matches",
                                         {"game": game, "turn_limit_ms": None})
        assert status == 201, created
        self.match_id = created["id"]
        self.tokens = [seat["token"] for seat in created["seats"]]
        for token in self.tokens:
            self._retry("POST", f"/matches/{self.match_id}/seed", {"client_seed": None}, token)
        self.count = 0

    def _retry(self, method: str, path: str, body: Any = None, token: str | None = None,
               patience_s: float = 120) -> tuple[int, Any, Any]:
        give_up = time.monotonic() + patience_s
        while True:
            try:
                status, value, headers = self.call(method, path, body, token)
            except OSError:
                self.network_errors += 1
                status, value, headers = 0, None, {}
            if status == 503:
                self.unavailable += 1
                self.retry_after.add(headers.get("Retry-After", ""))
                assert value["error"]["code"] == "database-unavailable", value
            if status not in (0, 503):
                return status, value, headers
            if time.monotonic() > give_up:
                raise AssertionError(f"{method} {path}: the server never came back")
            time.sleep(0.05)

    def step(self) -> bool:
        """One move; False once the match is over."""
        status, public, _ = self._retry("GET", f"/matches/{self.match_id}")
        assert status == 200, public
        if public["status"] == "ended":
            return False
        seat = public["current_seat"]
        token = self.tokens[seat]
        status, view, _ = self._retry("GET", f"/matches/{self.match_id}", token=token)
        assert status == 200, view
        self.count += 1
        body = {"action": self.rng.choice(view["legal_actions"]),
                "expected_seq": view["next_seq"], "action_id": f"{self.match_id}-{self.count}"}
        status, answer, _ = self._retry("POST", f"/matches/{self.match_id}/actions", body, token)
        if status in (200, 201):
            self.acknowledged[body["action_id"]] = (answer["event"]["seq"],
                                                    answer["event"]["action"])
        else:  # another try of this very move landed first, or the match ended meanwhile
            assert status in (409, 422), answer
        return True


def check_stored(events: list[dict[str, Any]], acknowledged: dict[str, tuple[int, Any]],
                 server_seed: bytes) -> None:
    """Every acknowledged move is stored where it was acknowledged, and the stored events
    replay as a chain under the rules (no half-written or reordered event)."""
    from fairdeal.verifier.record import MatchRecorder

    MatchRecorder.resume(events, server_seed)  # raises on any broken link or illegal move
    by_id = {event.get("action_id"): event for event in events if event["type"] == "move"}
    for action_id, (seq, action) in acknowledged.items():
        assert action_id in by_id, f"acknowledged move {action_id} was lost"
        assert (by_id[action_id]["seq"], by_id[action_id]["action"]) == (seq, action)
    assert [event["seq"] for event in events] == list(range(len(events)))
