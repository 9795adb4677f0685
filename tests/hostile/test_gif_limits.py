"""Break 9 of issue 18 (its GIF part): a replay GIF is the costliest thing an anonymous
request can ask for. Against a real app over a real SQLite ledger: the frames are capped
(MAX_GIF_FRAMES, said in the refusal), a GIF is drawn once and then served from a cache keyed
by what decides its bytes, one is drawn at a time per process (a request that would wait is
a 202 with Retry-After, a cached one is still served), and each GIF drawn counts against the
``gif`` rate limit of the client address, as uploads do. The CLI keeps the same cap."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from fairdeal.cli.main import cli
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.verify import chain_hashes
from fairdeal.web.app import create_app
from fairdeal.web.viewer import replay_gif
from fairdeal.web.viewer.animation import MAX_GIF_FRAMES, gif_key, parse_steps
from fairdeal.web.viewer.matches import load_bundle

#: 111 steps (a range past the cap is refused for its length, however long the match)
LONG = Path(__file__).parents[2] / "fixtures" / "bundles" / "honest" / \
    "arcomage-free-steppe-normal.json"


def _app(tmp_path: Path, limits: str) -> Iterator[tuple[Flask, str]]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    ledger = Ledger(EventStore(engine), load_or_create_server_key(tmp_path))
    match_id, report = ledger.import_bundle(LONG.read_bytes())
    assert match_id is not None, report.failure
    yield create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                      "FAIRDEAL_RATE_LIMITS": limits}), match_id
    ledger.stop_sweeper()
    engine.dispose()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Flask, str]]:
    yield from _app(tmp_path, "off")


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The ranges the server really draws (the real drawing, counted)."""
    ranges: list[tuple[int, int]] = []
    real = replay_gif.match_gif

    def counted(match: Any, first: int, last: int, seat: int | None = None,
                **options: Any) -> bytes:
        ranges.append((first, last))
        return real(match, first, last, seat, **options)
    monkeypatch.setattr(replay_gif, "match_gif", counted)
    return ranges


def test_a_range_past_the_frame_cap_is_a_400_naming_the_cap(
        served: tuple[Flask, str], drawn: list[tuple[int, int]]) -> None:
    app, match_id = served
    refused = app.test_client().get(f"/m/{match_id}.gif?steps=0:{MAX_GIF_FRAMES}")
    assert refused.status_code == 400
    assert refused.get_data(as_text=True) == (
        f"step range '0:{MAX_GIF_FRAMES}' is {MAX_GIF_FRAMES + 1} steps: a GIF holds at most "
        f"{MAX_GIF_FRAMES} frames (e.g. 0:{MAX_GIF_FRAMES - 1})\n")
    assert drawn == []
    # no range: the whole match when it fits, else its last MAX_GIF_FRAMES steps
    longest = MAX_GIF_FRAMES + 10
    assert parse_steps(None, longest) == (11, longest)
    assert parse_steps(None, 40) == (0, 40)


def test_a_gif_is_drawn_once_and_cached_by_what_decides_its_bytes(
        served: tuple[Flask, str], drawn: list[tuple[int, int]]) -> None:
    app, match_id = served
    client = app.test_client()
    first = client.get(f"/m/{match_id}.gif?steps=0:1")
    assert first.status_code == 200 and first.mimetype == "image/gif"
    again = client.get(f"/m/{match_id}.gif?steps=0:1")
    assert again.data == first.data
    assert drawn == [(0, 1)]
    # the key is the content: the same match loaded anew (an upload of its bundle) has it too
    match = load_bundle(LONG.read_bytes())
    assert gif_key(match, 0, 1, None) == gif_key(load_bundle(LONG.read_bytes()), 0, 1, None)
    assert len({gif_key(match, 0, 1, None), gif_key(match, 0, 2, None),
                gif_key(match, 0, 1, 0)}) == 3
    assert chain_hashes(match.events)[-1] in gif_key(match, 0, 1, None)


def test_one_gif_is_drawn_at_a_time_and_a_waiting_request_gets_a_202(
        served: tuple[Flask, str], monkeypatch: pytest.MonkeyPatch) -> None:
    app, match_id = served
    assert app.test_client().get(f"/m/{match_id}.gif?steps=0:0").status_code == 200  # cached
    inside, finish = threading.Event(), threading.Event()
    real = replay_gif.match_gif

    def slow(match: Any, first: int, last: int, seat: int | None = None,
             **options: Any) -> bytes:
        inside.set()
        assert finish.wait(30)
        return real(match, first, last, seat, **options)
    monkeypatch.setattr(replay_gif, "match_gif", slow)
    answers: list[Any] = []
    worker = threading.Thread(target=lambda: answers.append(
        app.test_client().get(f"/m/{match_id}.gif?steps=2:3")))
    worker.start()
    try:
        assert inside.wait(30)
        busy = app.test_client().get(f"/m/{match_id}.gif?steps=4:5")
        assert busy.status_code == 202
        assert busy.headers["Retry-After"] == str(replay_gif.RETRY_AFTER_S)
        assert "another replay GIF is being drawn here" in busy.get_data(as_text=True)
        # a GIF drawn before is served meanwhile
        cached = app.test_client().get(f"/m/{match_id}.gif?steps=0:0")
        assert cached.status_code == 200 and cached.mimetype == "image/gif"
    finally:
        finish.set()
        worker.join(60)
    assert answers[0].status_code == 200 and answers[0].mimetype == "image/gif"
    assert app.test_client().get(f"/m/{match_id}.gif?steps=4:5").status_code == 200


