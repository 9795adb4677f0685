"""API fixtures: an app over a fresh ledger (SQLite file in tmp_path; PostgreSQL where asked),
and a tiny driver that plays a match through the Flask test client."""

from __future__ import annotations

import copy
import os
import random
import secrets
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text

from fairdeal.games import GamePlugin, get_bots, get_game, get_plugin, plugins
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import client_commitment, seat_message
from fairdeal.web.app import create_app

PG_ENV = "FAIRDEAL_TEST_POSTGRES_URL"
PG_SKIP = (f"PostgreSQL tests need a server: set {PG_ENV}, e.g. "
           f"{PG_ENV}=postgresql+psycopg://postgres@127.0.0.1:5432/test")


def make_ledger(backend: str, tmp_path: Any, **kwargs: Any) -> Iterator[Ledger]:
    """A ledger on ``backend`` ("sqlite" or "postgresql"), disposed afterwards."""
    key = load_or_create_server_key(tmp_path)
    if backend == "sqlite":
        engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
        ledger = Ledger(EventStore(engine), key, **kwargs)
        yield ledger
        ledger.stop_sweeper()
        engine.dispose()
        return
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(PG_SKIP)
    schema = "t_" + secrets.token_hex(6)
    engine = open_engine(url, pg_schema=schema)
    ledger = Ledger(EventStore(engine), key, **kwargs)
    try:
        yield ledger
    finally:
        ledger.stop_sweeper()
        engine.dispose()
        admin = create_engine(url)
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def ledger(tmp_path: Any) -> Iterator[Ledger]:
    yield from make_ledger("sqlite", tmp_path)


@pytest.fixture
def app(ledger: Ledger) -> Flask:
    return create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False, "TESTING": True})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Driver:
    """Plays matches through an API client; ``record`` sees every response body."""

    def __init__(self, client: FlaskClient, record: Callable[[str, bytes], None] | None = None):
        self.client = client
        self.record = record

    def call(self, method: str, path: str, json: Any = None, token: str | None = None,
             who: str = "spectator") -> Any:
        headers = bearer(token) if token else {}
        response = self.client.open("/api/v1" + path, method=method, json=json, headers=headers)
        if self.record is not None:
            self.record(who, response.data)
        assert response.status_code < 400, (response.status_code, response.get_json())
        return response.get_json()

    def create(self, game: str = "arcomage", **body: Any) -> tuple[str, list[str]]:
        created = self.call("POST", "/matches", {"game": game, **body})
        return created["id"], [seat["token"] for seat in created["seats"]]

    def seed_all(self, match_id: str, tokens: list[str], rng: random.Random,
                 keys: list[SigningKey] | None = None) -> list[dict[str, Any]]:
        """Every seat adds a seed: in one step, or — when the seats hold ``keys`` — in two
        signed steps (commit, then reveal once all have committed). Returns the answers."""
        answers = []
        if keys is None:
            for seat, token in enumerate(tokens):
                answers.append(self.call("POST", f"/matches/{match_id}/seed",
                                         {"client_seed": rng.randbytes(32).hex()}, token,
                                         who=f"seat{seat}"))
            return answers
        seeds = [rng.randbytes(32).hex() for _ in tokens]
        steps = [("seed_commit", "commitment", client_commitment(match_id, seat, seed))
                 for seat, seed in enumerate(seeds)]
        steps += [("seed_reveal", "client_seed", seed) for seed in seeds]
        for index, (kind, name, value) in enumerate(steps):
            seat = index % len(tokens)
            view = self.call("GET", f"/matches/{match_id}", token=tokens[seat])
            draft = {"seq": view["next_seq"], "prev": view["head"], "type": kind,
                     "seat": seat, name: value}
            answers.append(self.call(
                "POST", f"/matches/{match_id}/seed",
                {name: value, "expected_seq": view["next_seq"],
                 "sig": keys[seat].sign(seat_message(draft)).hex()},
                tokens[seat], who=f"seat{seat}"))
        return answers

    def play_out(self, match_id: str, tokens: list[str], rng: random.Random,
                 limit: int = 5_000) -> int:
        """Random legal moves until the match ends; returns the number of moves."""
        moves = 0
        for _ in range(limit):
            public = self.call("GET", f"/matches/{match_id}")
            if public["status"] == "ended":
                return moves
            seat = public["current_seat"]
            view = self.call("GET", f"/matches/{match_id}", token=tokens[seat], who=f"seat{seat}")
            self.call("POST", f"/matches/{match_id}/actions",
                      {"action": rng.choice(view["legal_actions"]),
                       "expected_seq": view["next_seq"], "action_id": f"m{moves}"},
                      tokens[seat], who=f"seat{seat}")
            moves += 1
        raise AssertionError("the match did not end")


