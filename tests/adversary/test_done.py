"""The whole story on real processes: a signed match played with `fairdeal play --signed`
against `fairdeal serve`, then altered by someone holding the server's key — seat B's seed
swapped, a second reveal inserted, a seed event stripped of its signature — fails `fairdeal
verify` with the server and seat keys pinned, while the honest bundle passes, receipts and all.
"""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fairdeal.client import ApiClient
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.verifier.forge import reseal
from fairdeal.verifier.protocol import client_commitment

FAIRDEAL = str(Path(sys.executable).parent / "fairdeal")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([FAIRDEAL, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def served(tmp_path: Path):
    """A real `fairdeal serve` on a free port, with its data folder."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen([FAIRDEAL, "--data-dir", str(tmp_path), "serve", "--port",
                                str(port)], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    assert ApiClient(url, timeout=2).wait_until_up(20), (tmp_path / "serve.log").read_text()
    yield url, tmp_path
    process.terminate()
    process.wait(timeout=10)
    log.close()


def _swap_b_seed(bundle: dict[str, Any]) -> dict[str, Any]:
    match_id = bundle["events"][0]["match_id"]
    for event in bundle["events"]:
        if event.get("seat") == 1 and event["type"] == "seed_commit":
            event["commitment"] = client_commitment(match_id, 1, "5e" * 32)
        if event.get("seat") == 1 and event["type"] == "seed_reveal":
            event["client_seed"] = "5e" * 32
    return bundle


def _second_reveal(bundle: dict[str, Any]) -> dict[str, Any]:
    events = bundle["events"]
    events.insert(len(events) - 1, {**copy.deepcopy(events[-1]), "server_seed": "0" * 64})
    return bundle


def _strip_seed_signature(bundle: dict[str, Any]) -> dict[str, Any]:
    event = next(e for e in bundle["events"] if e["type"] == "seed_commit")
    del event["sig"]
    return bundle


def test_a_signed_match_altered_with_the_servers_key_fails_with_every_pin(served) -> None:
    url, data_dir = served
    receipts = data_dir / "receipts"
    played = run("play", "--server", url, "--game", "arcomage", "-n", "1", "--seed", "11",
                 "--signed", "--receipts", str(receipts))
    assert played.returncode == 0, played.stderr
    (record,) = receipts.glob("*.receipts.json")
    kept = json.loads(record.read_text())
    match_id = kept["match_id"]
    out = data_dir / "match.json"
    assert run("--data-dir", str(data_dir), "export", match_id, "-o", str(out)).returncode == 0
    server_key = load_or_create_server_key(data_dir)
    pins = ["--trusted-key", server_key.public_text]
    for seat, key in zip("AB", kept["seat_keys"], strict=True):
        pins += ["--seat-key", f"{seat}={key}"]

    honest = run("verify", *pins, "--receipts", str(record), str(out))
    assert honest.returncode == 0, honest.stdout
    assert "seat keys A, B pinned" in honest.stdout
    assert "fair unless both players and the server colluded" in honest.stdout

    bundle = json.loads(out.read_text())
    for name, alter, check in [("swapped", _swap_b_seed, "seat-signatures"),
                               ("second-reveal", _second_reveal, "timing"),
                               ("stripped", _strip_seed_signature, "seat-signatures")]:
        forged = data_dir / f"{name}.json"
        forged.write_text(json.dumps(reseal(alter(copy.deepcopy(bundle)), server_key)))
        result = run("verify", *pins, str(forged))
        assert result.returncode == 1, (name, result.stdout)
        assert f"{check} check failed" in result.stdout, (name, result.stdout)
        assert "Traceback" not in result.stdout + result.stderr
