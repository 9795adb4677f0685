"""Each kind of special base: C, T, K, V, G, M and F."""

from __future__ import annotations

import pytest

from fairdeal.games import IllegalAction
from fairdeal.games.toybattle import GAME
from fairdeal.games.toybattle.actions import (
    Castle,
    Cemetery,
    Clouds,
    Place,
    Skip,
    Volcano,
)
from fairdeal.games.toybattle.state import Pending
from fairdeal.verifier.rng import RandomStream

B, R = 0, 1


def place(troop: str, base: int) -> dict:
    return {"kind": "place", "troop": troop, "base": base}


# -- C: Castle Field -------------------------------------------------------------------------


def test_castle_field_returns_another_visible_troop(build, play) -> None:
    state = build(
        stacks={
            11: [(B, "kwak")],
            13: [(R, "skully"), (B, "jumbo")],
            14: [(B, "capn"), (R, "hook")],
        },
        racks=(("roxy",), ()),
    )
    after = play(state, place("roxy", 15))
    assert after.pending == (Pending("castle", 15),)
    # the Roxy just placed on 15 is not "another" troop; the covered Capn on 14 is not visible
    assert GAME.legal_actions(after) == [Castle(11), Castle(13), Skip()]
    after = play(after, {"kind": "castle", "target": 13})
    assert after.racks[0] == ("jumbo",) and after.stacks[13] == ((R, "skully"),)
    assert after.seat == 1


def test_castle_field_cannot_take_an_enemy_troop(build, play) -> None:
    state = build(
        stacks={11: [(B, "kwak")], 13: [(B, "jumbo")], 17: [(R, "skully")]}, racks=(("roxy",), ())
    )
    after = play(state, place("roxy", 15))
    with pytest.raises(IllegalAction, match="not a possible use of the pending castle"):
        play(after, {"kind": "castle", "target": 17})


def test_troop_effects_come_before_the_special_base(build, play) -> None:
    # Capn on a Castle Field base, its extra Star elsewhere: Star's draw, then the Castle.
    state = build(stacks={11: [(B, "kwak")], 13: [(B, "jumbo")]}, racks=(("capn", "star"), ()))
    after = play(state, place("capn", 15))
    assert after.pending == (Pending("capn", 15), Pending("castle", 15))
    after = play(after, place("star", 17))
    assert after.pending == (Pending("star", 17), Pending("castle", 15))
    after = play(after, {"kind": "star"})
    assert after.pending == (Pending("castle", 15),)
    assert Castle(17) in GAME.legal_actions(after)  # the Star is another troop: it may go back
    after = play(after, {"kind": "castle", "target": 17})
    assert after.racks[0] == ("roxy", "star") and after.seat == 1


# -- T: Tropical Pool --------------------------------------------------------------------------


def test_pool_limits_on_bases(build, play) -> None:
    # 12 takes 1-2 (and Kwak); blue reaches it from 11
    state = build(
        "tropical-pool", stacks={11: [(B, "kwak")]}, racks=(("roxy", "skully", "kwak"), ())
    )
    legal = {(a.troop, a.base) for a in GAME.legal_actions(state) if isinstance(a, Place)}
    assert ("skully", 12) in legal and ("kwak", 12) in legal and ("roxy", 12) not in legal
    with pytest.raises(IllegalAction, match=r"only strengths 1/2 \(and Kwak\) may be placed on 12"):
        play(state, place("roxy", 12))


def test_pool_limits_on_the_marked_hq(build, play) -> None:
    # red stands on 13 (next to blue's HQ 2, marked 6/7) connected through 17 and 21
    state = build(
        "tropical-pool",
        seat=1,
        stacks={21: [(R, "kwak")], 17: [(R, "star")], 13: [(R, "kwak")]},
        racks=((), ("xb42", "star")),
    )
    with pytest.raises(IllegalAction, match="only strengths 6/7"):
        play(state, place("xb42", 2))
    after = play(state, place("star", 2))
    assert GAME.result(after).winner == 1 and GAME.result(after).reason == "hq-captured"


