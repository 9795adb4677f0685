"""The placement rules, one by one (blue is seat 0 with HQ 1; red seat 1 with HQ 41)."""

from __future__ import annotations

import pytest

from fairdeal.games import IllegalAction
from fairdeal.games.toybattle import BOARD_BY_ID, GAME
from fairdeal.games.toybattle.actions import Place

B, R = 0, 1


def placeable(state, troop: str) -> set[int]:
    return {a.base for a in GAME.legal_actions(state) if isinstance(a, Place) and a.troop == troop}


def test_empty_base_next_to_the_hq(build, play) -> None:
    state = build(racks=(("roxy",), ()))
    assert placeable(state, "roxy") == {11, 12}
    after = play(state, {"kind": "place", "troop": "roxy", "base": 11})
    assert after.stacks[11] == ((B, "roxy"),) and after.racks[0] == ()
    assert after.seat == 1 and after.turn == state.turn + 1


def test_empty_base_connected_through_own_troops(build, play) -> None:
    state = build(stacks={11: [(B, "skully")], 13: [(B, "capn")]}, racks=(("roxy",), ()))
    assert placeable(state, "roxy") == {11, 12, 13, 15, 17, 18}
    play(state, {"kind": "place", "troop": "roxy", "base": 17})


def test_enemy_troop_breaks_the_path(build, play) -> None:
    # 13 is topped by red: 17 beyond it is not connected for blue any more
    state = build(
        stacks={11: [(B, "skully")], 13: [(B, "capn"), (R, "roxy")]}, racks=(("star",), ())
    )
    with pytest.raises(IllegalAction, match="base 17 is not connected to your HQ"):
        play(state, {"kind": "place", "troop": "star", "base": 17})


def test_empty_base_far_away_is_illegal(build, play) -> None:
    state = build(racks=(("roxy",), ()))
    with pytest.raises(IllegalAction, match="base 22 is not connected"):
        play(state, {"kind": "place", "troop": "roxy", "base": 22})


def test_on_own_stack(build, play) -> None:
    state = build(stacks={11: [(B, "roxy")]}, racks=(("skully",), ()))
    assert 11 in placeable(state, "skully")
    after = play(state, {"kind": "place", "troop": "skully", "base": 11})
    assert after.stacks[11] == ((B, "roxy"), (B, "skully"))


def test_own_stack_cut_off_from_the_hq_needs_a_connection(build, play) -> None:
    # The connection rule holds for every placement (see the rules document).
    state = build(stacks={22: [(B, "roxy")]}, racks=(("skully",), ()))
    with pytest.raises(IllegalAction, match="base 22 is not connected"):
        play(state, {"kind": "place", "troop": "skully", "base": 22})


def test_on_a_weaker_enemy(build, play) -> None:
    state = build(stacks={11: [(R, "jumbo")]}, racks=(("hook",), ()))
    after = play(state, {"kind": "place", "troop": "hook", "base": 11})
    assert after.stacks[11] == ((R, "jumbo"), (B, "hook"))


@pytest.mark.parametrize("enemy", ["hook", "xb42", "roxy"])
def test_not_on_an_equal_or_stronger_enemy(build, play, enemy: str) -> None:
    state = build(stacks={11: [(R, enemy)]}, racks=(("hook",), ()))
    assert 11 not in placeable(state, "hook")
    with pytest.raises(IllegalAction, match="is not stronger than the enemy"):
        play(state, {"kind": "place", "troop": "hook", "base": 11})


def test_kwak_covers_any_enemy(build, play) -> None:
    state = build(stacks={11: [(R, "roxy")], 12: [(R, "kwak")]}, racks=(("kwak",), ()))
    assert placeable(state, "kwak") == {11, 12}
    after = play(state, {"kind": "place", "troop": "kwak", "base": 11})
    assert after.stacks[11][-1] == (B, "kwak")


def test_any_enemy_covers_kwak(build, play) -> None:
    state = build(stacks={11: [(R, "kwak")]}, racks=(("skully",), ()))
    after = play(state, {"kind": "place", "troop": "skully", "base": 11})
    assert after.stacks[11][-1] == (B, "skully")


def test_enemy_hq_when_connected_wins(build, play) -> None:
    state = build(
        stacks={
            11: [(B, "kwak")],
            13: [(B, "kwak")],
            18: [(B, "kwak")],
            22: [(B, "kwak")],
            24: [(B, "kwak")],
        },
        racks=(("skully",), ()),
    )
    assert 41 in placeable(state, "skully")
    after = play(state, {"kind": "place", "troop": "skully", "base": 41})
    assert GAME.result(after).winner == 0 and GAME.result(after).reason == "hq-captured"
    assert after.captor == (41, 0, "skully") and after.racks[0] == ()
    assert GAME.current_seat(after) is None and GAME.legal_actions(after) == []


def test_enemy_hq_not_connected_is_illegal(build, play) -> None:
    state = build(stacks={24: [(B, "kwak")]}, racks=(("roxy",), ()))
    with pytest.raises(IllegalAction, match="enemy HQ 41 is not connected"):
        play(state, {"kind": "place", "troop": "roxy", "base": 41})


