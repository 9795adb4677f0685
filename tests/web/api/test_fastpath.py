"""The API's fast path (web/api/fastpath.py) against Flask: the same status line, headers and
body for every request of whole matches of every game, their errors included.

Two apps serve two copies of one data folder (the same matches, tokens and server key, the
same clock): one with the fast path, one with FAIRDEAL_FAST_PATH off, and every request goes
to both. A move is signed by the server's key over the server's clock, so the same move at
the same time gives the same bytes, receipts included.
"""

from __future__ import annotations

import json
import logging
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from fairdeal.games import plugins
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.web.api import fastpath
from fairdeal.web.api.body import MAX_BODY_BYTES
from fairdeal.web.api.fastpath import FastPath
from fairdeal.web.app import create_app

T0 = 1_790_000_000_000
UNREACHABLE = "postgresql+psycopg://nobody@127.0.0.1:1/fairdeal"


class Pair:
    """The fast app and Flask's over copies of one folder, and a count of the requests the
    fast path answered itself."""

    def __init__(self, folder: Path, game: str) -> None:
        self.now = T0
        base = folder / "base"
        ledger = self._ledger(base)
        created = ledger.create_match(game, seats=["ann", "bob"])
        self.match_id = created.id
        self.tokens = [seat["token"] for seat in created.to_json()["seats"]]
        ledger.store.engine.dispose()
        self.ledgers = []
        self.apps: list[Flask] = []
        for name, fast in (("fast", "on"), ("flask", "off")):
            shutil.copytree(base, folder / name)
            copy = self._ledger(folder / name)
            self.ledgers.append(copy)
            self.apps.append(create_app({"FAIRDEAL_LEDGER": copy, "FAIRDEAL_SWEEPER": False,
                                         "FAIRDEAL_RATE_LIMITS": "off",
                                         "FAIRDEAL_FAST_PATH": fast}))
        assert isinstance(self.apps[0].wsgi_app, FastPath)
        assert not isinstance(self.apps[1].wsgi_app, FastPath)
        self.answered = 0
        self.requests = 0

    def _ledger(self, folder: Path) -> Ledger:
        folder.mkdir(exist_ok=True)
        engine = open_engine(f"sqlite:///{folder / 'ledger.db'}")
        return Ledger(EventStore(engine), load_or_create_server_key(folder),
                      clock=lambda: self.now)

    def close(self) -> None:
        for ledger in self.ledgers:
            ledger.store.engine.dispose()

    def both(self, method: str, path: str, body: Any = None, token: str | None = None,
             raw: bytes | None = None, headers: dict[str, str] | None = None,
             environ: dict[str, Any] | None = None) -> tuple[int, Any]:
        """One request to both apps at the same clock: (status, JSON) once they agree."""
        self.now += 137
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        if data is not None:
            sent.setdefault("Content-Type", "application/json")
        answers = []
        for app in self.apps:
            response = app.test_client().open(path, method=method, data=data, headers=sent,
                                               environ_overrides=environ or {})
            answers.append((response.status, list(response.headers.items()),
                            response.get_data()))
        assert answers[0] == answers[1], (method, path, body)
        self.requests += 1
        status, _headers, got = answers[0]
        code = int(status.split()[0])
        return code, (json.loads(got) if got and method != "HEAD" else None)

    def view(self, seat: int | None) -> dict[str, Any]:
        code, view = self.both("GET", f"/api/v1/matches/{self.match_id}",
                               token=None if seat is None else self.tokens[seat])
        assert code == 200
        return view  # type: ignore[no-any-return]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many answers the fast path wrote itself (not through Flask)."""
    seen = [0]
    answer = FastPath._answer

    def counting(self: FastPath, *args: Any) -> Any:
        seen[0] += 1
        return answer(self, *args)

    monkeypatch.setattr(FastPath, "_answer", counting)
    return seen


