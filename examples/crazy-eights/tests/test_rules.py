"""The rules as RULES.md states them, through the Game interface the registry hands out: the
deal and the buried starter, matching and wild eights, one draw then only that card, passing,
the stock rebuilt (or not), blocked games, the turn cap, timeouts and resigning."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from fairdeal_crazy_eights.cards import CARDS
from fairdeal_crazy_eights.rules import TURN_CAP
from fairdeal_crazy_eights.state import Action

from fairdeal.games import (
    IllegalAction,
    InvalidAction,
    InvalidParams,
    SimpleRng,
    get_bots,
    get_game,
)

GAME: Any = get_game("crazy-eights")


def _rng(seed: int = 0) -> SimpleRng:
    return SimpleRng(random.Random(seed))


def _state(**changes: Any) -> Any:
    """A fresh deal, then the changes (hands, stock, discard, suit, turn ...)."""
    return replace(GAME.setup({}, _rng(1)), **changes)


def _play(card: str, suit: str | None = None) -> Action:
    return GAME.parse_action({"kind": "play", "card": card, **({"suit": suit} if suit else {})})


DRAW = Action("draw")
PASS = Action("pass")


def test_the_deal_is_seven_each_a_starter_and_the_stock() -> None:
    for seed in range(40):
        state = GAME.setup({}, _rng(seed))
        assert [len(hand) for hand in state.hands] == [7, 7]
        assert len(state.discard) == 1 and not state.discard[0].startswith("8")
        assert sorted([*state.hands[0], *state.hands[1], *state.discard, *state.stock]) == \
            sorted(CARDS)
        assert state.suit == {"c": "clubs", "d": "diamonds", "h": "hearts",
                              "s": "spades"}[state.discard[0][-1]]
        # the eights turned up first lie under the stock, in the order they were turned
        assert state.stock[len(state.stock) - len(state.buried):] == state.buried


def test_an_eight_turned_as_the_starter_is_buried() -> None:
    buried = [GAME.setup({}, _rng(seed)).buried for seed in range(400)]
    assert any(buried) and all(all(card.startswith("8") for card in cards) for cards in buried)


def test_a_card_matches_the_suit_or_the_rank_and_an_eight_goes_anywhere() -> None:
    state = _state(turn=0, hands=(("5h", "9c", "8s", "Kd"), ("2c",)), discard=("9h",),
                   suit="hearts", drawn=None)
    assert GAME.legal_actions(state) == [
        _play("5h"), _play("9c"), *(_play("8s", suit) for suit in
                                    ("clubs", "diamonds", "hearts", "spades")), DRAW]
    with pytest.raises(IllegalAction, match=r"^king of diamonds matches neither the suit to "
                                            r"follow \(hearts\) nor the rank of 9 of hearts$"):
        GAME.apply(state, _play("Kd"), _rng())
    after = GAME.apply(state, _play("8s", "diamonds"), _rng())
    assert after.suit == "diamonds" and after.discard[-1] == "8s" and after.turn == 1
    assert GAME.legal_actions(after) == [DRAW]  # 2c matches neither diamonds nor an eight


def test_after_a_draw_only_the_drawn_card_may_be_played_or_the_seat_passes() -> None:
    state = _state(turn=0, hands=(("5h",), ("2c",)), stock=("7h", "Jc"), discard=("9h",),
                   suit="hearts", drawn=None)
    drawn = GAME.apply(state, DRAW, _rng())
    assert drawn.hands[0] == ("5h", "7h") and drawn.drawn == "7h" and drawn.turn == 0
    assert GAME.legal_actions(drawn) == [_play("7h"), PASS]
    with pytest.raises(IllegalAction, match="may play only that card, or pass"):
        GAME.apply(drawn, _play("5h"), _rng())
    with pytest.raises(IllegalAction, match="has drawn already this turn"):
        GAME.apply(drawn, DRAW, _rng())
    assert GAME.apply(drawn, PASS, _rng()).turn == 1


def test_a_seat_passes_without_drawing_only_when_it_can_neither_play_nor_draw() -> None:
    state = _state(turn=0, hands=(("5c",), ("2d",)), stock=(), discard=("9h",),
                   suit="hearts", drawn=None)
    assert GAME.legal_actions(state) == [PASS]
    with pytest.raises(IllegalAction, match="may pass only after drawing"):
        GAME.apply(replace(state, stock=("Kc",)), PASS, _rng())


def test_an_empty_stock_is_rebuilt_from_the_discard_pile_under_its_top() -> None:
    state = _state(turn=0, hands=(("5c",), ("2d",)), stock=(),
                   discard=("Ah", "3h", "Qh", "9h"), suit="hearts", drawn=None)
    drawn = GAME.apply(state, DRAW, _rng(5))
    assert drawn.discard == ("9h",) and len(drawn.stock) == 2
    assert sorted([*drawn.stock, drawn.drawn]) == ["3h", "Ah", "Qh"]
    passing = replace(state, reshuffle=False)
    assert GAME.legal_actions(passing) == [PASS]


def test_two_passes_in_a_row_with_nothing_to_draw_block_the_game_on_points() -> None:
    state = _state(turn=0, hands=(("5c", "Kd"), ("2d", "3d")), stock=(), discard=("9h",),
                   suit="hearts", drawn=None)
    once = GAME.apply(state, PASS, _rng())
    assert GAME.result(once) is None
    blocked = GAME.result(GAME.apply(once, PASS, _rng()))
    assert (blocked.winner, blocked.reason, blocked.detail) == (1, "blocked",
                                                                "A holds 15 points, B 5")


def test_the_turn_cap_ends_every_match_on_points() -> None:
    state = _state(turn=0, hands=(("5h", "Kd"), ("5d", "Kc")), discard=("9h",),
                   suit="hearts", drawn=None, turns=TURN_CAP - 1)
    result = GAME.result(GAME.apply(state, _play("5h"), _rng()))
    assert (result.winner, result.reason) == (0, "turn-cap")


def test_every_bot_match_ends() -> None:
    players = get_bots("crazy-eights")
    assert set(players) == {"random", "greedy"}
    source = random.Random(3)
    for seed in range(20):
        state = GAME.setup({"stock": ("pass", "reshuffle")[seed % 2]}, _rng(seed))
        while GAME.result(state) is None:
            bot = players[("random", "greedy")[GAME.current_seat(state)]]
            state = GAME.apply(state, bot.choose(state, source), _rng(seed))
        assert state.turns <= TURN_CAP


def test_the_last_card_wins_and_the_third_timeout_in_a_row_loses() -> None:
    state = _state(turn=1, hands=(("5c",), ("9h",)), discard=("9c",), suit="clubs",
                   drawn=None)
    won = GAME.result(GAME.apply(state, _play("9h"), _rng()))
    assert (won.winner, won.reason) == (1, "out")
    timed = replace(state, timeouts=(0, 2))
    assert GAME.result(GAME.timeout(timed, _rng())).reason == "timeouts"
    drew = GAME.timeout(replace(state, timeouts=(0, 0)), _rng())
    assert len(drew.hands[1]) == 2 and drew.turn == 0 and drew.timeouts == (0, 1)
    resigned = GAME.result(GAME.resign(state, 0))
    assert (resigned.winner, resigned.reason) == (1, "resigned")


@pytest.mark.parametrize(("data", "error"), [
    ({"kind": "play", "card": "1h"}, "action card must be a card code"),
    ({"kind": "play", "card": "8h"}, "an eight names the next suit"),
    ({"kind": "play", "card": "7h", "suit": "clubs"}, "has exactly the keys kind and card"),
    ({"kind": "draw", "card": "7h"}, "a draw action has only the key kind"),
    ({"kind": "discard"}, "action kind must be 'play', 'draw' or 'pass'"),
    (["play"], "an action is an object"),
])
def test_a_malformed_action_is_refused_naming_it(data: Any, error: str) -> None:
    with pytest.raises(InvalidAction, match=error):
        GAME.parse_action(data)


def test_parameters_are_checked() -> None:
    assert GAME.normalize_params({}) == {"stock": "reshuffle"}
    with pytest.raises(InvalidParams, match="unknown parameter 'deck'"):
        GAME.normalize_params({"deck": "normal"})
