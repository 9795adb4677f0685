"""Action and state JSON, and what each seat may see."""

from __future__ import annotations

import json

import pytest

from fairdeal.games import InvalidAction
from fairdeal.games.toybattle import GAME
from fairdeal.games.toybattle.bots import play_match
from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.rng import RandomStream

B, R = 0, 1

ACTIONS = [
    {"kind": "draw"},
    {"kind": "place", "troop": "hook", "base": 17},
    {"kind": "skip"},
    {"kind": "skully"},
    {"kind": "star"},
    {"kind": "xb42"},
    {"kind": "clouds"},
    {"kind": "jumbo", "target": 18},
    {"kind": "castle", "target": 11},
    {"kind": "volcano", "target": 14, "to": 17},
    {"kind": "cemetery", "troop": "kwak"},
]


@pytest.mark.parametrize("data", ACTIONS, ids=lambda d: d["kind"])
def test_action_json_round_trip(data: dict) -> None:
    action = GAME.parse_action(data)
    assert GAME.action_to_json(action) == data
    assert GAME.parse_action(json.loads(json.dumps(GAME.action_to_json(action)))) == action


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("draw", "an action is a JSON object, got 'draw'"),
        ({}, "unknown action kind None"),
        ({"kind": "attack"}, "unknown action kind 'attack'"),
        ({"kind": "place", "troop": "hook"}, r"missing \['base'\]"),
        ({"kind": "draw", "count": 2}, r"unknown fields \['count'\]"),
        ({"kind": "place", "troop": "dragon", "base": 11}, "must be a troop id.*'dragon'"),
        ({"kind": "place", "troop": "hook", "base": "11"}, "integer node id, got '11'"),
        ({"kind": "jumbo", "target": True}, "integer node id, got True"),
    ],
)
def test_malformed_actions_are_invalid(data: object, message: str) -> None:
    with pytest.raises(InvalidAction, match=message):
        GAME.parse_action(data)


def _a_played_match():
    import random

    state, _ = play_match({"board": "battlefield"}, ("greedy", "random"), random.Random(4))
    return state


def test_state_json_round_trip_and_canonical(build) -> None:
    samples = [
        GAME.setup({"board": "tropical-pool"}, RandomStream(bytes(32), "setup")),
        build(
            stacks={13: [(B, "kwak"), (R, "roxy")]},
            racks=(("hook",), ("star",)),
            frozen=((0,), ()),
            pending=[("capn", 13), ("castle", 13)],
            medals=(2, 1),
        ),
        GAME.resign(build(racks=(("hook",), ())), 1),
        _a_played_match(),
    ]
    for state in samples:
        data = GAME.state_to_json(state)
        canonical_bytes(data)  # raises on anything canonical JSON cannot carry
        again = GAME.state_from_json(json.loads(json.dumps(data)))
        assert again == state
        assert GAME.state_to_json(again) == data


def test_state_json_shows_everything(build) -> None:
    state = GAME.setup({"board": "castle-field"}, RandomStream(bytes(32), "setup"))
    data = GAME.state_to_json(state)
    assert data["set_aside"]["blue"] == list(state.set_aside[0])
    assert data["reserves"]["red"] == list(state.reserves[1])
    assert data["stacks"][0] == {"base": 11, "stack": []}
    assert data["result"] is None and data["pending"] == []


@pytest.mark.parametrize("bad", [{"board": "moon"}, [], {"board": "castle-field"}])
def test_malformed_state_json_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="state field"):
        GAME.state_from_json(bad)


def test_views_hide_what_a_seat_may_not_see(build) -> None:
    state = build(
        stacks={13: [(B, "xb42"), (R, "roxy")]},
        racks=(("hook", "capn"), ("star", "skully", "jumbo")),
        reserves=(("kwak", "roxy"), ("capn",)),
        frozen=((), (1,)),
        discards=(("jumbo",), ()),
    )
    full = json.dumps(GAME.state_to_json(state))
    assert "set_aside" in full
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        text = json.dumps(view)
        assert "set_aside" not in {k for k in view if k != "counts"}
        assert "reserves" not in view and "racks" not in view
        assert view["counts"]["racks"] == {"blue": 2, "red": 3}
        assert view["counts"]["reserves"] == {"blue": 2, "red": 1}
        assert view["counts"]["set_aside"] == {"blue": 4, "red": 4}
        assert view["counts"]["frozen"] == {"blue": 0, "red": 1}
        assert view["stacks"] == GAME.state_to_json(state)["stacks"]  # the board is public
        assert view["discards"] == {"blue": ["jumbo"], "red": []}
        hidden_from_all = ["kwak"]  # set-aside troops (4 Kwaks each in this position)
        assert not any(t in text for t in hidden_from_all)
    blue, red, spectator = GAME.view(state, 0), GAME.view(state, 1), GAME.view(state, None)
    assert blue["rack"] == ["hook", "capn"] and blue["viewer"] == "blue"
    assert red["rack"] == ["star", "skully", "jumbo"] and red["frozen"] == [1]
    assert "rack" not in spectator and spectator["viewer"] is None
    assert "star" not in json.dumps(blue) and "skully" not in json.dumps(blue)
    assert "hook" not in json.dumps(red) and "capn" not in json.dumps(red)
    assert not {"hook", "capn", "star", "skully"} & set(json.dumps(spectator).split('"'))


def test_describe_action_is_one_line(build) -> None:
    state = build(stacks={11: [(R, "skully")]}, racks=(("hook",), ()))
    line = GAME.describe_action(
        state, GAME.parse_action({"kind": "place", "troop": "hook", "base": 11})
    )
    assert line == "blue places blue's Hook (4) on base 11, covering red's Skully (1)"
    pending = build(racks=((), ()), pending=[("skully", 11)])
    assert GAME.describe_action(pending, GAME.parse_action({"kind": "skip"})) == (
        "blue declines Skully's draw"
    )
    for data in ACTIONS + [{"kind": "jumbo", "target": 99}, {"kind": "castle", "target": -1}]:
        text = GAME.describe_action(state, GAME.parse_action(data))
        assert text and "\n" not in text