def _move(pair: Pair, rng: random.Random, moves: int) -> None:
    """The seat to move moves, after a few of the things a client may get wrong."""
    public = pair.view(None)
    seat = public["current_seat"]
    view = pair.view(seat)
    match = f"/api/v1/matches/{pair.match_id}"
    actions = f"{match}/actions"
    token = pair.tokens[seat]
    move = {"action": rng.choice(view["legal_actions"]), "expected_seq": view["next_seq"],
            "action_id": f"m{moves}"}
    wrong = rng.randrange(24)
    if wrong == 0:  # a stale position
        assert pair.both("POST", actions, {**move, "expected_seq": view["next_seq"] - 1},
                         token)[0] == 409
    elif wrong == 1:  # the other seat's turn
        assert pair.both("POST", actions, move, pair.tokens[1 - seat])[0] in (403, 409, 422)
    elif wrong == 2:  # not a legal action
        assert pair.both("POST", actions, {**move, "action": {"no": "such"}},
                         token)[0] in (400, 422)
    elif wrong == 3:
        assert pair.both("POST", actions, raw=b'{"action": ', token=token)[0] == 400
    elif wrong == 4:
        assert pair.both("POST", actions, {**move, "extra": 1}, token)[0] == 400
    elif wrong == 5:
        assert pair.both("POST", actions, {"action": move["action"]}, token)[0] == 400
    elif wrong == 6:
        assert pair.both("POST", actions, move)[0] == 401
    elif wrong == 7:
        assert pair.both("POST", actions, move,
                         headers={"Authorization": f"Basic {token}"})[0] == 401
    elif wrong == 8:
        assert pair.both("POST", actions, raw=b" " * (MAX_BODY_BYTES + 1), token=token)[0] == 413
    elif wrong == 9:
        assert pair.both("POST", "/api/v1/matches/0000000000000000/actions", move,
                         token)[0] == 404
    elif wrong == 10:
        assert pair.both("POST", actions, raw=b"[1, 2]", token=token)[0] == 400
    elif wrong == 11:
        assert pair.both("POST", actions, raw=b"", token=token)[0] == 400
    elif wrong == 12:
        assert pair.both("GET", match, token="not-a-token")[0] in (401, 403)
    elif wrong == 13:
        assert pair.both("GET", match, headers={"Authorization": "Bearer "})[0] == 401
    elif wrong == 14:
        assert pair.both("GET", f"{match}/")[0] in (308, 404)
    elif wrong == 15:
        assert pair.both("HEAD", match, token=token)[0] == 200
    elif wrong == 16:
        assert pair.both("GET", f"{match}?seat=1&x=%ff", token=token)[0] == 200
    elif wrong == 17:
        assert pair.both("GET", "/api/v1/matches/caf\u00e9")[0] == 404
    elif wrong == 18:  # a body with no length said: Flask reads none
        assert pair.both("POST", actions, move, token,
                         environ={"CONTENT_LENGTH": ""})[0] == 400
    elif wrong == 19:
        assert pair.both("PUT", actions, move, token)[0] in (404, 405)
    elif wrong == 20:
        assert pair.both("POST", actions, raw=json.dumps(move).encode("utf-16"),
                         token=token)[0] == 400
    code, answer = pair.both("POST", actions, move, token)
    assert code == 201 and answer["event"]["seq"] == view["next_seq"]
    if wrong == 21:  # a retry of the move is answered from the store
        code, again = pair.both("POST", actions, move, token)
        assert code == 200 and again["replayed"] and again["event"] == answer["event"]


@pytest.mark.parametrize("game", [plugin.name for plugin in plugins()])
def test_whole_matches_are_answered_as_flask_answers_them(
        tmp_path: Path, game: str, counted: list[int]) -> None:
    pair = Pair(tmp_path, game)
    try:
        rng = random.Random(game)
        for seat, token in enumerate(pair.tokens):
            code, _ = pair.both("POST", f"/api/v1/matches/{pair.match_id}/seed",
                                {"client_seed": rng.randbytes(32).hex()}, token)
            assert code == 201, seat
        moves = 0
        while pair.view(None)["status"] != "ended":
            _move(pair, rng, moves)
            moves += 1
            assert moves < 3_000
        for seat in (None, 0, 1):
            assert pair.view(seat)["status"] == "ended"
        # after the end a move is refused, in the same words
        code, _ = pair.both("POST", f"/api/v1/matches/{pair.match_id}/actions",
                            {"action": 0, "expected_seq": 10**6, "action_id": "late"},
                            pair.tokens[0])
        assert code >= 400
    finally:
        pair.close()
    # the fast path wrote the moves' and views' answers itself: nearly every request
    assert moves >= 5 and counted[0] >= 3 * moves, (moves, counted[0], pair.requests)


