"""Regions: taken once, by whoever first tops all their bases, kept; re-checked after every
change to a base (a discard or a move can complete one for either seat)."""

from __future__ import annotations

from fairdeal.games.toybattle import GAME

B, R = 0, 1
# Castle Field regions by index: 0 [11 12 13 14 18]=3, 1 [13 15 17]=1, 2 [14 16 19]=1, ...


def place(troop: str, base: int) -> dict:
    return {"kind": "place", "troop": troop, "base": base}


def test_topping_every_base_takes_the_medals(build, play) -> None:
    state = build(
        stacks={11: [(B, "kwak")], 13: [(B, "kwak")], 15: [(B, "kwak")]}, racks=(("roxy",), ())
    )
    after = play(state, place("roxy", 17))
    assert after.medals == (1, 0) and after.regions[1] == 0
    assert [r for r in after.regions if r is not None] == [0]


def test_medals_are_kept_when_the_enemy_covers_a_base(build, play) -> None:
    state = build(
        seat=1,
        stacks={
            11: [(B, "kwak")],
            13: [(B, "kwak")],
            15: [(B, "kwak")],
            17: [(B, "skully")],
            22: [(R, "kwak")],
            24: [(R, "kwak")],
        },
        racks=((), ("roxy",)),
        medals=(1, 0),
        regions=[None, 0] + [None] * 6,
    )
    after = play(state, place("roxy", 17))
    assert after.medals == (1, 0) and after.regions[1] == 0


def test_a_region_is_taken_only_once(build, play) -> None:
    # red tops 13 15 17 after blue took the region: red gains nothing
    state = build(
        seat=1,
        stacks={
            13: [(B, "kwak"), (R, "kwak")],
            15: [(B, "kwak"), (R, "kwak")],
            17: [(B, "kwak")],
            22: [(R, "kwak")],
            24: [(R, "kwak")],
        },
        racks=((), ("roxy",)),
        medals=(1, 0),
        regions=[None, 0] + [None] * 6,
    )
    after = play(state, place("roxy", 17))
    assert after.medals == (1, 0) and after.regions[1] == 0


def test_a_discard_can_complete_a_region_for_the_actor(build, play) -> None:
    # blue's Jumbo on 13 discards red's Kwak from 17, uncovering blue's own troop
    state = build(
        stacks={11: [(B, "kwak")], 15: [(B, "kwak")], 17: [(B, "skully"), (R, "kwak")]},
        racks=(("jumbo",), ()),
    )
    after = play(state, place("jumbo", 13))
    assert after.medals == (0, 0)
    after = play(after, {"kind": "jumbo", "target": 17})
    assert after.medals == (1, 0) and after.regions[1] == 0


def test_a_castle_return_can_complete_a_region_for_the_enemy(build, play) -> None:
    # Blue takes its Kwak back from 22 (Castle Field on 15): red's Skully under it is
    # uncovered and completes red's region [17 20 22] (index 5) during blue's turn.
    state = build(
        stacks={
            11: [(B, "kwak")],
            13: [(B, "kwak")],
            17: [(R, "kwak")],
            20: [(R, "kwak")],
            22: [(R, "skully"), (B, "kwak")],
        },
        racks=(("roxy",), ()),
    )
    after = play(state, place("roxy", 15))
    assert after.medals == (0, 0)
    after = play(after, {"kind": "castle", "target": 22})
    assert after.regions[5] == 1 and after.medals == (0, 1) and GAME.result(after) is None


def test_the_enemy_can_win_on_medals_during_my_turn(build, play) -> None:
    state = build(
        stacks={
            11: [(B, "kwak")],
            13: [(B, "kwak")],
            17: [(R, "kwak")],
            20: [(R, "kwak")],
            22: [(R, "skully"), (B, "kwak")],
        },
        racks=(("roxy",), ()),
        medals=(0, 6),
    )
    after = play(play(state, place("roxy", 15)), {"kind": "castle", "target": 22})
    assert GAME.result(after).winner == 1 and GAME.result(after).reason == "medals"


def test_both_reach_the_goal_at_once_the_acting_seat_wins(build, play) -> None:
    # Volcanic Jungle (7 to win): blue on 15 moves red's Roxy from 14 to 17. Uncovered, 14 is
    # blue's: blue completes [11 12 14 15] (2); red's Roxy completes [17 18 20 21 23] (3).
    state = build(
        "volcanic-jungle",
        stacks={
            11: [(B, "kwak")],
            12: [(B, "kwak")],
            14: [(B, "kwak"), (R, "roxy")],
            18: [(R, "kwak")],
            20: [(R, "kwak")],
            21: [(R, "kwak")],
            23: [(R, "kwak")],
        },
        racks=(("skully",), ()),
        reserves=((), ()),
        medals=(5, 4),
    )
    after = play(state, place("skully", 15))
    assert after.medals == (5, 4)
    after = play(after, {"kind": "volcano", "target": 14, "to": 17})
    assert after.medals == (7, 7)
    assert GAME.result(after).winner == 0 and GAME.result(after).reason == "medals"
