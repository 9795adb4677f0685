"""Properties of whole matches played at random from random seeds (Hypothesis)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.games.arcomage import BATTLEFIELDS, GAME, ArcomageState, state_from_json
from fairdeal.games.arcomage.state import ACT, DISCARD
from fairdeal.verifier.rng import RandomStream

ALL_CARDS = Counter(range(1, 103))


def _check_invariants(state: ArcomageState) -> None:
    assert min(state.stats) >= 0, state.stats
    if not state.infinite:
        held = Counter(state.draw_pile) + Counter(state.discard_pile)
        for hand in state.hands:
            held += Counter(hand)
        assert held == ALL_CARDS  # every card exactly once, wherever it is
    if state.result is None:
        size = len(state.hands[state.turn])
        assert size == 6
        assert state.phase in (ACT, DISCARD)


@settings(max_examples=60, deadline=None)
@given(
    key=st.binary(min_size=32, max_size=32),
    field=st.sampled_from([f.id for f in BATTLEFIELDS]),
    deck=st.sampled_from(["normal", "infinite"]),
    choices=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_random_matches_keep_every_number_at_or_above_zero(
    key: bytes, field: str, deck: str, choices: int
) -> None:
    pick = random.Random(choices)
    state = GAME.setup({"battlefield": field, "deck": deck}, RandomStream(key, "setup"))
    _check_invariants(state)
    for ply in range(300):
        if GAME.result(state) is not None:
            break
        before = GAME.state_to_json(state)
        rng = RandomStream(key, f"ply/{ply}")
        if pick.random() < 0.05:
            following = GAME.timeout(state, rng)
        else:
            following = GAME.apply(state, pick.choice(GAME.legal_actions(state)), rng)
        assert GAME.state_to_json(state) == before  # the input is never changed
        state = following
        _check_invariants(state)
        data = GAME.state_to_json(state)
        assert GAME.state_to_json(state_from_json(data)) == data
        for seat in (0, 1, None):
            view = GAME.view(state, seat)
            for other in (0, 1):
                assert isinstance(view["players"][other]["hand"], list) == (other == seat)


@settings(max_examples=30, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), deck=st.sampled_from(["normal", "infinite"]))
def test_the_same_seed_and_moves_give_the_same_match(key: bytes, deck: str) -> None:
    def run() -> list[object]:
        pick = random.Random(key)
        state = GAME.setup({"deck": deck}, RandomStream(key, "setup"))
        trail = [GAME.state_to_json(state)]
        for ply in range(40):
            if GAME.result(state) is not None:
                break
            action = pick.choice(GAME.legal_actions(state))
            state = GAME.apply(state, action, RandomStream(key, f"ply/{ply}"))
            trail.append(GAME.state_to_json(state))
        return trail

    assert run() == run()
