"""GET /api/v1/matches/ID/stream through a real `fairdeal serve` process, on SQLite and on
PostgreSQL, read by a plain HTTP client while bots play the match: every public event once and
in order, exactly as GET /events gives it, across a dropped connection resumed by Last-Event-ID
or ?after=; nothing secret before the reveal; the final event; heartbeats; the caps (429, 503,
JSON) and a slot freed by a client that went away; idle streams closed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from fairdeal.client import ApiClient

from .streaming import BotMatch, Frame, open_stream, served

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
FAST = {"FAIRDEAL_STREAM_HEARTBEAT_S": "0.3", "FAIRDEAL_STREAM_POLL_S": "0.1"}


def _events_until(frames, count: int) -> list[Frame]:
    got = []
    for frame in frames:
        assert frame.kind in ("event", "end"), frame
        got.append(frame)
        if frame.kind == "end" or len(got) == count:
            break
    return got


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_match_streamed_while_played_resumes_after_drops_without_gap_or_repeat(
        tmp_path: Path, backend: str) -> None:
    with served(tmp_path, backend, FAST) as server:
        bots = BotMatch(server.url, pace=0.02)
        bots.start()
        match_id = bots.wait_started()
        frames: list[Frame] = []
        raw_text: list[str] = []
        # (1) from the start, dropped after 6 events; (2) resumed by Last-Event-ID, dropped
        # after 10 more; (3) resumed by ?after= to the end
        status, response, stream = open_stream(server.port, match_id)
        assert status == 200 and response.getheader("Content-Type").startswith(
            "text/event-stream")
        frames += _events_until(stream.frames(), 6)
        raw_text += stream.text
        stream.drop()
        status, _, stream = open_stream(server.port, match_id,
                                        last_event_id=str(frames[-1].id))
        assert status == 200
        frames += _events_until(stream.frames(), 10)
        raw_text += stream.text
        stream.drop()
        status, _, stream = open_stream(server.port, match_id, after=frames[-1].id)
        frames += _events_until(stream.frames(), 10**6)
        raw_text += stream.text
        stream.drop()
        bots.join(60)
        assert bots.error is None, bots.error
        answer = ApiClient(server.url).call("GET", f"/matches/{match_id}/events")
    events = [frame for frame in frames if frame.kind == "event"]
    assert [frame.id for frame in events] == list(range(len(events)))  # no gap, no repeat
    assert frames[-1].kind == "end" and frames[-1].data["status"] == "ended"
    assert frames[-1].data["result"] == bots.result["result"]
    assert events[-1].data["event"]["type"] == "reveal"
    # the stream's events are GET /events's, and so are the captions
    assert [frame.data["event"] for frame in events] == answer["events"]
    assert {str(frame.id): frame.data["caption"] for frame in events
            if frame.data["caption"] is not None} == answer["captions"]
    # nothing secret before the reveal: the server seed appears in the reveal's frame only
    seed = events[-1].data["event"]["server_seed"]
    before = "\n".join(raw_text).split("id: " + str(events[-1].id))[0]
    assert seed not in before and "server_seed" not in before
    assert all("token" not in line for line in raw_text)


def test_streamed_events_are_the_public_events_answer(tmp_path: Path) -> None:
    """While the match is live: what the stream sends for each event is exactly what
    GET /events answered for it at the same moment (one redaction, not two)."""
    with served(tmp_path, env=FAST) as server:
        bots = BotMatch(server.url, pace=0.05)
        bots.start()
        match_id = bots.wait_started()
        _, _, stream = open_stream(server.port, match_id)
        frames = _events_until(stream.frames(), 12)
        answer = ApiClient(server.url).call("GET", f"/matches/{match_id}/events?limit=12")
        assert answer["events"][-1]["type"] != "reveal"  # still live
        assert [frame.data["event"] for frame in frames] == answer["events"]
        stream.drop()
        bots.join(60)


def test_a_sealed_match_streams_its_events_then_ends(tmp_path: Path) -> None:
    with served(tmp_path, env=FAST) as server:
        bots = BotMatch(server.url, pace=0)
        bots.start()
        match_id = bots.wait_started()
        bots.join(60)
        _, _, stream = open_stream(server.port, match_id)
        frames = list(stream.frames())
        assert frames[-1].kind == "end" and frames[-2].data["event"]["type"] == "reveal"
        last = frames[-2].id
        _, _, stream = open_stream(server.port, match_id, after=last)
        assert [frame.kind for frame in stream.frames()] == ["end"]
        assert stream.text[0] == "retry: 2000"


@pytest.mark.parametrize("path,headers,status,code", [
    ("/matches/0123456789abcdef/stream", {}, 404, "not-found"),
    ("/matches/{id}/stream?after=x", {}, 400, "invalid-query"),
    ("/matches/{id}/stream?after=-2", {}, 400, "invalid-query"),
    ("/matches/{id}/stream", {"Last-Event-ID": "seven"}, 400, "invalid-query"),
    ("/matches/{id}/stream", {"Authorization": "Bearer nope"}, 403, None),
])
def test_bad_requests_get_json_errors(client, driver, path: str, headers: dict[str, str],
                                      status: int, code: str | None) -> None:
    match_id, _ = driver.create()
    response = client.get("/api/v1" + path.format(id=match_id), headers=headers)
    assert response.status_code == status
    error = response.get_json()["error"]
    assert error["message"]
    if code is not None:
        assert error["code"] == code, error


def test_caps_answer_429_and_503_and_a_client_that_goes_away_frees_its_slot(
        tmp_path: Path) -> None:
    env = {**FAST, "FAIRDEAL_STREAMS_MAX": "3", "FAIRDEAL_STREAMS_PER_CLIENT": "2"}
    with served(tmp_path, env=env) as server:
        match_id = ApiClient(server.url).call("POST", "/matches", {"game": "arcomage"})["id"]
        held = []
        for source in ("127.0.0.1", "127.0.0.1", "127.0.0.2"):
            status, _, stream = open_stream(server.port, match_id, source=source)
            assert status == 200
            held.append(stream)
        status, response, _ = open_stream(server.port, match_id, source="127.0.0.2")
        assert status == 503 and response.getheader("Retry-After")
        assert json.loads(response.read())["error"]["code"] == "streams-full"
        held.pop().drop()  # 127.0.0.2 goes away: its slot is free at the next heartbeat
        time.sleep(1.0)
        status, response, _ = open_stream(server.port, match_id, source="127.0.0.1")
        assert status == 429 and response.getheader("Retry-After")
        error = json.loads(response.read())["error"]
        assert error["code"] == "too-many-streams" and "2 live streams" in error["message"]
        status, _, stream = open_stream(server.port, match_id, source="127.0.0.3")
        assert status == 200  # the freed slot
        held.append(stream)
        # the other requests are still served while the streams are open
        assert ApiClient(server.url, timeout=5).call("GET", f"/matches/{match_id}")["id"]
        for stream in held:
            stream.drop()


def test_heartbeats_on_a_quiet_stream_and_idle_streams_closed(tmp_path: Path) -> None:
    env = {"FAIRDEAL_STREAM_HEARTBEAT_S": "0.2", "FAIRDEAL_STREAM_IDLE_S": "1.5"}
    with served(tmp_path, env=env) as server:
        match_id = ApiClient(server.url).call("POST", "/matches", {"game": "arcomage"})["id"]
        started = time.monotonic()
        _, _, stream = open_stream(server.port, match_id)
        frames = list(stream.frames())
        took = time.monotonic() - started
        assert [frame.kind for frame in frames] == ["event", "idle"]  # the genesis, then idle
        assert frames[-1].data["next_after"] == 0
        assert 1.4 <= took < 6
        assert stream.comments >= 5  # the opening comment and a heartbeat every 0.2 s


def test_bad_stream_settings_are_refused_at_start(tmp_path: Path) -> None:
    from fairdeal.web.app import create_app

    with pytest.raises(ValueError, match="FAIRDEAL_STREAMS_MAX must be a whole number of "
                                         "at least 0, got 'many'"):
        create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                    "FAIRDEAL_STREAMS_MAX": "many"})


def test_the_stream_is_in_the_openapi_document(client) -> None:
    document = client.get("/api/v1/openapi.json").get_json()
    operation = document["paths"]["/matches/{match_id}/stream"]["get"]
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert {"after", "Last-Event-ID"} <= {p["name"] for p in operation["parameters"]}
    assert {"400", "404", "429", "503"} <= set(operation["responses"])