@pytest.fixture
def driver(client: FlaskClient) -> Driver:
    return Driver(client)


# --- secrecy helpers: a match played live move by move, and states whose hidden parts differ

_OTHER_TROOP = {"kwak": "roxy", "skully": "star", "capn": "hook", "jumbo": "xb42",
                "hook": "capn", "xb42": "jumbo", "star": "skully", "roxy": "kwak"}


def _other_arcomage(data: dict[str, Any], seen_by: int | None) -> dict[str, Any]:
    data = copy.deepcopy(data)
    for seat, player in enumerate(data["players"]):
        if seat != seen_by:
            player["hand"] = [(card % 102) + 1 for card in player["hand"]]
    data["deck"]["draw_pile"] = list(reversed(data["deck"]["draw_pile"]))
    return data


def _other_toybattle(data: dict[str, Any], seen_by: int | None) -> dict[str, Any]:
    data = copy.deepcopy(data)
    for seat, colour in enumerate(("blue", "red")):
        data["reserves"][colour] = [_OTHER_TROOP[t] for t in data["reserves"][colour]]
        data["set_aside"][colour] = [_OTHER_TROOP[t] for t in data["set_aside"][colour]]
        if seat != seen_by:
            data["racks"][colour] = [_OTHER_TROOP[t] for t in data["racks"][colour]]
            data["frozen"][colour] = [_OTHER_TROOP[t] for t in data["frozen"][colour]]
    return data


_OTHER = {"arcomage": _other_arcomage, "toybattle": _other_toybattle}


def proved_secret() -> tuple[str, ...]:
    """The games ``other_hidden`` can change the hidden parts of: the built-in ones above, and
    every plug-in whose ``GamePlugin.hidden_changed`` gives such a state."""
    offered = tuple(plugin.name for plugin in plugins()
                    if type(plugin).hidden_changed is not GamePlugin.hidden_changed)
    return (*_OTHER, *(name for name in offered if name not in _OTHER))


def other_hidden(name: str, state: Any, seen_by: int | None = None) -> Any:
    """``state`` with every part hidden from ``seen_by`` (None: a spectator) changed."""
    game = get_game(name)
    change = _OTHER.get(name)
    if change is None:  # a plug-in's own: GamePlugin.hidden_changed
        return get_plugin(name).hidden_changed(state, seen_by)
    return game.state_from_json(change(game.state_to_json(state), seen_by))


def live_match(ledger: Ledger, name: str, seed: int) -> Iterator[tuple[str, list[str], Any]]:
    """Play a match of ``name`` move by move through the ledger (random bots, both seats);
    yield ``(match_id, tokens, state before the move)`` before each move."""
    # untimed, unless the rules fix the limit themselves (wyrdstone/2: 60 s a turn)
    limit = 60_000 if name == "wyrdstone" else None
    created = ledger.create_match(name, {}, turn_limit_ms=limit)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(match_id, token, None)
    game = get_game(name)
    bot = get_bots(name)["random"]
    rng = random.Random(seed)
    for index in range(2_000):
        view = ledger.spectator_view(match_id)
        if view["status"] != "playing":
            return
        state = ledger.matches.get(match_id).recorder.state  # the test plays both seats
        yield match_id, tokens, state
        seat = game.current_seat(state)
        ledger.play(match_id, tokens[seat], game.action_to_json(bot.choose(state, rng)),
                    expected_seq=view["next_seq"], action_id=f"m{index}")
    raise AssertionError("the match did not end")


@pytest.fixture
def hidden() -> types.SimpleNamespace:
    """The secrecy helpers: ``hidden.other(name, state, seen_by)`` and
    ``hidden.live_match(ledger, name, seed)``."""
    return types.SimpleNamespace(other=other_hidden, live_match=live_match,
                                 proved=proved_secret())
