"""The API's fast path under the production servers (gunicorn, granian): the requests they hand
over for a seat's view and a move are the ones it answers itself (web/api/fastpath.py's
``plain_request``, asked by a probe app under each server), and what a match played over HTTP
is answered is Flask's answer, byte for byte (an app in this process over the same data
folder, its fast path off)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from fairdeal.client import ApiClient
from fairdeal.web.app import create_app

from ...processes import FAIRDEAL, WSGI_SERVERS, free_port, wsgi_server_command

PROBE = '''
import json

from fairdeal.web.api.fastpath import plain_request


def app(environ, start_response):
    """What the fast path makes of the request the server handed over."""
    taken = plain_request(environ)
    environ["wsgi.input"].read()
    body = json.dumps(taken).encode()
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", str(len(body)))])
    return [body]
'''


def _serve(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=out)
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _environment(**extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if name not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR", "FAIRDEAL_FAST_PATH")}
    env.update(extra)
    return env


@pytest.mark.parametrize("server", WSGI_SERVERS)
def test_the_servers_hand_over_requests_the_fast_path_takes(tmp_path: Path,
                                                              server: str) -> None:
    if not (Path(sys.executable).parent / server).exists():
        pytest.skip(f"{server} is not installed")
    (tmp_path / "fastprobe.py").write_text(PROBE)
    port = free_port()
    process = _serve(wsgi_server_command(server, port, workers=1, threads=2,
                                         app="fastprobe:app"),
                     _environment(PYTHONPATH=str(tmp_path)), tmp_path / "probe.log")
    try:
        client = ApiClient(f"http://127.0.0.1:{port}/api/v1", timeout=10)
        assert client.wait_until_up(30), (tmp_path / "probe.log").read_text()
        move = json.dumps({"action": 3, "expected_seq": 7, "action_id": "a"}).encode()
        asked = {
            "view": client.raw("GET", "/matches/4f00aa", token="t"),
            "public view": client.raw("GET", "/matches/4f00aa"),
            "move": client.raw("POST", "/matches/4f00aa/actions", move, "t"),
            "seed": client.raw("POST", "/matches/4f00aa/seed", move, "t"),
            "events": client.raw("GET", "/matches/4f00aa/events"),
        }
        taken = {name: json.loads(body) for name, (_status, body) in asked.items()}
        assert taken == {"view": ["view", "4f00aa"], "public view": ["view", "4f00aa"],
                         "move": ["play", "4f00aa"], "seed": None, "events": None}
    finally:
        _stop(process)


@pytest.mark.parametrize("server", WSGI_SERVERS)
def test_a_match_over_http_is_answered_as_flask_answers_it(tmp_path: Path,
                                                            server: str) -> None:
    if not (Path(sys.executable).parent / server).exists():
        pytest.skip(f"{server} is not installed")
    subprocess.run([FAIRDEAL, "--data-dir", str(tmp_path), "keys", "show"], check=True,
                   capture_output=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = _serve(wsgi_server_command(server, port, workers=1, threads=2),
                     _environment(FAIRDEAL_DATA_DIR=str(tmp_path),
                                  FAIRDEAL_RATE_LIMITS="off"), tmp_path / "server.log")
    flask_app = create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                            "FAIRDEAL_RATE_LIMITS": "off", "FAIRDEAL_FAST_PATH": "off"})
    flask = flask_app.test_client()
    try:
        client = ApiClient(url + "/api/v1", timeout=10)
        assert client.wait_until_up(30), (tmp_path / "server.log").read_text()
        created = client.call("POST", "/matches", {"game": "arcomage", "seats": ["a", "b"]})
        match = f"/matches/{created['id']}"
        tokens = [seat["token"] for seat in created["seats"]]
        rng = random.Random(server)
        for token in tokens:
            client.call("POST", f"{match}/seed", {"client_seed": rng.randbytes(32).hex()},
                        token)

        def same(method: str, path: str, body: Any = None, token: str | None = None,
                 flask_status: int | None = None) -> tuple[int, Any]:
            """The server's answer, and Flask's in this process to the same request."""
            data = None if body is None else json.dumps(body).encode()
            status, got = client.raw(method, path, data, token)
            if flask_status is None:  # not a write: Flask answers the same request alike
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                flask_answer = flask.open("/api/v1" + path, method=method, data=data,
                                          headers=headers, content_type="application/json")
                assert (status, got) == (flask_answer.status_code, flask_answer.get_data())
            return status, json.loads(got)

        moves = 0
        while True:
            _, public = same("GET", match)
            if public["status"] == "ended":
                break
            seat = public["current_seat"]
            _, view = same("GET", match, token=tokens[seat])
            body = {"action": rng.choice(view["legal_actions"]),
                    "expected_seq": view["next_seq"], "action_id": f"m{moves}"}
            # a stale position, then the move, then its retry: Flask's retry answers the
            # same event, receipt and view
            same("POST", f"{match}/actions", {**body, "expected_seq": body["expected_seq"] - 1},
                 tokens[seat])
            status, answer = client.raw("POST", f"{match}/actions", json.dumps(body).encode(),
                                        tokens[seat])
            assert status == 201, answer
            retry = flask.post(f"/api/v1{match}/actions", json=body,
                               headers={"Authorization": f"Bearer {tokens[seat]}"})
            assert retry.status_code == 200
            # (the same values: a retry writes the stored event's keys in their stored order)
            assert {**json.loads(answer), "replayed": True} == retry.get_json()
            moves += 1
            assert moves < 2_000
        assert moves > 5
        with urllib.request.urlopen(url + "/api/v1" + match) as response:
            headers = {name.lower(): value for name, value in response.getheaders()}
        flask_headers = {name.lower(): value
                         for name, value in flask.get("/api/v1" + match).headers.items()}
        for name in ("content-type", "content-length", "content-security-policy",
                     "x-content-type-options", "referrer-policy", "x-frame-options"):
            assert headers[name] == flask_headers[name], name
    finally:
        _stop(process)
        flask_app.extensions["fairdeal.ledger"].store.engine.dispose()
