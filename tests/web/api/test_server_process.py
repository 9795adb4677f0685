"""Through a real `fairdeal serve` process: a match played over HTTP, the server killed with
SIGKILL in the middle of a stream of moves and restarted; every acknowledged move is in the
sealed bundle, which `fairdeal verify` accepts with the pinned server key."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from fairdeal.client import ApiClient, ApiError

from ...processes import FAIRDEAL, ServeProcess, free_port, fresh_database


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path):
    """A `fairdeal serve` process on a SQLite file, or on PostgreSQL (a fresh schema)."""
    with fresh_database(request.param) as url:
        server = ServeProcess(tmp_path, url)
        server.start()
        yield server
        server.stop()


def _retrying(client: ApiClient, method: str, path: str, body: Any = None,
              token: str | None = None) -> Any:
    """Retry network failures (the server is down) with the same request: retries are safe."""
    for _ in range(300):
        try:
            return client.call(method, path, body, token)
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the server never came back")


def test_killed_mid_stream_and_restarted_loses_no_acknowledged_move(server: ServeProcess,
                                                                      tmp_path: Path) -> None:
    client = ApiClient(f"http://127.0.0.1:{server.port}", timeout=5)
    rng = random.Random(5)
    created = client.call("POST", "/matches", {"game": "arcomage", "turn_limit_ms": None})
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        client.call("POST", f"/matches/{match_id}/seed", {"client_seed": None}, token)
    acknowledged: list[str] = []
    killed = threading.Event()

    def killer() -> None:
        while len(acknowledged) < 12:
            time.sleep(0.001)
        time.sleep(rng.random() * 0.02)  # somewhere in the middle of a request
        server.kill()
        killed.set()
        server.start()

    thread = threading.Thread(target=killer)
    thread.start()
    for move in range(5_000):
        public = _retrying(client, "GET", f"/matches/{match_id}")
        if public["status"] == "ended":
            break
        seat = public["current_seat"]
        view = _retrying(client, "GET", f"/matches/{match_id}", token=tokens[seat])
        body = {"action": rng.choice(view["legal_actions"]), "expected_seq": view["next_seq"],
                "action_id": f"a{move}"}
        try:
            _retrying(client, "POST", f"/matches/{match_id}/actions", body,
                               tokens[seat])
        except ApiError as e:
            assert e.status == 409, e
            continue
        acknowledged.append(body["action_id"])
    thread.join()
    assert killed.is_set()
    bundle_path = tmp_path / "bundle.json"
    key = subprocess.run([FAIRDEAL, *server.options, "keys", "show"],
                         capture_output=True, text=True, check=True).stdout.splitlines()[-1]
    subprocess.run([FAIRDEAL, *server.options, "export", match_id, "-o",
                    str(bundle_path)], check=True, capture_output=True)
    verified = subprocess.run([FAIRDEAL, "verify", "--trusted-key", key, str(bundle_path)],
                              capture_output=True, text=True, check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    events = json.loads(bundle_path.read_text())["events"]
    stored = [event["action_id"] for event in events if event["type"] == "move"]
    assert len(stored) == len(set(stored))
    assert set(acknowledged) <= set(stored)
    assert len(stored) == len(set(acknowledged))
    listed = subprocess.run([FAIRDEAL, *server.options, "matches"],
                            capture_output=True, text=True, check=True).stdout
    assert match_id in listed and "verified" in listed


def test_two_gunicorn_workers_share_one_sqlite_file(tmp_path: Path) -> None:
    """Stateless workers: matches played through two gunicorn processes (each with its own
    cache and sweeper) on one database all seal and verify."""
    gunicorn = Path(sys.executable).parent / "gunicorn"
    if not gunicorn.exists():
        pytest.skip("gunicorn is not installed (pip install fairdeal[server])")
    from fairdeal.client import play_matches

    port = free_port()
    env = {name: value for name, value in os.environ.items()
           if name not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}
    env["FAIRDEAL_DATA_DIR"] = str(tmp_path)
    # the key made before the workers start, so that both find the same one
    key = subprocess.run([FAIRDEAL, "--data-dir", str(tmp_path), "keys", "show"], check=True,
                         capture_output=True, text=True).stdout.splitlines()[-1]
    log = (tmp_path / "gunicorn.log").open("wb")
    process = subprocess.Popen([str(gunicorn), "-w", "2", "--threads", "4", "-b",
                                f"127.0.0.1:{port}", "fairdeal.web.app:create_app()"],
                               env=env, stdout=log, stderr=log)
    try:
        client = ApiClient(f"http://127.0.0.1:{port}", timeout=5)
        for _ in range(200):
            try:
                client.call("GET", "/keys")
                break
            except OSError:
                time.sleep(0.05)
        results = [item for item in play_matches(f"http://127.0.0.1:{port}", "arcomage", 6,
                                                 concurrency=3, seed=2, signed=True)
                   if "result" in item]
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
    assert len(results) == 6
    # the bundles as the SQLite file holds them, verified by one `fairdeal verify` process
    from fairdeal.ledger.service import Ledger

    ledger = Ledger.open(tmp_path)
    try:
        paths = [tmp_path / f"{result['id']}.json" for result in results]
        for result, path in zip(results, paths, strict=True):
            path.write_bytes(ledger.bundle(result["id"]))
    finally:
        ledger.store.engine.dispose()
    verified = subprocess.run([FAIRDEAL, "verify", "--trusted-key", key, *map(str, paths)],
                              capture_output=True, text=True, check=False)
    assert verified.returncode == 0, verified.stdout
    assert "6 files: 6 OK, 0 FAIL" in verified.stdout, verified.stdout
    for result, path in zip(results, paths, strict=True):
        moves = [e for e in json.loads(path.read_text())["events"] if e["type"] == "move"]
        assert len(moves) == result["moves"] and all("sig" in move for move in moves)


def test_fairdeal_play_paced_against_a_real_server(server: ServeProcess, tmp_path: Path) -> None:
    """`fairdeal play --pace` as the demo runs it: bots think between moves, the match is
    watchable live, and it ends sealed and verifiable."""
    import subprocess
    import sys

    url = f"http://127.0.0.1:{server.port}"
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "fairdeal.cli", "play", "--server", url,
                          "--game", "toybattle", "-n", "1", "--seed", "3", "--pace", "0.02"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    ended = next(line for line in run.stdout.splitlines() if line.startswith("ended:"))
    match_id, moves = ended.split()[1:3]
    assert time.perf_counter() - started >= 0.02 * int(moves)
    bundle = tmp_path / "played.json"
    bundle.write_bytes(ApiClient(url).raw("GET", f"/matches/{match_id}/bundle")[1])
    verify = subprocess.run([sys.executable, "-m", "fairdeal.cli", "verify", str(bundle)],
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, verify.stdout
    too_slow = subprocess.run([sys.executable, "-m", "fairdeal.cli", "play", "--server", url,
                               "--game", "arcomage", "--pace", "5", "--turn-limit", "5"],
                              capture_output=True, text=True, timeout=60)
    assert too_slow.returncode == 2
    assert "--pace" in too_slow.stderr and "Traceback" not in too_slow.stderr
