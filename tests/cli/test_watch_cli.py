"""`fairdeal watch ID` as a real process against a real `fairdeal serve`: each event in words
as the match is played, resumed without a gap or a repeat after the server is killed and
restarted mid-match, exit 0 at the end; --json lines are the API's events; clear errors for an
unknown match, a server that is not there and a URL that is not one."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from fairdeal.client import ApiClient
from fairdeal.games import get_game

from ..processes import FAIRDEAL, ServeProcess, free_port


class Players:
    """Both seats of an untimed match, each move the first legal action, retried through a
    server restart (a retried move is answered as the same move: ``action_id``)."""

    def __init__(self, url: str) -> None:
        self.client = ApiClient(url, timeout=5)
        created = self.client.call("POST", "/matches", {"game": "arcomage",
                                                       "turn_limit_ms": None})
        self.id = created["id"]
        self.tokens = [seat["token"] for seat in created["seats"]]
        for token in self.tokens:
            self.call("POST", f"/matches/{self.id}/seed", {"client_seed": None}, token)
        self.moves = 0

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        for _ in range(400):
            try:
                return self.client.call(method, path, body, token)
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the server never came back")

    def move(self) -> bool:
        """One move; False once the match is over."""
        view = self.call("GET", f"/matches/{self.id}")
        if view["status"] != "playing":
            return False
        token = self.tokens[view["current_seat"]]
        mine = self.call("GET", f"/matches/{self.id}", token=token)
        self.call("POST", f"/matches/{self.id}/actions",
                  {"action": mine["legal_actions"][0], "expected_seq": mine["next_seq"],
                   "action_id": f"a{self.moves}"}, token)
        self.moves += 1
        return True


def _watch(server: ServeProcess, match_id: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([FAIRDEAL, "watch", match_id, "--server", server.url, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_watch_prints_each_event_in_words_and_resumes_after_the_server_restarts(
        tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, env={"FAIRDEAL_STREAM_HEARTBEAT_S": "0.3",
                                         "FAIRDEAL_STREAM_IDLE_S": "1"})
    server.start()
    try:
        players = Players(server.url)
        for _ in range(3):
            players.move()
        watcher = _watch(server, players.id)
        lines: list[str] = []
        said: list[str] = []  # the watcher's stderr, read as it is written
        reader = threading.Thread(target=lambda: lines.extend(watcher.stdout), daemon=True)
        reader.start()
        listener = threading.Thread(target=lambda: said.extend(watcher.stderr), daemon=True)
        listener.start()

        def until(done: Any, what: str) -> None:
            deadline = time.monotonic() + 20
            while not done():
                assert time.monotonic() < deadline, (what, lines, said)
                time.sleep(0.05)

        until(lambda: any(line.startswith("#5  ") for line in lines), "event 5 printed")
        server.kill()  # mid-match: the watcher loses its connection
        until(lambda: any("connection lost" in line for line in said), "connection lost")
        server.start()
        lost = len(said)
        # nothing played for a while: the restarted server closes the quiet stream (1 s idle)
        until(lambda: any("no event for a while" in line for line in said[lost:]), "idle close")
        while players.move():
            pass
        assert watcher.wait(60) == 0
        reader.join(5)
        listener.join(5)
        stderr = "".join(said)
    finally:
        server.stop()
    lines = [line.rstrip("\n") for line in lines]
    numbers = [int(line.split()[0][1:]) for line in lines if line.startswith("#")]
    assert numbers == list(range(len(numbers))), numbers  # none missed, none twice
    assert "connection lost" in stderr and "resuming after event" in stderr
    assert "no event for a while; listening again after event" in stderr
    title = get_game("arcomage").title
    assert lines[0].startswith("#0  ")
    assert lines[0].split("  ", 2)[2].startswith(
        f"match created: {title}, player A vs player B; the deal is committed to ")
    assert lines[1].endswith("  seat A (player A) declines to add a seed")
    assert lines[-2].split("  ")[2].startswith("the server reveals the deal's seed; "
                                               "the match is over: ")
    assert lines[-1].startswith("ended: ") and ("won" in lines[-1] or "draw" in lines[-1])
    assert all("Z  " in line for line in lines[:-1])  # UTC times


def test_watch_json_lines_are_the_api_events(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path)
    server.start()
    try:
        players = Players(server.url)
        while players.move():
            pass
        done = subprocess.run([FAIRDEAL, "watch", players.id, "--server", server.url,
                               "--json"], capture_output=True, text=True, timeout=60)
        answer = players.call("GET", f"/matches/{players.id}/events")
        later = subprocess.run([FAIRDEAL, "watch", players.id, "--server", server.url,
                                "--json", "--after", "5"], capture_output=True, text=True,
                               timeout=60)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    items = [json.loads(line) for line in done.stdout.splitlines()]
    assert [item["event"] for item in items[:-1]] == answer["events"]
    assert all(item["kind"] == "event" for item in items[:-1])
    assert items[-1]["kind"] == "end" and items[-1]["status"] == "ended"
    assert isinstance(items[-1]["result"]["winner"], (int, type(None)))
    resumed = [json.loads(line) for line in later.stdout.splitlines()]
    assert resumed[0]["event"]["seq"] == 6


def test_watch_errors_are_clear(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path)
    server.start()
    try:
        unknown = subprocess.run([FAIRDEAL, "watch", "0123456789abcdef", "--server",
                                  server.url], capture_output=True, text=True, timeout=30)
    finally:
        server.stop()
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == f"Error: {server.url} has no match '0123456789abcdef'"
    nobody = f"http://127.0.0.1:{free_port()}"
    gone = subprocess.run([FAIRDEAL, "watch", "0123456789abcdef", "--server", nobody],
                          capture_output=True, text=True, timeout=30)
    assert gone.returncode == 1 and gone.stderr.startswith(f"Error: cannot reach {nobody}")
    assert "Traceback" not in gone.stderr
    bad = subprocess.run([FAIRDEAL, "watch", "x", "--server", "ftp://example.org"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "not an http(s) URL: 'ftp://example.org'" in bad.stderr
