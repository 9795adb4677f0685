"""No perspective sees more than it may: changing what is hidden from a seat (the other hand,
the stock's order) or from a spectator (both hands too) never changes its view, its drawing or
its text; with everything shown, the same change shows (the check has teeth)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fairdeal.games import SimpleRng, get_bots, get_game, get_plugin

GAME: Any = get_game("crazy-eights")


def _states() -> list[Any]:
    bots, source = get_bots("crazy-eights"), random.Random(11)
    state = GAME.setup({}, SimpleRng(random.Random(11)))
    states = [state]
    while GAME.result(state) is None and len(states) < 40:
        state = GAME.apply(state, bots["random"].choose(state, source), SimpleRng(source))
        states.append(state)
    return states


def _scrambled(state: Any, hidden_from: int | None) -> Any:
    """The plug-in's own secrecy hook: every part hidden from ``hidden_from`` changed."""
    return get_plugin("crazy-eights").hidden_changed(state, hidden_from)


@pytest.mark.parametrize("perspective", [None, 0, 1])
def test_what_is_hidden_reaches_no_view_drawing_or_text(perspective: int | None) -> None:
    spectator = perspective is None
    for index, state in enumerate(_states()):
        hidden = _scrambled(state, perspective)
        assert GAME.view(state, perspective) == GAME.view(hidden, perspective)
        assert GAME.render_svg(state, perspective, spectator=spectator) == \
            GAME.render_svg(hidden, perspective, spectator=spectator)
        if perspective is not None:
            assert GAME.render_text(state, perspective) == GAME.render_text(hidden, perspective)
        if index == 0:
            assert GAME.render_svg(state) != GAME.render_svg(hidden)
            assert GAME.render_text(state) != GAME.render_text(hidden)
            assert GAME.state_to_json(state) != GAME.state_to_json(hidden)


def test_a_spectator_view_names_no_card_in_a_hand_or_the_stock() -> None:
    for state in _states():
        view = GAME.view(state, None)
        assert view["hands"] == [len(hand) for hand in state.hands]
        assert view["stock"] == len(state.stock) and view["drawn"] in (True, False)
        seat_view = GAME.view(state, 0)
        assert seat_view["hands"] == [list(state.hands[0]), len(state.hands[1])]
