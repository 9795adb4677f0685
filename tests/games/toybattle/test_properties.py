"""Properties of random legal play: it ends, apply never changes its input, troops are never
created or lost, and ``legal_actions`` lists exactly what ``apply`` accepts."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.games import IllegalAction
from fairdeal.games.toybattle import BOARDS, GAME, State
from fairdeal.games.toybattle.actions import Place
from fairdeal.games.toybattle.rules import RACK_MAX
from fairdeal.games.toybattle.troops import TROOP_IDS, full_army
from fairdeal.verifier.protocol import ply_stream, setup_stream

#: far above any real match (the turn limit ends a match by turn 200)
MAX_PLIES = 1500


def check_invariants(state: State) -> None:
    board = state.board
    for seat in (0, 1):
        on_board = [t for base in board.bases for owner, t in state.stacks[base] if owner == seat]
        if state.captor is not None and state.captor[1] == seat:
            on_board.append(state.captor[2])
        every = (
            list(state.racks[seat])
            + list(state.reserves[seat])
            + list(state.set_aside[seat])
            + list(state.discards[seat])
            + on_board
        )
        assert Counter(every) == Counter(full_army()), "troops were created or lost"
        assert len(state.set_aside[seat]) == 4
        assert len(state.racks[seat]) <= RACK_MAX
        assert all(0 <= i < len(state.racks[seat]) for i in state.frozen[seat])
        owners = zip(board.regions, state.regions, strict=True)
        taken = sum(region.medals for region, who in owners if who == seat)
        assert state.medals[seat] == taken
    for region, who in zip(board.regions, state.regions, strict=True):
        if who is None:  # an untaken region is never fully topped by one seat
            owners = {state.stacks[b][-1][0] if state.stacks[b] else None for b in region.bases}
            assert len(owners) > 1 or owners == {None}
    if state.outcome is None:
        assert GAME.legal_actions(state), "a live state always offers an action"
    else:
        assert state.pending == () and GAME.current_seat(state) is None


@settings(max_examples=60, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    board=st.sampled_from([b.id for b in BOARDS]),
    choices=st.randoms(use_true_random=False),
    timeout_rate=st.sampled_from([0.0, 0.05, 0.3]),
)
def test_random_legal_play_ends_and_never_mutates(
    seed: bytes, board: str, choices: random.Random, timeout_rate: float
) -> None:
    state = GAME.setup({"board": board}, setup_stream(seed))
    for ply in range(MAX_PLIES):
        check_invariants(state)
        if GAME.result(state) is not None:
            break
        before = GAME.state_to_json(state)
        if choices.random() < timeout_rate:
            after = GAME.timeout(state, ply_stream(seed, ply))
        else:
            action = choices.choice(GAME.legal_actions(state))
            after = GAME.apply(state, action, ply_stream(seed, ply))
        assert GAME.state_to_json(state) == before, "apply changed its input"
        assert after is not state
        state = after
    else:
        raise AssertionError(f"no result after {MAX_PLIES} plies")
    assert GAME.result(state).reason in {
        "hq-captured",
        "medals",
        "stalemate",
        "timeouts",
        "turn-limit",
    }


@settings(max_examples=25, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    board=st.sampled_from([b.id for b in BOARDS]),
    choices=st.randoms(use_true_random=False),
    depth=st.integers(0, 40),
)
def test_legal_actions_are_exactly_what_apply_accepts(
    seed: bytes, board: str, choices: random.Random, depth: int
) -> None:
    state = GAME.setup({"board": board}, setup_stream(seed))
    for ply in range(depth):
        if GAME.result(state) is not None:
            return
        state = GAME.apply(state, choices.choice(GAME.legal_actions(state)), ply_stream(seed, ply))
    if GAME.result(state) is not None or (state.pending and state.pending[0].effect != "capn"):
        return
    legal = set(GAME.legal_actions(state))
    for troop in TROOP_IDS:
        for node in [n.id for n in state.board.nodes] + [30]:
            action = Place(troop, node)
            try:
                GAME.apply(state, action, ply_stream(seed, 999))
            except IllegalAction:
                assert action not in legal, f"{action} is listed but refused"
            else:
                assert action in legal, f"{action} is accepted but not listed"
