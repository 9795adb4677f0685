"""Hostile limits: huge files, many events, deep nesting, long strings, odd Unicode and
repeated structures each get a clear refusal naming the limit, in bounded time and memory —
from the CLI, the API and the upload page."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from fairdeal.verifier.bundle import MAX_BUNDLE_BYTES, MAX_EVENTS
from fairdeal.verifier.verify import verify_bytes
from fairdeal.web.api.body import MAX_BODY_BYTES
from fairdeal.web.api.body import MAX_BUNDLE_BYTES as API_BUNDLE_BYTES
from fairdeal.web.security import UPLOAD_LIMIT

from .conftest import HOSTILE

HONEST = HOSTILE.parent / "bundles" / "honest" / "arcomage-untimed.json"


def test_the_cli_refuses_a_huge_file_by_its_size_without_reading_it(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as out:  # sparse: 4 GiB on paper, nothing on disk
        out.truncate(4 * 2**30)
    script = ("import resource, sys\n"
              "from fairdeal.cli.main import cli\n"
              "try:\n"
              "    cli(['verify', sys.argv[1]])\n"
              "except SystemExit as e:\n"
              "    print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
              "file=sys.stderr)\n"
              "    raise\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script, str(huge)], capture_output=True,
                          text=True, timeout=120)
    assert time.monotonic() - started < 60
    assert done.returncode == 1, done.stderr
    assert f"file is larger than the {MAX_BUNDLE_BYTES} bytes (64 MiB) allowed" in done.stdout
    # the process's peak memory (kB) stays far below the file's size
    peak = int(done.stderr.split("peak ")[1].split()[0])
    assert peak < 1_000_000, peak


def test_too_many_events_are_refused_before_any_is_replayed() -> None:
    bundle = json.loads(HONEST.read_text())
    move = next(event for event in bundle["events"] if event["type"] == "move")
    bundle["events"][1:1] = [move] * MAX_EVENTS  # repeated structures, 20,000 of them
    started = time.monotonic()
    report = verify_bytes(json.dumps(bundle).encode())
    assert time.monotonic() - started < 5
    assert f"more than the {MAX_EVENTS} a bundle may hold" in str(report.failure)


@pytest.mark.parametrize("body, message", [
    ("[" * 5_000 + "]" * 5_000, "nested too deeply"),
    ('{"game": "' + "x" * 60_000 + '"}', "unknown-game"),
    ('{"game": "arcomage", "seats": ["\\u202e\\u0000", "' + "é" * 81 + '"]}', "invalid-seats"),
    ('{"game": "arcomage", "params": {' + ",".join(f'"k{i}": [[[1]]]' for i in range(3000))
     + "}}", "invalid-params"),
])
def test_odd_request_bodies_get_a_clear_400(client: FlaskClient, body: str, message: str) -> None:
    response = client.post("/api/v1/matches", data=body.encode())
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    assert message in json.dumps(response.get_json())


def test_bodies_past_their_size_limits_are_413_naming_the_limit(client: FlaskClient) -> None:
    small = client.post("/api/v1/matches", data=b" " * (MAX_BODY_BYTES + 1))
    assert small.status_code == 413
    assert f"more than the {MAX_BODY_BYTES} allowed" in small.get_json()["error"]["message"]
    large = client.post("/api/v1/bundles", data=b" " * (API_BUNDLE_BYTES + 1))
    assert large.status_code == 413
    assert large.get_json()["error"]["code"] == "body-too-large"


def test_the_upload_page_refuses_a_file_past_its_limit_by_name(client: FlaskClient) -> None:
    import io

    data = b" " * (UPLOAD_LIMIT + 70_000)
    response = client.post("/upload", data={"bundle": (io.BytesIO(data), "big.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 413
    assert f"{UPLOAD_LIMIT // 2**20} MB" in response.get_data(as_text=True)