def test_a_long_drawing_answers_202_and_goes_on_into_the_cache(
        served: tuple[Flask, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """No request outlives a worker's timeout: past DRAW_WAIT_S the one that started the
    drawing is told to retry, and the retry finds the GIF drawn meanwhile."""
    app, match_id = served
    finish = threading.Event()
    real = replay_gif.match_gif

    def slow(match: Any, first: int, last: int, seat: int | None = None,
             **options: Any) -> bytes:
        assert finish.wait(30)
        return real(match, first, last, seat, **options)
    monkeypatch.setattr(replay_gif, "match_gif", slow)
    monkeypatch.setattr(replay_gif, "DRAW_WAIT_S", 0.2)
    client = app.test_client()
    started = client.get(f"/m/{match_id}.gif?steps=0:2")
    assert started.status_code == 202
    assert started.headers["Retry-After"] == str(replay_gif.RETRY_AFTER_S)
    assert started.get_data(as_text=True) == (
        f"this replay GIF is being drawn (0 of 3 frames drawn): retry in "
        f"{replay_gif.RETRY_AFTER_S} s\n")
    assert (started.headers["X-Frames-Drawn"], started.headers["X-Frames"]) == ("0", "3")
    finish.set()
    for _ in range(300):  # the drawing ends, and releases the slot
        retried = client.get(f"/m/{match_id}.gif?steps=0:2")
        if retried.status_code == 200:
            break
        threading.Event().wait(0.1)
    assert retried.status_code == 200 and retried.mimetype == "image/gif"
    assert retried.data == real(load_bundle(LONG.read_bytes()), 0, 2)


def test_a_gif_being_drawn_says_how_far_it_is(
        served: tuple[Flask, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21 (15): the 202 of a GIF being drawn tells frames drawn and frames, and a request
    with ``Prefer: respond-async`` is told at once; the real drawing, held after 2 frames."""
    app, match_id = served
    held, go_on = threading.Event(), threading.Event()
    real = replay_gif.match_gif

    def held_after_two(match: Any, first: int, last: int, seat: int | None = None,
                       progress: Any = None, **options: Any) -> bytes:
        def told(drawn: int, frames: int) -> None:
            progress(drawn, frames)
            if drawn == 2:
                held.set()
                assert go_on.wait(30)
        return real(match, first, last, seat, progress=told, **options)
    monkeypatch.setattr(replay_gif, "match_gif", held_after_two)
    client = app.test_client()
    at_once = {"Prefer": "respond-async"}
    started = client.get(f"/m/{match_id}.gif?steps=10:19", headers=at_once)
    assert started.status_code == 202  # answered without waiting DRAW_WAIT_S
    try:
        assert held.wait(60)
        asked = client.get(f"/m/{match_id}.gif?steps=10:19", headers=at_once)
        assert asked.status_code == 202
        assert (asked.headers["X-Frames-Drawn"], asked.headers["X-Frames"]) == ("2", "10")
        assert asked.get_data(as_text=True).startswith(
            "this replay GIF is being drawn (2 of 10 frames drawn): retry in ")
        # another GIF meanwhile waits for the drawing slot, and says so
        other = client.get(f"/m/{match_id}.gif?steps=0:1", headers=at_once)
        assert other.status_code == 202 and "another replay GIF" in other.get_data(as_text=True)
    finally:
        go_on.set()
    done = client.get(f"/m/{match_id}.gif?steps=10:19")  # waits for it, as before
    assert done.status_code == 200 and done.mimetype == "image/gif"
    assert done.data == real(load_bundle(LONG.read_bytes()), 10, 19)


def test_each_gif_drawn_counts_against_the_gif_rate_limit(tmp_path: Path) -> None:
    for app, match_id in _app(tmp_path, "gif=2/60"):
        client = app.test_client()
        assert client.get(f"/m/{match_id}.gif?steps=0:0").status_code == 200
        assert client.get(f"/m/{match_id}.gif?steps=1:1").status_code == 200
        limited = client.get(f"/m/{match_id}.gif?steps=2:2")
        assert limited.status_code == 429
        assert int(limited.headers["Retry-After"]) >= 1
        assert limited.get_data(as_text=True).startswith(
            "too many gif requests from this address: the limit is 2 per 60 s; retry in ")
        # a cached GIF costs nothing: still served
        assert client.get(f"/m/{match_id}.gif?steps=0:0").status_code == 200
        # another address has its own bucket
        other = client.get(f"/m/{match_id}.gif?steps=2:2",
                           environ_base={"REMOTE_ADDR": "192.0.2.7"})
        assert other.status_code == 200


def test_the_cli_keeps_the_frame_cap(tmp_path: Path) -> None:
    out = tmp_path / "x.gif"
    refused = CliRunner().invoke(cli, ["gif", str(LONG), "--step", f"0:{MAX_GIF_FRAMES}",
                                       "-o", str(out)])
    assert refused.exit_code == 2
    assert f"a GIF holds at most {MAX_GIF_FRAMES} frames" in refused.output
    assert not out.exists()
    helped = CliRunner().invoke(cli, ["gif", "--help"])
    assert f"at most {MAX_GIF_FRAMES}" in " ".join(helped.output.split())
