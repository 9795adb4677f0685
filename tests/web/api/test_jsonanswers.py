"""The API's JSON answers by orjson (web/jsonanswers.py) are Flask's own bytes: over every answer
of matches of every game played through the API, and over generated values of every kind, the
fast path gives json's bytes or gives way to it."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import json
import random
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.json.provider import DefaultJSONProvider

from fairdeal.games import plugins
from fairdeal.web import jsonanswers
from fairdeal.web.api import fastpath
from fairdeal.web.jsonanswers import FastJSONProvider, fast_bytes

pytestmark = pytest.mark.skipif(not jsonanswers.ENABLED, reason="no orjson, or FAIRDEAL_PURE")


#: Flask's own provider, with the app's settings (unsorted, compact); it holds its app weakly
_PLAIN_APP = Flask(__name__)
_PLAIN = DefaultJSONProvider(_PLAIN_APP)
_PLAIN.sort_keys = False


def flask_bytes(value: Any) -> bytes:
    """What Flask's own provider answers for ``value``."""
    with _PLAIN_APP.app_context():
        return _PLAIN.response(value).get_data()


def same_or_refused(value: Any) -> bool:
    """fast_bytes gives json's compact bytes for ``value``, or None; True when it gave them."""
    fast = fast_bytes(value)
    if fast is not None:
        assert fast == json.dumps(value, separators=(",", ":")).encode(), value
    return fast is not None


@dataclasses.dataclass
class Seat:
    name: str


class Text(str):
    pass


class Count(int):
    pass


def test_every_ascii_character_and_the_escapes() -> None:
    for code in range(128):
        taken = same_or_refused({"c": chr(code), chr(code): [chr(code) * 3]})
        assert taken == (code != 0x7F), code  # DEL: json writes \u007f, orjson DEL itself


@pytest.mark.parametrize("value", [
    "é", "☃", "\u2028", "😀", {"key é": 1},  # json writes \uXXXX past ASCII
    1.5, 1e-7, 1e16, 2.0, [0.1], {"x": -3.25},  # floats: json's and orjson's forms differ
    2**64, -(2**63) - 1, {1: "a"}, {None: 1}, {True: 1},  # past 64 bits, keys not strings
    Text("a"), Count(3), {"a": Text("b")}, [Count(1)],  # subclasses: json's own treatment
    Seat("x"), datetime.date(2026, 1, 2), datetime.datetime(2026, 1, 2, 3, 4),  # Flask's default
    decimal.Decimal("1.5"), "\ud800",  # Flask's default; a lone surrogate
])
def test_what_orjson_would_write_otherwise_goes_to_json(value: Any) -> None:
    assert fast_bytes(value) is None


@pytest.mark.parametrize("value", [
    None, True, False, 0, -1, 2**63 - 1, -(2**63), 2**64 - 1, "", [], {}, [[[]]],
    {"b": 1, "a": [True, None, "x"]}, {"v1.2": "3e+4 and 5e-6", "hash": "3e4f" * 16},
    (1, 2), {"t": (None, "y")}, uuid.UUID(int=7),
])
def test_what_orjson_writes_as_json_does(value: Any) -> None:
    if isinstance(value, str) or "v1.2" in str(value):
        # a float's mark inside a string only sends the value to json
        fast = fast_bytes(value)
        assert fast is None or fast == json.dumps(value, separators=(",", ":")).encode()
        return
    assert fast_bytes(value) == flask_bytes(value)[:-1]


def test_generated_values() -> None:
    rng = random.Random(20)
    alphabet = "abcxyz \"\\/\n\t\x00\x1f\x7f.e+-0123456789éü☃😀"

    def value(depth: int) -> Any:
        kind = rng.randrange(8 if depth < 4 else 5)
        if kind == 0:
            return rng.choice([None, True, False])
        if kind == 1:
            return rng.choice([rng.randrange(-10**6, 10**6), rng.randrange(-2**70, 2**70)])
        if kind == 2:
            return "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
        if kind == 3:
            return rng.choice([rng.random() * 10**rng.randrange(-8, 20), 0.5])
        if kind == 4:
            return rng.choice(["seat", "3e4f", "legal_actions"])
        if kind == 5:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {str(value(depth + 1)) if rng.random() < 0.9 else rng.randrange(9):
                value(depth + 1) for _ in range(rng.randrange(4))}

    taken = sum(same_or_refused(value(0)) for _ in range(3_000))
    assert taken > 300  # the fast path is taken often enough to be tested here


@pytest.mark.parametrize("game", [plugin.name for plugin in plugins()])
def test_every_answer_of_played_matches(app: Flask, driver: Any, game: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each jsonify of a match played through the API, its bytes against Flask's own."""
    assert isinstance(app.json, FastJSONProvider)
    answers: list[bytes] = []
    values: list[Any] = []
    respond = FastJSONProvider.response

    def recorded(self: FastJSONProvider, *args: Any, **kwargs: Any) -> Any:
        response = respond(self, *args, **kwargs)
        answers.append(response.get_data())
        values.append(self._prepare_response_obj(args, kwargs))
        return response

    def recorded_fast(value: Any) -> bytes | None:
        # the API's fast path (web/api/fastpath.py) writes a move's and a view's answer with
        # fast_bytes itself, and goes to the provider when that refuses
        data = fast_bytes(value)
        if data is not None:
            answers.append(data + b"\n")
            values.append(value)
        return data

    monkeypatch.setattr(FastJSONProvider, "response", recorded)
    monkeypatch.setattr(fastpath, "fast_bytes", recorded_fast)
    rng = random.Random(game)
    match_id, tokens = driver.create(game)
    driver.seed_all(match_id, tokens, rng)
    driver.play_out(match_id, tokens, rng)
    driver.call("GET", f"/matches/{match_id}/events")
    driver.call("GET", "/matches")
    driver.client.get("/api/v1/no-such-route")
    assert len(answers) > 20
    fast = sum(fast_bytes(value) is not None for value in values)
    assert fast > len(values) // 2, (fast, len(values))  # the answers a move needs are fast
    for answer, value in zip(answers, values, strict=True):
        assert answer == flask_bytes(value)
