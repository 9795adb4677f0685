"""The Game interface around the rules: registry, params, action and state JSON, views that
hide what a seat may not see, descriptions and the SVG."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games import get_bots, get_game
from fairdeal.games.arcomage import GAME, Action, state_from_json
from fairdeal.games.base import Game, InvalidAction, InvalidParams
from fairdeal.verifier.rng import RandomStream

Make = Callable[..., Any]
KEY = bytes(range(32))


def test_registered_under_its_name() -> None:
    game: Game = get_game("arcomage")
    assert game is GAME
    assert (game.name, game.title, game.rules_version, game.seat_names) == (
        "arcomage",
        "Two-tower duel",
        "arcomage/1",
        ("A", "B"),
    )
    assert set(get_bots("arcomage")) == {"random", "greedy"}


# --- params -----------------------------------------------------------------------------------


def test_default_params() -> None:
    assert GAME.default_params() == {"battlefield": "archmage-citadel", "deck": "normal"}
    assert GAME.normalize_params({}) == GAME.default_params()


@pytest.mark.parametrize(
    "name",
    [
        "mirror-labyrinth",
        "Mirror Labyrinth",
        "MIRROR labyrinth",
        "Veidrodžių labirintas",
        "zrkadlový LABYRINT",
    ],
)
def test_battlefield_by_any_name(name: str) -> None:
    assert GAME.normalize_params({"battlefield": name, "deck": "Infinite"}) == {
        "battlefield": "mirror-labyrinth",
        "deck": "infinite",
    }


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"battlefield": "Atlantis"}, r"battlefield 'Atlantis' is not one of: archmage-citadel, "),
        ({"battlefield": 3}, r"battlefield 3 is not one of: .*mirror-labyrinth"),
        ({"deck": "endless"}, r"deck 'endless' is not one of: normal, infinite"),
        ({"deck": None}, r"deck None is not one of: normal, infinite"),
        ({"turn_limit": 30}, r"unknown parameter 'turn_limit': .* battlefield and deck"),
        ([("deck", "normal")], r"params must be an object"),
    ],
)
def test_bad_params(params: Any, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        GAME.normalize_params(params)


def test_setup_normalizes_params() -> None:
    state = GAME.setup({"battlefield": "Rūko uostas"}, RandomStream(KEY, "setup"))
    assert state.battlefield.id == "misty-harbor" and not state.infinite


# --- actions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [{"kind": "play", "card": 1}, {"kind": "discard", "card": 102}])
def test_action_round_trip(data: dict[str, Any]) -> None:
    action = GAME.parse_action(data)
    assert isinstance(action, Action)
    assert GAME.action_to_json(action) == data
    assert GAME.parse_action(json.loads(json.dumps(data))) == action


@pytest.mark.parametrize(
    "data",
    [
        None,
        "play 1",
        {"kind": "play"},
        {"kind": "play", "card": 1, "x": 0},
        {"kind": "cast", "card": 1},
        {"kind": "play", "card": 0},
        {"kind": "play", "card": 103},
        {"kind": "play", "card": "7"},
        {"kind": "play", "card": True},
        {"kind": "play", "card": 7.0},
        {"kind": "play", "card": [7]},  # unhashable: no lookup may choke on it
        {"kind": ["play"], "card": 7},
        {"kind": "discard", "card": {"id": 7}},
    ],
)
def test_malformed_actions(data: Any) -> None:
    with pytest.raises(InvalidAction) as raised:
        GAME.parse_action(data)
    assert repr(data) in str(raised.value)


# --- state JSON and views ---------------------------------------------------------------------


def _played_state() -> Any:
    state = GAME.setup({"deck": "normal"}, RandomStream(KEY, "setup"))
    for ply in range(5):
        state = GAME.apply(state, GAME.legal_actions(state)[0], RandomStream(KEY, f"ply/{ply}"))
    return state


def test_state_json_round_trip() -> None:
    state = _played_state()
    data = GAME.state_to_json(state)
    assert json.loads(json.dumps(data)) == data
    assert state_from_json(data) == state
    assert set(data) == {
        "battlefield",
        "victory",
        "turn",
        "phase",
        "players",
        "deck",
        "last",
        "result",
    }
    assert set(data["players"][0]) == {
        "tower",
        "wall",
        "mines",
        "monasteries",
        "barracks",
        "ore",
        "mana",
        "troops",
        "hand",
        "timeouts",
    }
    assert data["deck"]["type"] == "normal" and len(data["deck"]["draw_pile"]) > 80
    over = GAME.resign(state, 0)
    over_json = GAME.state_to_json(over)
    assert GAME.state_to_json(state_from_json(over_json)) == over_json  # detail is not state
    assert over_json["turn"] is None and over_json["result"] == {"winner": 1, "reason": "resigned"}


def test_state_from_json_rejects_nonsense() -> None:
    data = GAME.state_to_json(_played_state())
    data["players"][1]["wall"] = -1
    with pytest.raises(ValueError, match="never negative"):
        state_from_json(data)
    with pytest.raises(ValueError, match="malformed arcomage state"):
        state_from_json({"battlefield": "free-steppe"})


def test_views_hide_hands_and_the_draw_order() -> None:
    state = _played_state()
    full = GAME.state_to_json(state)
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        text = json.dumps(view)
        assert 'draw_pile"' not in text and view["deck"]["draw_pile_size"] == len(state.draw_pile)
        assert view["deck"]["discard_pile"] == full["deck"]["discard_pile"]
        for other in (0, 1):
            hand = view["players"][other]["hand"]
            if other == seat:
                assert hand == list(state.hands[other])
            else:
                assert hand == len(state.hands[other])
            # everything but the hand is public
            public = {k: v for k, v in full["players"][other].items() if k != "hand"}
            assert {k: v for k, v in view["players"][other].items() if k != "hand"} == public


def test_describe_action(make_state: Make) -> None:
    state = make_state()
    assert GAME.describe_action(state, Action("play", 60)) == (
        "A plays Lightning Shard (blue, 11 mana): If your tower is higher than the enemy's "
        "wall, 8 damage to the enemy tower, otherwise 8 damage to all"
    )
    assert (
        GAME.describe_action(state, Action("discard", 102))
        == "A discards Dragon (green, 25 troops)"
    )


# --- the SVG ----------------------------------------------------------------------------------


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # well-formed standalone XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    # a wrapped text is one <text> of <tspan> lines
    return [" ".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_svg_shows_only_the_allowed_hands(make_state: Make) -> None:
    state = make_state(
        hand_a=(102, 8, 10, 12, 38, 43), hand_b=(34, 35, 36, 37, 39, 41), last=(1, "play", 60)
    )
    everything = " ".join(_texts(GAME.render_svg(state)))
    assert "Dragon" in everything and "Dragon's Heart" in everything
    assert "Lightning Shard" in everything  # the card just played, with its effect
    as_a = " ".join(_texts(GAME.render_svg(state, 0)))
    assert "Dragon" in as_a and "Dragon's Heart" not in as_a and "B's hand: 6 cards" in as_a
    as_b = " ".join(_texts(GAME.render_svg(state, 1)))
    assert "Dragon's Heart" in as_b and "Basic Wall" not in as_b


def test_svg_escapes_text_and_draws_to_scale(make_state: Make) -> None:
    state = make_state(
        a={"tower": 100, "wall": 50}, b={"tower": 50, "wall": 0}, last=(0, "play", 34)
    )  # Dragon's Heart: an apostrophe
    svg = GAME.render_svg(state)
    assert "Dragon&#x27;s Heart" in svg
    root = ET.fromstring(svg)
    heights = sorted(
        float(r.get("height", 0))
        for r in root.iter("{http://www.w3.org/2000/svg}rect")
        if r.get("width") in ("60.0",)
    )
    assert heights[1] == pytest.approx(2 * heights[0])  # tower 100 twice as tall as tower 50
    texts = _texts(svg)
    assert "A to act" in texts
