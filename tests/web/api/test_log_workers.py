"""Two workers on one database (gunicorn's, granian's) sequence the transparency log without a
fork or a gap:
matches created and played to the end through both at once, checkpoints read all along from
either worker, every one consistent with every other, every leaf where it belongs."""

from __future__ import annotations

import base64
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairdeal.client import ApiClient, play_matches
from fairdeal.verifier.checkpoint import Checkpoint
from fairdeal.verifier.logleaf import LogLeaf
from fairdeal.verifier.merkle import MemoryTree, verify_consistency
from fairdeal.verifier.note import VerifierKey, verify_note

from ...processes import FAIRDEAL, WSGI_SERVERS, free_port, fresh_database, wsgi_server_command


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    """None for the data folder's SQLite file, else a PostgreSQL URL on a fresh schema."""
    with fresh_database(request.param) as url:
        yield url


@pytest.mark.parametrize("server", WSGI_SERVERS)
def test_two_workers_grow_one_log(tmp_path: Path, database: str | None, server: str) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {name: value for name, value in os.environ.items()
           if name not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}
    env["FAIRDEAL_DATA_DIR"] = str(tmp_path)
    if database is not None:
        env["FAIRDEAL_DATABASE_URL"] = database
    subprocess.run([FAIRDEAL, "--data-dir", str(tmp_path), "keys", "show"], check=True,
                   capture_output=True)
    with (tmp_path / f"{server}.log").open("wb") as out:
        process = subprocess.Popen(wsgi_server_command(server, port), env=env, stdout=out,
                                   stderr=out)
        try:
            client = ApiClient(url, timeout=10)
            for _ in range(300):
                try:
                    keys = client.call("GET", "/keys")["keys"][0]
                    break
                except OSError:
                    time.sleep(0.05)
            seen: list[str] = []
            done = threading.Event()

            def watch() -> None:
                while not done.is_set():
                    seen.append(client.raw("GET", "/log/checkpoint")[1].decode())
                    time.sleep(0.01)

            def create_only() -> None:
                for _ in range(10):  # created and never played: genesis leaves only
                    client.call("POST", "/matches", {"game": "toybattle"})

            watcher = threading.Thread(target=watch)
            creators = [threading.Thread(target=create_only) for _ in range(3)]
            watcher.start()
            for thread in creators:
                thread.start()
            played = [item for item in play_matches(url, "arcomage", 6, concurrency=3, seed=4)
                      if "result" in item]  # the ended matches (not "started" nor the stats)
            for thread in creators:
                thread.join()
            done.set()
            watcher.join()
            final = client.raw("GET", "/log/checkpoint")[1].decode()
            leaves = client.call("GET", "/log/leaves?limit=10000")["leaves"]
            proofs = {}
            checkpoints = [Checkpoint.from_note(note) for note in [*seen, final]]
            for (old, _), (new, _) in zip(checkpoints, checkpoints[1:], strict=False):
                if (old.size, new.size) not in proofs:
                    proofs[(old.size, new.size)] = client.call(
                        "GET", f"/log/proof/consistency?old={old.size}&new={new.size}")
        finally:
            process.terminate()
            process.wait(timeout=20)
    assert len(played) == 6
    # no gap: the leaves are 0..n-1; each match's genesis comes before its seal
    assert [leaf["index"] for leaf in leaves] == list(range(len(leaves)))
    kinds: dict[str, list[str]] = {}
    for leaf in leaves:
        kinds.setdefault(leaf["match_id"], []).append(leaf["kind"])
    assert len(leaves) == 30 + 2 * 6
    for result in played:
        assert kinds[result["id"]] == ["genesis", "seal"]
    assert sum(value == ["genesis"] for value in kinds.values()) == 30
    # no fork: every checkpoint is signed, sizes never shrink, each extends the one before
    log_key = VerifierKey.parse(keys["log_key"])
    for _, note in checkpoints:
        verify_note(note, [log_key])
    for (old, _), (new, _) in zip(checkpoints, checkpoints[1:], strict=False):
        assert old.size <= new.size
        hashes = [base64.b64decode(item) for item in proofs[(old.size, new.size)]["hashes"]]
        verify_consistency(old.size, new.size, old.root, new.root, hashes)
    # and the final root is the root of exactly these leaves, in this order
    reference = MemoryTree()
    for leaf in leaves:
        reference.append(LogLeaf.parse(leaf["leaf"].encode()).body)
    assert checkpoints[-1][0].size == len(leaves)
    assert checkpoints[-1][0].root == reference.root()
