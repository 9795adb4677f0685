"""Every troop effect: optional, answered by the placing seat before its turn ends."""

from __future__ import annotations

import pytest

from fairdeal.games import IllegalAction
from fairdeal.games.toybattle import GAME
from fairdeal.games.toybattle.actions import Jumbo, Place, Skip, Skully, Star, Xb42
from fairdeal.games.toybattle.state import Pending
from fairdeal.verifier.rng import RandomStream

B, R = 0, 1


def place(troop: str, base: int) -> dict:
    return {"kind": "place", "troop": troop, "base": base}


@pytest.mark.parametrize("troop", ["kwak", "roxy", "hook"])
def test_troops_without_a_later_effect_end_the_turn(build, play, troop: str) -> None:
    after = play(build(racks=((troop,), ())), place(troop, 11))
    assert after.pending == () and after.seat == 1


def test_skully_draws_two(build, play) -> None:
    state = build(racks=(("skully",), ()), reserves=(("hook", "star", "roxy"), ()))
    after = play(state, place("skully", 11))
    assert after.pending == (Pending("skully", 11),) and GAME.current_seat(after) == 0
    assert GAME.legal_actions(after) == [Skully(), Skip()]
    after = play(after, {"kind": "skully"})
    assert after.racks[0] == ("hook", "star") and after.reserves[0] == ("roxy",)
    assert after.seat == 1


def test_skully_draws_one_with_seven_on_the_rack(build, play) -> None:
    state = build(racks=(("skully",) + ("kwak",) * 7, ()), reserves=(("hook", "star"), ()))
    after = play(play(state, place("skully", 11)), {"kind": "skully"})
    assert after.racks[0] == ("kwak",) * 7 + ("hook",)


def test_skully_may_be_declined(build, play) -> None:
    state = build(racks=(("skully",), ()), reserves=(("hook", "star"), ()))
    after = play(play(state, place("skully", 11)), {"kind": "skip"})
    assert after.racks[0] == () and after.reserves[0] == ("hook", "star") and after.seat == 1


def test_skully_with_an_empty_reserve_asks_nothing(build, play) -> None:
    after = play(build(racks=(("skully",), ()), reserves=((), ("roxy",))), place("skully", 11))
    assert after.pending == () and after.seat == 1


def test_star_draws_one(build, play) -> None:
    state = build(racks=(("star",), ()), reserves=(("hook", "roxy"), ()))
    after = play(state, place("star", 11))
    assert GAME.legal_actions(after) == [Star(), Skip()]
    after = play(after, {"kind": "star"})
    assert after.racks[0] == ("hook",) and after.reserves[0] == ("roxy",)


def test_xb42_discards_a_random_enemy_troop(build, stream) -> None:
    enemy_rack = ("kwak", "skully", "capn", "jumbo", "hook")
    state = build(racks=(("xb42",), enemy_rack))
    state = GAME.apply(state, Place("xb42", 11), stream("ply/0"))
    assert GAME.legal_actions(state) == [Xb42(), Skip()]
    key_stream = RandomStream(bytes(32), "ply/1")
    after = GAME.apply(state, Xb42(), key_stream)
    pick = RandomStream(bytes(32), "ply/1/xb42").randbelow(len(enemy_rack))
    assert after.discards[1] == (enemy_rack[pick],)
    assert after.racks[1] == enemy_rack[:pick] + enemy_rack[pick + 1 :]


def test_xb42_clears_the_freeze_of_the_troop_it_takes(build, stream) -> None:
    state = build(racks=(("xb42",), ("roxy",)), frozen=((), (0,)))
    state = GAME.apply(state, Place("xb42", 11), stream("a"))
    after = GAME.apply(state, Xb42(), stream("b"))
    assert after.racks[1] == () and after.frozen[1] == () and after.discards[1] == ("roxy",)


def test_xb42_against_an_empty_rack_asks_nothing(build, play) -> None:
    after = play(build(racks=(("xb42",), ())), place("xb42", 11))
    assert after.pending == ()


def test_jumbo_discards_an_adjacent_visible_enemy(build, play) -> None:
    state = build(
        stacks={
            11: [(B, "kwak")],
            15: [(R, "hook"), (R, "star")],
            17: [(R, "skully")],
            18: [(R, "capn"), (B, "roxy")],
            22: [(R, "roxy")],
        },
        racks=(("jumbo",), ()),
    )
    after = play(state, place("jumbo", 13))
    # neighbours of 13: 11 (own), 15 and 17 (enemy tops), 18 (enemy covered by blue)
    assert GAME.legal_actions(after) == [Jumbo(15), Jumbo(17), Skip()]
    with pytest.raises(IllegalAction, match="not a possible use"):
        play(after, {"kind": "jumbo", "target": 22})
    after = play(after, {"kind": "jumbo", "target": 15})
    assert after.stacks[15] == ((R, "hook"),) and after.discards[1] == ("star",)


def test_capn_places_an_extra_troop_with_its_effect(build, play) -> None:
    state = build(racks=(("capn", "star", "roxy"), ()), reserves=(("hook",), ()))
    after = play(state, place("capn", 11))
    options = GAME.legal_actions(after)
    assert Place("star", 13) in options and Place("star", 12) in options
    assert Place("capn", 11) not in options and options[-1] == Skip()
    after = play(after, place("star", 13))
    assert after.pending == (Pending("star", 13),) and after.seat == 0
    after = play(after, {"kind": "star"})
    assert after.racks[0] == ("roxy", "hook") and after.seat == 1


def test_capn_chains_through_another_capn(build, play) -> None:
    state = build(racks=(("capn", "capn", "roxy"), ()))
    after = play(play(state, place("capn", 11)), place("capn", 13))
    assert after.pending == (Pending("capn", 13),)
    after = play(after, place("roxy", 17))
    assert after.racks[0] == () and after.seat == 1


def test_capn_extra_placement_may_be_declined(build, play) -> None:
    state = build(racks=(("capn", "roxy"), ()))
    after = play(play(state, place("capn", 11)), {"kind": "skip"})
    assert after.racks[0] == ("roxy",) and after.seat == 1


def test_capn_extra_placement_follows_the_placement_rules(build, play) -> None:
    state = build(racks=(("capn", "roxy"), ()))
    after = play(state, place("capn", 11))
    with pytest.raises(IllegalAction, match="base 22 is not connected"):
        play(after, place("roxy", 22))
    with pytest.raises(IllegalAction, match="must answer the pending capn effect"):
        play(after, {"kind": "draw"})


def test_capn_with_nothing_left_to_place_asks_nothing(build, play) -> None:
    after = play(build(racks=(("capn",), ())), place("capn", 11))
    assert after.pending == () and after.seat == 1


def test_capn_extra_troop_can_take_the_hq(build, play) -> None:
    state = build(
        stacks={11: [(B, "kwak")], 13: [(B, "kwak")], 18: [(B, "kwak")], 22: [(B, "kwak")]},
        racks=(("capn", "skully"), ()),
    )
    after = play(play(state, place("capn", 24)), place("skully", 41))
    assert GAME.result(after).reason == "hq-captured" and after.pending == ()
