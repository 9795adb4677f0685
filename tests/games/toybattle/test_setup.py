"""The deal: shuffles, the troops set aside, the first player and the opening draws."""

from __future__ import annotations

import pytest

from fairdeal.games.toybattle import GAME
from fairdeal.games.toybattle.actions import Draw
from fairdeal.games.toybattle.troops import full_army
from fairdeal.verifier.rng import RandomStream


@pytest.mark.parametrize("key", [bytes(32), bytes(range(32)), b"\xff" * 32])
def test_setup_follows_the_named_substreams(key: bytes) -> None:
    state = GAME.setup({"board": "battlefield"}, RandomStream(key, "setup"))
    first = RandomStream(key, "setup/first-player").randbelow(2)
    assert state.first == first and state.seat == first and state.turn == 1
    for seat, colour in enumerate(("blue", "red")):
        army = full_army()
        RandomStream(key, f"setup/troops/{colour}").shuffle(army)
        opening = 3 if seat == first else 4
        assert state.set_aside[seat] == tuple(army[:4])
        assert state.racks[seat] == tuple(army[4 : 4 + opening])
        assert state.reserves[seat] == tuple(army[4 + opening :])
        assert sorted(state.set_aside[seat] + state.racks[seat] + state.reserves[seat]) == sorted(
            full_army()
        )
    assert all(not stack for stack in state.stacks)
    assert state.medals == (0, 0) and state.outcome is None


def test_both_seats_get_to_start() -> None:
    firsts = {GAME.setup({}, RandomStream(bytes([i]) * 32, "setup")).first for i in range(20)}
    assert firsts == {0, 1}


def test_first_turn_may_draw_or_place_next_to_the_hq() -> None:
    state = GAME.setup({"board": "castle-field"}, RandomStream(bytes(32), "setup"))
    actions = GAME.legal_actions(state)
    assert actions[0] == Draw()
    hq_neighbours = (11, 12) if state.seat == 0 else (24, 25)
    placed = {(a.troop, a.base) for a in actions[1:]}
    assert placed == {(t, b) for t in set(state.racks[state.seat]) for b in hq_neighbours}
