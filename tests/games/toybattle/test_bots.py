"""The simulation bots: registered, legal, and the greedy one plays better than chance."""

from __future__ import annotations

import random
import time

import pytest

from fairdeal.games import get_bots
from fairdeal.games.toybattle import BOARDS, GAME
from fairdeal.games.toybattle.bots import BOTS, evaluate, play_match

B, R = 0, 1


def test_registry_lists_the_bots() -> None:
    bots = get_bots("toybattle")
    assert set(bots) == {"random", "greedy"}
    assert all(bots[name].name == name for name in bots)


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_bots_choose_legal_actions(name: str) -> None:
    choices = random.Random(7)
    for board in BOARDS:
        state, actions = play_match({"board": board.id}, (name, "random"), choices)
        assert GAME.result(state) is not None and actions


def test_greedy_takes_a_winning_placement(build) -> None:
    state = build(
        stacks={
            11: [(B, "kwak")],
            13: [(B, "kwak")],
            18: [(B, "kwak")],
            22: [(B, "kwak")],
            24: [(B, "kwak")],
        },
        racks=(("skully", "roxy"), ("roxy",)),
    )
    action = BOTS["greedy"].choose(state, random.Random(0))
    assert GAME.action_to_json(action)["base"] == 41


def test_greedy_blocks_an_enemy_next_to_its_hq(build) -> None:
    # red's Kwak on 11 (connected to red through 13 ... 24) threatens blue's HQ
    state = build(
        stacks={
            11: [(R, "kwak")],
            13: [(R, "kwak")],
            17: [(R, "kwak")],
            22: [(R, "kwak")],
            24: [(R, "kwak")],
        },
        racks=(("roxy", "skully"), ("star",)),
    )
    action = BOTS["greedy"].choose(state, random.Random(0))
    assert GAME.action_to_json(action) in (
        {"kind": "place", "troop": "roxy", "base": 11},
        {"kind": "place", "troop": "skully", "base": 11},
    )


def test_evaluate_prefers_medals_and_hates_losing(build) -> None:
    even = build(racks=(("roxy",), ("roxy",)))
    ahead = build(racks=(("roxy",), ("roxy",)), medals=(2, 0))
    assert evaluate(ahead, 0) > evaluate(even, 0) > evaluate(ahead, 1)
    lost = GAME.resign(even, 0)
    assert evaluate(lost, 0) < evaluate(ahead, 1) and evaluate(lost, 1) > evaluate(ahead, 0)


def test_greedy_beats_random_and_both_are_quick() -> None:
    choices = random.Random(2026)
    wins = 0
    start = time.perf_counter()
    for game in range(80):
        seats = ("greedy", "random") if game % 2 == 0 else ("random", "greedy")
        state, _ = play_match({"board": BOARDS[game % 8].id}, seats, choices)
        wins += seats[GAME.result(state).winner] == "greedy"
    elapsed = time.perf_counter() - start
    assert wins >= 70, wins
    assert elapsed < 30, f"80 bot matches took {elapsed:.1f} s"  # ~2 s on one core