def test_pool_unmarked_hq_takes_any_troop(build, play) -> None:
    state = build(
        "tropical-pool",
        stacks={
            11: [(B, "kwak")],
            13: [(B, "kwak")],
            17: [(B, "star")],
            21: [(B, "kwak")],
            23: [(B, "kwak")],
        },
        racks=(("skully",), ()),
    )
    legal = {a.base for a in GAME.legal_actions(state) if isinstance(a, Place)}
    assert 42 in legal and 41 not in legal


# -- K: City of Clouds ---------------------------------------------------------------------------


def test_city_of_clouds_draws_one(build, play) -> None:
    state = build(
        "city-of-clouds",
        stacks={11: [(B, "kwak")]},
        racks=(("roxy",), ()),
        reserves=(("hook", "star"), ()),
    )
    after = play(state, place("roxy", 13))
    assert GAME.legal_actions(after) == [Clouds(), Skip()]
    after = play(after, {"kind": "clouds"})
    assert after.racks[0] == ("hook",) and after.reserves[0] == ("star",)


def test_city_of_clouds_with_a_full_rack_asks_nothing(build, play) -> None:
    state = build(
        "city-of-clouds", stacks={11: [(B, "kwak")]}, racks=(("roxy",) + ("kwak",) * 8, ())
    )  # 9 held only here: 8 after placing
    after = play(state, place("roxy", 13))
    assert after.pending == () and after.seat == 1


# -- V: Volcanic Jungle -----------------------------------------------------------------------


def test_volcanic_jungle_moves_an_adjacent_enemy(build, play) -> None:
    state = build(
        "volcanic-jungle",
        stacks={
            11: [(B, "kwak")],
            12: [(B, "skully")],
            14: [(R, "roxy")],
            18: [(R, "kwak"), (R, "star")],
            21: [(B, "roxy")],
        },
        racks=(("jumbo",), ()),
    )
    after = play(state, place("jumbo", 15))
    # Jumbo's effect first, then the Volcanic Jungle's
    assert after.pending == (Pending("jumbo", 15), Pending("volcano", 15))
    after = play(after, {"kind": "skip"})
    options = GAME.legal_actions(after)
    assert options == [
        Volcano(14, 11),
        Volcano(14, 15),
        Volcano(14, 17),
        Volcano(18, 15),
        Volcano(18, 17),
        Volcano(18, 21),
        Skip(),
    ]
    # ignoring placement rules: the Star lands on blue's stronger Roxy
    after = play(after, {"kind": "volcano", "target": 18, "to": 21})
    assert after.stacks[18] == ((R, "kwak"),)
    assert after.stacks[21] == ((B, "roxy"), (R, "star"))


def test_volcanic_jungle_moves_only_adjacent_troops_to_adjacent_bases(build, play) -> None:
    state = build(
        "volcanic-jungle",
        stacks={11: [(B, "kwak")], 12: [(B, "skully")], 14: [(R, "roxy")], 17: [(R, "star")]},
        racks=(("roxy",), ()),
    )
    after = play(state, place("roxy", 15))
    with pytest.raises(IllegalAction, match="not a possible use"):
        play(after, {"kind": "volcano", "target": 17, "to": 20})  # 17 is not next to 15
    with pytest.raises(IllegalAction, match="not a possible use"):
        play(after, {"kind": "volcano", "target": 14, "to": 18})  # 18 is not next to 14
    with pytest.raises(IllegalAction, match="not a possible use"):
        play(after, {"kind": "volcano", "target": 14, "to": 1})  # an HQ is not a base


# -- G: Cursed Cemetery -------------------------------------------------------------------------


def test_cursed_cemetery_takes_back_a_discarded_troop(build, play) -> None:
    state = build(
        "cursed-cemetery",
        stacks={13: [(B, "kwak")]},
        racks=(("roxy",), ()),
        discards=(("hook", "kwak", "hook"), ("star",)),
    )
    after = play(state, place("roxy", 12))
    assert GAME.legal_actions(after) == [Cemetery("kwak"), Cemetery("hook"), Skip()]
    with pytest.raises(IllegalAction, match="not a possible use"):
        play(after, {"kind": "cemetery", "troop": "star"})  # red's discard is not blue's
    after = play(after, {"kind": "cemetery", "troop": "hook"})
    assert after.racks[0] == ("hook",) and after.discards[0] == ("kwak", "hook")