def test_an_unreachable_database_is_the_same_503_and_log_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("psycopg")
    answers = []
    for fast in ("on", "off"):
        engine = open_engine(UNREACHABLE, create=False)
        try:
            app = create_app({"FAIRDEAL_LEDGER": Ledger(EventStore(engine),
                                                        load_or_create_server_key(tmp_path)),
                              "FAIRDEAL_SWEEPER": False, "FAIRDEAL_RATE_LIMITS": "off",
                              "FAIRDEAL_FAST_PATH": fast})
            client = app.test_client()
            caplog.clear()
            with caplog.at_level(logging.ERROR, logger="fairdeal.web"):
                got = [client.get("/api/v1/matches/00000000000000aa",
                                  headers={"Authorization": "Bearer x"}),
                       client.post("/api/v1/matches/00000000000000aa/actions",
                                   json={"action": 1, "expected_seq": 3, "action_id": "a"},
                                   headers={"Authorization": "Bearer x"})]
            answers.append(([(r.status, list(r.headers.items()), r.get_data()) for r in got],
                            list(caplog.messages)))
        finally:
            engine.dispose()
    assert answers[0] == answers[1]
    assert [status for status, _, _ in answers[0][0]] == ["503 SERVICE UNAVAILABLE"] * 2
    assert answers[0][1] == [
        "database unavailable (OperationalError, OperationalError) during GET "
        "/api/v1/matches/00000000000000aa",
        "database unavailable (OperationalError, OperationalError) during POST "
        "/api/v1/matches/00000000000000aa/actions"]


def test_a_failure_inside_the_ledger_is_flasks_500(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected error is the API's generic 500 (its catch-all), its text not shown."""
    pair = Pair(tmp_path, "arcomage")
    try:
        for ledger in pair.ledgers:
            monkeypatch.setattr(ledger, "view", lambda *a: (_ for _ in ()).throw(
                RuntimeError("secret detail")))
        code, answer = pair.both("GET", f"/api/v1/matches/{pair.match_id}")
        assert code == 500 and "secret" not in json.dumps(answer)
    finally:
        pair.close()


def _app(tmp_path: Path, **config: Any) -> Flask:
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    return create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False, **config})


def test_off_by_the_switch_or_the_environment(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(_app(tmp_path).wsgi_app, FastPath)
    assert not isinstance(_app(tmp_path, FAIRDEAL_FAST_PATH="off").wsgi_app, FastPath)
    monkeypatch.setenv("FAIRDEAL_FAST_PATH", "0")
    assert not isinstance(_app(tmp_path).wsgi_app, FastPath)


@pytest.mark.parametrize("change", ["before", "after", "teardown", "route", "limit",
                                    "blueprint-before"])
def test_a_hook_or_route_it_would_bypass_keeps_it_out(
        tmp_path: Path, change: str, caplog: pytest.LogCaptureFixture) -> None:
    """What the fast path skips is checked when it is installed: an app with one more hook
    or route it would not run serves everything through Flask, and the log says why."""
    app = _app(tmp_path, FAIRDEAL_FAST_PATH="off")
    assert fastpath._why_not(app) is None
    if change == "before":
        app.before_request(lambda: None)
    elif change == "after":
        app.after_request(lambda response: response)
    elif change == "teardown":
        app.teardown_request(lambda error: None)
    elif change == "route":
        app.add_url_rule("/api/v1/matches/latest", "latest", lambda: "")
    elif change == "limit":
        app.config["MAX_CONTENT_LENGTH"] = 1024
    else:
        app.before_request_funcs.setdefault("api", []).append(lambda: None)
    with caplog.at_level(logging.WARNING, logger="fairdeal.web.api"):
        app.config["FAIRDEAL_FAST_PATH"] = "on"
        assert fastpath.install(app) is False
    assert not isinstance(app.wsgi_app, FastPath)
    assert any("the API fast path is off" in message for message in caplog.messages)
