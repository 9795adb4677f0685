"""How a match ends: HQ captured, medals, a seat that cannot act, timeouts, resignation,
and the turn limit."""

from __future__ import annotations

import pytest

from fairdeal.games import IllegalAction
from fairdeal.games.toybattle import GAME
from fairdeal.games.toybattle.actions import Place
from fairdeal.games.toybattle.rules import TURN_LIMIT

B, R = 0, 1


def place(troop: str, base: int) -> dict:
    return {"kind": "place", "troop": troop, "base": base}


def test_medals_to_win_end_the_match_at_once(build, play) -> None:
    # Castle Field: 7 to win; the region [13 15 17] is worth 1
    state = build(
        stacks={11: [(B, "kwak")], 13: [(B, "kwak")], 15: [(B, "kwak")]},
        racks=(("skully", "roxy"), ()),
        medals=(6, 0),
    )
    after = play(state, place("skully", 17))
    assert GAME.result(after).winner == 0 and GAME.result(after).reason == "medals"
    assert after.medals == (7, 0) and after.pending == ()  # Skully's draw never comes


def test_one_medal_short_plays_on(build, play) -> None:
    state = build(
        stacks={11: [(B, "kwak")], 13: [(B, "kwak")], 15: [(B, "kwak")]},
        racks=(("roxy",), ()),
        medals=(5, 0),
    )
    after = play(state, place("roxy", 17))
    assert GAME.result(after) is None and after.medals == (6, 0)


@pytest.mark.parametrize(
    ("medals", "winner"),
    [((1, 3), 1), ((2, 2), 0), ((3, 1), 0)],
    ids=["stuck-seat-has-more", "tie-stuck-seat-loses", "other-has-more"],
)
def test_a_seat_that_cannot_act(build, play, medals: tuple[int, int], winner: int) -> None:
    state = build(racks=(("roxy",), ()), reserves=(("roxy",), ()), medals=medals)
    after = play(state, place("roxy", 11))  # red now has no troop to place and none to draw
    outcome = GAME.result(after)
    assert outcome.reason == "stalemate" and outcome.winner == winner
    assert "red could not act" in outcome.detail


def test_cannot_act_with_troops_that_fit_nowhere(build, play) -> None:
    # Hook lands on 25 unconnected; red's Skully beats neither 24 nor 25 and cannot draw
    state = build(
        stacks={24: [(B, "roxy")]}, racks=(("hook",), ("skully",)), reserves=(("roxy",), ())
    )
    after = play(state, place("hook", 25))
    assert GAME.result(after).reason == "stalemate" and GAME.result(after).winner == 0


def test_cannot_act_with_a_full_rack_that_fits_nowhere(build, play) -> None:
    state = build(stacks={24: [(B, "roxy")]}, racks=(("hook",), ("skully",) * 8))
    after = play(state, place("hook", 25))
    assert GAME.result(after).reason == "stalemate"


def test_a_seat_that_can_still_draw_plays_on(build, play) -> None:
    state = build(
        stacks={24: [(B, "roxy")]}, racks=(("hook",), ("skully",)), reserves=(("roxy",), ("kwak",))
    )
    after = play(state, place("hook", 25))
    assert GAME.result(after) is None and GAME.legal_actions(after) == [
        GAME.parse_action({"kind": "draw"})
    ]


def test_turn_limit(build, play) -> None:
    state = build(racks=(("roxy",), ("roxy",)), turn=TURN_LIMIT, medals=(1, 1))
    after = play(state, {"kind": "draw"})
    assert GAME.result(after).reason == "turn-limit" and GAME.result(after).winner is None
    ahead = play(
        build(racks=(("roxy",), ("roxy",)), turn=TURN_LIMIT, medals=(0, 2)), {"kind": "draw"}
    )
    assert GAME.result(ahead).winner == 1


def test_resign_by_either_seat_at_any_time(build) -> None:
    state = build(racks=(("roxy",), ()))
    for seat in (0, 1):
        after = GAME.resign(state, seat)
        assert GAME.result(after).winner == 1 - seat
        assert GAME.result(after).reason == "resigned"
        assert after.last.kind == "resign" and after.last.seat == seat
    with pytest.raises(IllegalAction, match="the match is over"):
        GAME.resign(GAME.resign(state, 0), 1)


# -- timeouts ---------------------------------------------------------------------------------


def test_timeout_at_a_turn_start_draws(build, stream) -> None:
    state = build(racks=(("roxy",), ()), reserves=(("hook", "star", "kwak"), ()))
    after = GAME.timeout(state, stream("t"))
    assert after.racks[0] == ("roxy", "hook", "star") and after.seat == 1
    assert after.timeouts == (1, 0) and after.last.kind == "timeout"


def test_timeout_with_no_draw_passes(build, stream) -> None:
    state = build(racks=(("roxy",) * 8, ()))
    after = GAME.timeout(state, stream("t"))
    assert after.racks[0] == ("roxy",) * 8 and after.stacks == state.stacks and after.seat == 1


def test_timeout_declines_pending_effects_but_not_the_battlefield(build, stream) -> None:
    state = build(
        "battlefield",
        stacks={11: [(B, "kwak")], 13: [(B, "kwak")], 14: [(B, "star")]},
        racks=((), ("hook", "roxy")),
        reserves=(("kwak",), ("roxy",)),
        pending=[("star", 14), ("battlefield", 14)],
    )
    after = GAME.timeout(state, stream("t"))
    assert after.racks[0] == () and after.reserves[0] == ("kwak",)  # no Star draw
    assert len(after.frozen[1]) == 1 and after.seat == 1 and after.pending == ()


def test_three_timeouts_in_a_row_lose(build, play, stream) -> None:
    state = build(racks=(("roxy",), ("roxy",)), timeouts=(2, 0))
    after = GAME.timeout(state, stream("t"))
    assert GAME.result(after).winner == 1 and GAME.result(after).reason == "timeouts"


def test_an_own_action_resets_the_timeout_count(build, play, stream) -> None:
    state = build(racks=(("roxy", "roxy"), ("roxy",)), timeouts=(2, 1))
    after = play(state, {"kind": "draw"})
    assert after.timeouts == (0, 1)
    after = GAME.timeout(after, stream("t"))  # red
    assert after.timeouts == (0, 2) and GAME.result(after) is None


def test_timeouts_after_the_end_are_refused(build, play, stream) -> None:
    over = GAME.resign(build(racks=(("roxy",), ())), 0)
    with pytest.raises(IllegalAction, match="the match is over"):
        GAME.timeout(over, stream("t"))


def test_pending_state_names_the_deciding_seat(build) -> None:
    state = build(seat=1, racks=((), ("roxy",)), pending=[("skully", 24)])
    assert GAME.current_seat(state) == 1
    assert isinstance(GAME.legal_actions(state)[-1], type(GAME.parse_action({"kind": "skip"})))
    assert not any(isinstance(a, Place) for a in GAME.legal_actions(state))