def test_cursed_cemetery_with_an_empty_discard_asks_nothing(build, play) -> None:
    state = build(
        "cursed-cemetery",
        stacks={13: [(B, "kwak")]},
        racks=(("roxy",), ()),
        discards=((), ("star",)),
    )
    after = play(state, place("roxy", 12))
    assert after.pending == () and after.seat == 1


# -- M: Station Metal-X --------------------------------------------------------------------------


@pytest.mark.parametrize("troop", ["skully", "capn", "star", "xb42", "jumbo"])
def test_metal_x_cancels_troop_effects(build, play, troop: str) -> None:
    state = build(
        "station-metal-x",
        stacks={12: [(B, "kwak")], 13: [(B, "kwak")], 15: [(R, "kwak")], 17: [(R, "kwak")]},
        racks=((troop, "roxy"), ("roxy",)),
    )
    after = play(state, place(troop, 16))
    assert after.pending == () and after.seat == 1
    # the same troop on an ordinary base does ask
    after = play(state, place(troop, 11))
    assert after.pending == (Pending(troop, 11),)


# -- F: Battlefield -----------------------------------------------------------------------------


def test_battlefield_freezes_a_random_enemy_troop_for_its_next_turn(build, stream) -> None:
    red_rack = ("hook", "star", "roxy", "kwak")
    state = build(
        "battlefield", stacks={11: [(B, "kwak")], 13: [(B, "kwak")]}, racks=(("roxy",), red_rack)
    )
    after = GAME.apply(state, Place("roxy", 14), RandomStream(bytes(32), "ply/3"))
    pick = RandomStream(bytes(32), "ply/3/battlefield").randbelow(len(red_rack))
    assert after.frozen[1] == (pick,) and after.seat == 1 and after.pending == ()
    frozen_troop = red_rack[pick]
    red_places = {a.troop for a in GAME.legal_actions(after) if isinstance(a, Place)}
    assert red_places == set(red_rack) - {frozen_troop}
    with pytest.raises(IllegalAction, match="is frozen"):
        GAME.apply(after, Place(frozen_troop, 24), stream("x"))
    after = GAME.apply(after, GAME.parse_action({"kind": "draw"}), stream("y"))
    assert after.frozen == ((), ()) and after.seat == 0  # thawed when red's turn ended


def test_battlefield_comes_after_the_troop_effect(build, stream) -> None:
    state = build(
        "battlefield",
        stacks={11: [(B, "kwak")], 13: [(B, "kwak")]},
        racks=(("star",), ("hook",)),
        reserves=(("roxy",), ("roxy",)),
    )
    after = GAME.apply(state, Place("star", 14), stream("a"))
    assert after.pending == (Pending("star", 14), Pending("battlefield", 14))
    assert after.frozen[1] == ()  # not yet
    after = GAME.apply(after, GAME.parse_action({"kind": "skip"}), stream("b"))
    assert after.frozen[1] == (0,) and after.seat == 1


def test_battlefield_against_an_empty_rack_does_nothing(build, stream) -> None:
    state = build(
        "battlefield", stacks={11: [(B, "kwak")], 13: [(B, "kwak")]}, racks=(("roxy",), ())
    )
    after = GAME.apply(state, Place("roxy", 14), stream("a"))
    assert after.frozen == ((), ()) and after.seat == 1


def test_only_frozen_troops_means_the_turn_is_skipped_not_lost(build, stream) -> None:
    # red holds one troop, frozen, and cannot draw: it sits this turn out
    state = build(
        "battlefield",
        stacks={11: [(B, "kwak")], 13: [(B, "kwak")]},
        racks=(("roxy", "skully"), ("hook",)),
        reserves=((), ()),
    )
    after = GAME.apply(state, Place("roxy", 14), stream("a"))
    assert GAME.result(after) is None
    assert after.seat == 0 and after.turn == state.turn + 2 and after.frozen == ((), ())
