"""A drawing shows no more than its perspective may see: changing what is hidden from a seat
(or from a spectator) never changes the SVG drawn for it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fairdeal.games import get_game

from .conftest import random_play_states


def _states(name: str, count: int = 25) -> list[Any]:
    return random_play_states(name, count, seed=name)


def _scramble_arcomage(data: dict[str, Any], hidden_from: int | None) -> dict[str, Any]:
    data = copy.deepcopy(data)
    for seat, player in enumerate(data["players"]):
        if hidden_from is None or seat != hidden_from:
            player["hand"] = [(card % 102) + 1 for card in player["hand"]]
    if data["deck"].get("draw_pile"):
        data["deck"]["draw_pile"] = list(reversed(data["deck"]["draw_pile"]))
    return data


_OTHER_TROOP = {"kwak": "roxy", "skully": "star", "capn": "hook", "jumbo": "xb42",
                "hook": "capn", "xb42": "jumbo", "star": "skully", "roxy": "kwak"}


def _scramble_toybattle(data: dict[str, Any], hidden_from: int | None) -> dict[str, Any]:
    data = copy.deepcopy(data)
    colours = ["blue", "red"]
    for seat, colour in enumerate(colours):
        data["reserves"][colour] = [_OTHER_TROOP[t] for t in data["reserves"][colour]]
        data["set_aside"][colour] = [_OTHER_TROOP[t] for t in data["set_aside"][colour]]
        if hidden_from is None or seat != hidden_from:
            data["racks"][colour] = [_OTHER_TROOP[t] for t in data["racks"][colour]]
            data["frozen"][colour] = []
    return data


SCRAMBLE = {"arcomage": _scramble_arcomage, "toybattle": _scramble_toybattle}


@pytest.mark.parametrize("name", sorted(SCRAMBLE))
@pytest.mark.parametrize("perspective", [None, 0, 1])
def test_hidden_information_does_not_reach_the_drawing(name: str,
                                                       perspective: int | None) -> None:
    game: Any = get_game(name)
    spectator = perspective is None
    for index, state in enumerate(_states(name)):
        hidden = game.state_from_json(SCRAMBLE[name](game.state_to_json(state), perspective))
        drawn = game.render_svg(state, perspective, spectator=spectator)
        assert drawn == game.render_svg(hidden, perspective, spectator=spectator)
        if index == 0:
            # the check has teeth: with everything shown, the same change is visible
            assert game.render_svg(state) != game.render_svg(hidden)


@pytest.mark.parametrize("name", sorted(SCRAMBLE))
@pytest.mark.parametrize("seat", [0, 1])
def test_hidden_information_does_not_reach_the_text(name: str, seat: int) -> None:
    """``render_text`` from a seat keeps the same secrets as the drawing."""
    game: Any = get_game(name)
    for index, state in enumerate(_states(name)):
        # the draw order and the other seat's hand change; the seat's own hand stays
        hidden = game.state_from_json(SCRAMBLE[name](game.state_to_json(state), seat))
        assert game.render_text(state, seat) == game.render_text(hidden, seat)
        if index == 0:
            assert game.render_text(state) != game.render_text(hidden)
