"""A turn's draw: 2, or 1 when only 1 is left or the rack holds 7; never a 9th troop."""

from __future__ import annotations

import pytest

from fairdeal.games import IllegalAction
from fairdeal.games.toybattle import GAME
from fairdeal.games.toybattle.actions import Draw


@pytest.mark.parametrize(
    ("rack", "reserve", "drawn"),
    [(0, 10, 2), (6, 10, 2), (7, 10, 1), (3, 1, 1), (6, 2, 2)],
)
def test_draw_counts(build, play, rack: int, reserve: int, drawn: int) -> None:
    reserve_troops = ("skully", "capn", "jumbo", "hook", "xb42", "star", "roxy", "kwak") * 2
    state = build(racks=(("kwak",) * rack, ()), reserves=(reserve_troops[:reserve], ()))
    after = play(state, {"kind": "draw"})
    assert after.racks[0] == ("kwak",) * rack + reserve_troops[:drawn]
    assert after.reserves[0] == reserve_troops[drawn:reserve]
    assert after.seat == 1 and after.last.action == Draw()


@pytest.mark.parametrize(
    ("rack", "reserve", "why"), [(8, 5, "rack is full"), (2, 0, "reserve is empty")]
)
def test_no_draw(build, play, rack: int, reserve: int, why: str) -> None:
    state = build(racks=(("kwak",) * rack, ()), reserves=(("roxy",) * reserve, ("roxy",)))
    assert Draw() not in GAME.legal_actions(state)
    with pytest.raises(IllegalAction, match=why):
        play(state, {"kind": "draw"})


def test_effect_answers_are_refused_at_a_turn_start(build, play) -> None:
    state = build(racks=(("roxy",), ()))
    for action in ({"kind": "skip"}, {"kind": "star"}, {"kind": "jumbo", "target": 11}):
        with pytest.raises(IllegalAction, match="no effect is pending"):
            play(state, action)
