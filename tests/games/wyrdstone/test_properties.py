"""Properties of whole duels played at random from random seeds (Hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.games.wyrdstone import GAME, WyrdState
from fairdeal.games.wyrdstone.book import SCHOOLS
from fairdeal.games.wyrdstone.state import HEALTH
from fairdeal.verifier.rng import RandomStream


def _check_invariants(state: WyrdState) -> None:
    assert min(state.energy) >= 0
    assert max(state.health) <= HEALTH
    assert 1 <= state.turn <= 70
    for creature in state.board:
        if creature is not None:
            assert 0 < creature.health <= creature.max_health
            assert creature.stun >= 0 and creature.poison_turns >= 0 and creature.buff_turns >= 0
    if state.result is None:
        assert min(state.health) > 0
    elif state.result.reason == "simultaneous":
        # wyrdstone/2: only one blow strikes both mages, Wrath of the Gods (from turn 50)
        assert state.turn >= 50 and "Wrath" in state.result.detail


@settings(max_examples=60, deadline=None)
@given(
    key=st.binary(min_size=32, max_size=32),
    schools=st.tuples(st.sampled_from(SCHOOLS), st.sampled_from(SCHOOLS)),
    training=st.booleans(),
    choices=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_random_legal_play_ends_by_turn_70_and_never_changes_its_input(
        key: bytes, schools: tuple[str, str], training: bool, choices: int) -> None:
    pick = random.Random(choices)
    params = {"A": {"school": schools[0]}, "B": {"school": schools[1]}, "training": training}
    state = GAME.setup(params, RandomStream(key, "setup"))
    ply = 0
    while GAME.result(state) is None:
        assert ply < 400
        before = GAME.state_to_json(state)
        rng = RandomStream(key, f"ply/{ply}")
        if training and pick.random() < 0.1:
            following = GAME.timeout(state, rng)
        else:
            following = GAME.apply(state, pick.choice(GAME.legal_actions(state)), rng)
        assert GAME.state_to_json(state) == before  # the input is never changed
        state = following
        _check_invariants(state)
        ply += 1
    data = GAME.state_to_json(state)
    assert GAME.state_to_json(GAME.state_from_json(data)) == data
    assert state.turn <= 70 and GAME.legal_actions(state) == []


@settings(max_examples=30, deadline=None)
@given(key=st.binary(min_size=32, max_size=32))
def test_the_same_seed_and_moves_give_the_same_duel(key: bytes) -> None:
    def run() -> list[object]:
        pick = random.Random(key)
        state = GAME.setup({}, RandomStream(key, "setup"))
        trail = [GAME.state_to_json(state)]
        for ply in range(60):
            if GAME.result(state) is not None:
                break
            action = pick.choice(GAME.legal_actions(state))
            state = GAME.apply(state, action, RandomStream(key, f"ply/{ply}"))
            trail.append(GAME.state_to_json(state))
        return trail

    assert run() == run()


@settings(max_examples=30, deadline=None)
@given(key=st.binary(min_size=32, max_size=32))
def test_only_the_stream_decides_random_picks(key: bytes) -> None:
    # the same state and action under two keys: the picks may differ, each is reproducible
    state = GAME.setup({}, RandomStream(key, "setup"))
    for action in GAME.legal_actions(state):
        first = GAME.apply(state, action, RandomStream(key, "ply/0"))
        again = GAME.apply(state, action, RandomStream(key, "ply/0"))
        assert GAME.state_to_json(first) == GAME.state_to_json(again)
