"""The live stream under the production servers, as docs/ledger.md runs them: gunicorn's
gthread workers and granian's blocking threads stream a match played meanwhile, to the end,
while other requests are answered; a full worker answers 503 and a client that goes away gives
its slot back; gunicorn's sync worker (no --threads) refuses streams instead of blocking."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from fairdeal.client import ApiClient

from ...processes import WSGI_SERVERS, free_port, wsgi_server_command
from .streaming import BotMatch, open_stream


def _start(command: list[str], tmp_path: Path, **env: str) -> subprocess.Popen[bytes]:
    environ = {name: value for name, value in os.environ.items()
               if name not in ("FAIRDEAL_DATABASE_URL", "FAIRDEAL_DATA_DIR")}
    environ.update(FAIRDEAL_DATA_DIR=str(tmp_path), FAIRDEAL_RATE_LIMITS="off", **env)
    log = (tmp_path / "server.log").open("ab")
    # a session of its own, so that _stop kills the workers too, not only the server's parent
    return subprocess.Popen(command, env=environ, stdout=log, stderr=log, start_new_session=True)


def _stop(process: subprocess.Popen[bytes]) -> None:
    # SIGKILL, as open streams would hold a graceful stop for its whole timeout; to the whole
    # group: granian's worker outlived a SIGKILL of its parent alone, serving on after the suite
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(20)


@pytest.mark.parametrize("server", WSGI_SERVERS)
def test_streams_under_the_production_server(server: str, tmp_path: Path) -> None:
    port = free_port()
    process = _start(wsgi_server_command(server, port, workers=1, threads=4), tmp_path,
                     FAIRDEAL_STREAMS_MAX="2", FAIRDEAL_STREAM_HEARTBEAT_S="0.3")
    try:
        url = f"http://127.0.0.1:{port}"
        assert ApiClient(url, timeout=2).wait_until_up(60), (tmp_path / "server.log").read_text()
        bots = BotMatch(url, pace=0.01)
        bots.start()
        match_id = bots.wait_started()
        status, _, first = open_stream(port, match_id)
        assert status == 200
        status, _, second = open_stream(port, match_id, source="127.0.0.2")
        assert status == 200
        status, response, _ = open_stream(port, match_id, source="127.0.0.3")
        assert status == 503, "a third stream would have taken a thread the API needs"
        assert json.loads(response.read())["error"]["code"] == "streams-full"
        # the other two threads still answer everyone else while two streams are open
        assert ApiClient(url, timeout=5).call("GET", f"/matches/{match_id}")["id"] == match_id
        frames = list(first.frames())
        assert frames[-1].kind == "end"
        seqs = [frame.id for frame in frames if frame.kind == "event"]
        assert seqs == list(range(len(seqs))) and len(seqs) > 20
        bots.join(60)
        assert bots.error is None, bots.error
        second.drop()  # gone without a word: its slot comes back at the next heartbeat
        time.sleep(1.5)
        # both slots are free again (the first stream ended, the second's client went away)
        opened = [open_stream(port, match_id, source=source)
                  for source in ("127.0.0.3", "127.0.0.4")]
        assert [status for status, _, _ in opened] == [200, 200]
        for _, _, stream in opened:
            assert [frame.kind for frame in stream.frames()][-1] == "end"
    finally:
        _stop(process)


def test_gunicorn_sync_workers_refuse_streams_rather_than_block(tmp_path: Path) -> None:
    port = free_port()
    command = wsgi_server_command("gunicorn", port, workers=1, threads=1)  # the sync worker
    process = _start(command, tmp_path)
    try:
        url = f"http://127.0.0.1:{port}"
        assert ApiClient(url, timeout=2).wait_until_up(60), (tmp_path / "server.log").read_text()
        match_id = ApiClient(url).call("POST", "/matches", {"game": "arcomage"})["id"]
        status, response, _ = open_stream(port, match_id)
        assert status == 503
        error = json.loads(response.read())["error"]
        assert error["code"] == "streams-unavailable" and "--threads" in error["message"]
        assert ApiClient(url, timeout=5).call("GET", f"/matches/{match_id}")["id"] == match_id
    finally:
        _stop(process)