def test_never_on_own_hq(build, play) -> None:
    state = build(seat=1, racks=((), ("roxy",)))
    with pytest.raises(IllegalAction, match="41 is your own HQ"):
        play(state, {"kind": "place", "troop": "roxy", "base": 41})


def test_only_troops_on_the_rack(build, play) -> None:
    state = build(racks=(("roxy",), ("hook",)))
    with pytest.raises(IllegalAction, match="blue has no 'hook' on the rack"):
        play(state, {"kind": "place", "troop": "hook", "base": 11})


def test_unknown_node(build, play) -> None:
    state = build(racks=(("roxy",), ()))
    with pytest.raises(IllegalAction, match="no base 30 on Castle Field"):
        play(state, {"kind": "place", "troop": "roxy", "base": 30})


def test_hook_ignores_the_connection(build, play) -> None:
    state = build(stacks={22: [(R, "jumbo")]}, racks=(("hook", "roxy"), ()))
    assert placeable(state, "hook") == set(BOARD_BY_ID["castle-field"].bases)
    assert placeable(state, "roxy") == {11, 12}
    after = play(state, {"kind": "place", "troop": "hook", "base": 22})
    assert after.stacks[22][-1] == (B, "hook")


def test_hook_still_needs_strength(build, play) -> None:
    state = build(stacks={22: [(R, "xb42")]}, racks=(("hook",), ()))
    with pytest.raises(IllegalAction, match="not stronger"):
        play(state, {"kind": "place", "troop": "hook", "base": 22})


def test_hook_on_the_enemy_hq_needs_the_connection(build, play) -> None:
    state = build(stacks={24: [(B, "kwak")], 25: [(B, "kwak")]}, racks=(("hook",), ()))
    with pytest.raises(IllegalAction, match="enemy HQ 41 is not connected"):
        play(state, {"kind": "place", "troop": "hook", "base": 41})


def test_hook_free_placement_not_on_metal_x(build, play) -> None:
    state = build("station-metal-x", racks=(("hook",), ()))
    bases = placeable(state, "hook")
    assert {16, 17, 18}.isdisjoint(bases) and {11, 19, 23} <= bases
    with pytest.raises(IllegalAction, match="Hook's free placement is not allowed"):
        play(state, {"kind": "place", "troop": "hook", "base": 17})


def test_hook_reaches_metal_x_when_connected(build, play) -> None:
    state = build(
        "station-metal-x", stacks={12: [(B, "kwak")], 13: [(B, "kwak")]}, racks=(("hook",), ())
    )
    assert 16 in placeable(state, "hook")


def test_hook_free_placement_not_on_pool_limited_bases(build, play) -> None:
    state = build("tropical-pool", racks=(("hook",), ()))
    bases = placeable(state, "hook")
    assert {16, 18}.isdisjoint(bases) and {14, 19, 20, 23} <= bases
    with pytest.raises(IllegalAction, match="Hook's free placement is not allowed"):
        play(state, {"kind": "place", "troop": "hook", "base": 18})


def test_frozen_troop_cannot_be_placed(build, play) -> None:
    state = build(racks=(("roxy", "star", "roxy"), ()), frozen=((0, 2), ()))
    assert placeable(state, "roxy") == set() and placeable(state, "star") == {11, 12}
    with pytest.raises(IllegalAction, match="'roxy' is frozen"):
        play(state, {"kind": "place", "troop": "roxy", "base": 11})


def test_a_free_copy_of_a_frozen_kind_can_be_placed(build, play) -> None:
    state = build(racks=(("roxy", "skully", "roxy"), ()), frozen=((2,), ()))
    after = play(state, {"kind": "place", "troop": "roxy", "base": 11})
    assert after.racks[0] == ("skully", "roxy")


def test_the_freeze_follows_its_troop_on_the_rack(build, play) -> None:
    state = build(racks=(("roxy", "skully", "roxy"), ()), frozen=((2,), ()))
    after = play(state, {"kind": "place", "troop": "skully", "base": 11})
    assert after.pending and after.seat == 0  # Skully's draw waits for an answer
    assert after.racks[0] == ("roxy", "roxy") and after.frozen[0] == (1,)
    after = play(after, {"kind": "skip"})
    assert after.frozen[0] == ()  # blue's turn ended: its troops thaw


def test_apply_refuses_actions_after_the_end(build, play) -> None:
    state = build(
        stacks={
            24: [(B, "kwak")],
            22: [(B, "kwak")],
            18: [(B, "kwak")],
            13: [(B, "kwak")],
            11: [(B, "kwak")],
        },
        racks=(("roxy", "star"), ()),
    )
    over = play(state, {"kind": "place", "troop": "roxy", "base": 41})
    with pytest.raises(IllegalAction, match="the match is over"):
        play(over, {"kind": "place", "troop": "star", "base": 12})
