"""The rules around the cards: deal, production, turns, play again, the pending discard, the
decks, victory, timeouts, resigning and the reasons an action is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games.arcomage import BATTLEFIELD_BY_ID, GAME, Action
from fairdeal.games.arcomage.rules import worst_card
from fairdeal.games.arcomage.state import ACT, DISCARD
from fairdeal.games.base import IllegalAction, InvalidAction, Outcome
from fairdeal.verifier.rng import RandomStream

Make = Callable[..., Any]
Stream = Callable[..., RandomStream]
KEY = bytes(range(32))


def play(card: int) -> Action:
    return Action("play", card)


def discard(card: int) -> Action:
    return Action("discard", card)


# --- the deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["archmage-citadel", "misty-harbor", "square-of-winds"])
def test_start_values_and_first_production(field: str) -> None:
    stream = RandomStream(KEY, "setup")
    state = GAME.setup({"battlefield": field}, stream)
    f = BATTLEFIELD_BY_ID[field]
    first = RandomStream(KEY, "setup").substream("first-player").randbelow(2)
    assert state.turn == first
    start = {
        "tower": f.tower,
        "wall": f.wall,
        "mines": f.mines,
        "monasteries": f.monasteries,
        "barracks": f.barracks,
        "ore": 5,
        "mana": 5,
        "troops": 5,
    }
    produced = {**start, "ore": 5 + f.mines, "mana": 5 + f.monasteries, "troops": 5 + f.barracks}
    assert state.player(first) == produced  # the first turn has production too
    assert state.player(1 - first) == start
    assert (state.phase, state.last, state.result, state.timeouts) == (ACT, None, None, (0, 0))


def test_first_player_comes_from_its_substream() -> None:
    firsts = []
    for i in range(40):
        key = bytes([i]) * 32
        state = GAME.setup({}, RandomStream(key, "setup"))
        assert state.turn == RandomStream(key, "setup/first-player").randbelow(2)
        firsts.append(state.turn)
    assert set(firsts) == {0, 1}


def test_normal_deal_is_the_shuffled_deck() -> None:
    state = GAME.setup({"deck": "normal"}, RandomStream(KEY, "setup"))
    deck = list(range(1, 103))
    RandomStream(KEY, "setup/deck").shuffle(deck)
    assert state.hands == (tuple(deck[:6]), tuple(deck[6:12]))
    assert state.draw_pile == tuple(deck[12:])
    assert state.discard_pile == ()


def test_infinite_deal_draws_uniformly_with_repeats() -> None:
    state = GAME.setup({"deck": "infinite"}, RandomStream(KEY, "setup"))
    draws = RandomStream(KEY, "setup/deck")
    expected = [draws.randbelow(102) + 1 for _ in range(12)]
    assert state.hands == (tuple(expected[:6]), tuple(expected[6:]))
    assert state.infinite and state.draw_pile == () and state.discard_pile == ()
    # a hand with the same card twice happens (about one deal in seven)
    repeats = [
        i
        for i in range(60)
        if any(
            len(set(hand)) < 6
            for hand in GAME.setup(
                {"deck": "infinite"}, RandomStream(bytes([i]) * 32, "setup")
            ).hands
        )
    ]
    assert repeats


# --- a turn -----------------------------------------------------------------------------------


def test_discard_ends_the_turn_and_refills_from_the_top(make_state: Make, stream: Stream) -> None:
    before = make_state(hand_a=(102, 8, 10, 12, 38, 43), a={"troops": 0})  # Dragon: unaffordable
    after = GAME.apply(before, discard(102), stream())
    assert after.hands[0] == (8, 10, 12, 38, 43, 78)
    assert after.draw_pile == before.draw_pile[1:]
    assert after.discard_pile == (102,)
    assert (after.turn, after.phase, after.last) == (1, ACT, (0, "discard", 102))
    assert after.player(0) == before.player(0)  # a discard costs nothing
    b = before.player(1)
    assert after.player(1) == {**b, "ore": 24, "mana": 22, "troops": 24}  # B's production


def test_play_pays_the_cost_and_refills(make_state: Make, stream: Stream) -> None:
    before = make_state(hand_a=(33, 8, 10, 12, 38, 43))  # Rock Launcher, 18 ore
    after = GAME.apply(before, play(33), stream())
    assert after.player(0)["ore"] == 12
    assert after.hands[0] == (8, 10, 12, 38, 43, 78)


def test_a_card_costing_everything_you_have_is_playable(make_state: Make, stream: Stream) -> None:
    before = make_state(hand_a=(102, 8, 10, 12, 38, 43), a={"troops": 25})
    assert play(102) in GAME.legal_actions(before)
    assert GAME.apply(before, play(102), stream()).player(0)["troops"] == 0


def test_legal_actions(make_state: Make) -> None:
    state = make_state(hand_a=(102, 60, 60, 8, 69, 1), a={"troops": 3, "mana": 11, "ore": 2})
    assert GAME.legal_actions(state) == [
        play(60),
        play(8),
        play(69),
        play(1),
        discard(102),
        discard(60),
        discard(8),
        discard(69),
        discard(1),
    ]
    assert GAME.current_seat(state) == 0


def test_play_again_keeps_the_turn_without_production(make_state: Make, stream: Stream) -> None:
    before = make_state(hand_a=(37, 8, 10, 12, 38, 43))  # Quartz
    again = GAME.apply(before, play(37), stream())
    assert (again.turn, again.phase) == (0, ACT)
    assert again.hands[0] == (8, 10, 12, 38, 43, 78)
    assert again.player(1) == before.player(1)
    assert again.player(0) == {**before.player(0), "tower": 21, "mana": 29}
    done = GAME.apply(again, play(8), stream("second"))
    assert done.turn == 1
    assert done.player(1)["ore"] == before.player(1)["ore"] + before.player(1)["mines"]


@pytest.mark.parametrize("card", [40, 75])  # Prism, Elven Scout
def test_draw_then_pending_discard_then_act_again(
    card: int, make_state: Make, stream: Stream
) -> None:
    name = "Prism" if card == 40 else "Elven Scout"
    before = make_state(hand_a=(card, 8, 10, 12, 38, 43))
    pending = GAME.apply(before, play(card), stream())
    assert (pending.turn, pending.phase) == (0, DISCARD)
    assert pending.hands[0] == (8, 10, 12, 38, 43, 78)  # one card drawn, no refill yet
    assert GAME.legal_actions(pending) == [discard(c) for c in (8, 10, 12, 38, 43, 78)]
    with pytest.raises(IllegalAction, match=f"a discard is pending after {name}"):
        GAME.apply(pending, play(8), stream())
    again = GAME.apply(pending, discard(78), stream())  # the drawn card itself may go
    assert (again.turn, again.phase, again.last) == (0, ACT, (0, "discard", 78))
    assert again.hands[0] == (8, 10, 12, 38, 43, 86)
    assert again.discard_pile == (card, 78)
    assert again.player(1) == before.player(1)  # no production: still A's turn
    assert GAME.apply(again, play(8), stream()).turn == 1


def test_prism_describes_the_pending_discard(make_state: Make, stream: Stream) -> None:
    pending = GAME.apply(make_state(hand_a=(40, 8, 10, 12, 38, 43)), play(40), stream())
    assert (
        GAME.describe_action(pending, discard(8)) == "A discards Basic Wall (red, 2 ore) for Prism"
    )


# --- the decks --------------------------------------------------------------------------------


def test_empty_draw_pile_reshuffles_the_discard_pile(make_state: Make, stream: Stream) -> None:
    discards = (4, *range(14, 103))  # every card not in a hand
    before = make_state(
        hand_a=(1, 2, 3, 13, 5, 6),
        hand_b=(7, 8, 9, 10, 11, 12),
        draw_pile=(),
        discard_pile=discards,
    )
    after = GAME.apply(before, play(1), stream())  # Brick Shortage: played, then a refill
    pile = [*discards, 1]
    stream("test/reshuffle").shuffle(pile)
    assert after.hands[0] == (2, 3, 13, 5, 6, pile[0])
    assert after.draw_pile == tuple(pile[1:])
    assert after.discard_pile == ()


def test_no_reshuffle_while_a_card_is_left(make_state: Make, stream: Stream) -> None:
    before = make_state(hand_a=(1, 8, 10, 12, 38, 43), draw_pile=(99,), discard_pile=(5, 6))
    after = GAME.apply(before, play(1), stream())
    assert after.hands[0][-1] == 99
    assert (after.draw_pile, after.discard_pile) == ((), (5, 6, 1))


def test_infinite_deck_draws_from_the_draw_substream(make_state: Make, stream: Stream) -> None:
    before = make_state(hand_a=(78, 78, 8, 10, 12, 38), infinite=True)
    assert GAME.legal_actions(before).count(play(78)) == 1
    after = GAME.apply(before, play(78), stream())
    drawn = stream("test/draw").randbelow(102) + 1
    assert after.hands[0] == (78, 8, 10, 12, 38, drawn)  # the other copy stays
    assert (after.draw_pile, after.discard_pile) == ((), ())
    one_copy = GAME.apply(before, discard(78), stream())
    assert one_copy.hands[0][:5] == (78, 8, 10, 12, 38)


# --- victory ----------------------------------------------------------------------------------


def test_tower_built_exactly_at_the_victory_height(make_state: Make, stream: Stream) -> None:
    won = GAME.apply(make_state(a={"tower": 180}, hand_a=(68, *range(8, 13))), play(68), stream())
    assert won.result == Outcome(0, "tower-built", won.result.detail)
    assert GAME.current_seat(won) is None and GAME.legal_actions(won) == []
    assert won.hands[0] == (8, 9, 10, 11, 12)  # no refill after the end
    short = GAME.apply(make_state(a={"tower": 179}, hand_a=(68, *range(8, 13))), play(68), stream())
    assert short.result is None and short.player(0)["tower"] == 199


def test_tower_destroyed(make_state: Make, stream: Stream) -> None:
    state = make_state(b={"tower": 5, "wall": 0}, hand_a=(78, *range(8, 13)))
    assert GAME.apply(state, play(78), stream()).result.to_json() == {
        "winner": 0,
        "reason": "tower-destroyed",
    }
    state = make_state(b={"tower": 6, "wall": 0}, hand_a=(78, *range(8, 13)))
    assert GAME.apply(state, play(78), stream()).result is None


def test_resource_by_a_card(make_state: Make, stream: Stream) -> None:
    state = make_state(a={"mana": 493}, hand_a=(25, *range(8, 13)))  # Crystal Rocks, +7 mana
    assert GAME.apply(state, play(25), stream()).result.to_json() == {
        "winner": 0,
        "reason": "resource",
    }


def test_resource_by_production_at_the_start_of_a_turn(make_state: Make, stream: Stream) -> None:
    state = make_state(b={"troops": 496, "barracks": 4})
    assert GAME.apply(state, discard(8), stream()).result.to_json() == {
        "winner": 1,
        "reason": "resource",
    }
    state = make_state(b={"troops": 495, "barracks": 4})
    assert GAME.apply(state, discard(8), stream()).result is None


@pytest.mark.parametrize(
    ("card", "a", "b"),
    [
        (60, {"tower": 5, "wall": 3}, {"tower": 3, "wall": 5}),  # Lightning Shard: 8 damage to all
        (49, {"tower": 7}, {"tower": 6}),  # Discord: 7 damage to all towers
        (36, {"tower": 199}, {"tower": 199}),  # Rainbow: +1 tower to all, both reach 200
    ],
)
def test_both_at_once_is_a_draw(
    card: int, a: dict[str, int], b: dict[str, int], make_state: Make, stream: Stream
) -> None:
    state = make_state(a, b, hand_a=(card, *range(8, 13)))
    result = GAME.apply(state, play(card), stream()).result
    assert (result.winner, result.reason) == (None, "simultaneous")


def test_one_winner_with_two_conditions_reads_tower_built(make_state: Make, stream: Stream) -> None:
    state = make_state(a={"tower": 194}, b={"tower": 4}, hand_a=(62, *range(8, 13)))  # Fire Ruby
    assert GAME.apply(state, play(62), stream()).result.reason == "tower-built"


def test_a_finished_match_takes_no_more_actions(make_state: Make, stream: Stream) -> None:
    over = GAME.resign(make_state(), 1)
    for attempt in (
        lambda: GAME.apply(over, play(1), stream()),
        lambda: GAME.timeout(over, stream()),
        lambda: GAME.resign(over, 0),
    ):
        with pytest.raises(IllegalAction, match="match is over"):
            attempt()


# --- timeouts and resigning -------------------------------------------------------------------


def test_worst_card() -> None:
    assert worst_card((52, 8, 35, 1, 9)) == 1  # cost 0 twice: Brick Shortage is listed first
    assert worst_card((38, 43, 8)) == 8  # cost 2 twice: Basic Wall (8) before Amethyst (38)
    assert worst_card((102, 99, 75)) == 75


def test_timeout_discards_the_worst_card_and_ends_the_turn(
    make_state: Make, stream: Stream
) -> None:
    before = make_state(hand_a=(52, 43, 38, 10, 8, 65))
    after = GAME.timeout(before, stream())
    assert after.last == (0, "timeout", 8)
    assert after.hands[0] == (52, 43, 38, 10, 65, 78)
    assert after.discard_pile == (8,)
    assert (after.turn, after.timeouts) == (1, (1, 0))
    assert after.player(1)["ore"] == before.player(1)["ore"] + 4  # B's production


def test_timeout_in_the_pending_discard_is_that_discard(make_state: Make, stream: Stream) -> None:
    pending = GAME.apply(make_state(hand_a=(40, 52, 43, 38, 65, 59)), play(40), stream())
    after = GAME.timeout(pending, stream())
    assert after.last == (0, "timeout", 38)  # Amethyst, cost 2, the cheapest
    assert (after.turn, after.phase) == (1, ACT)  # the play again is lost with the time
    assert after.hands[0] == (52, 43, 65, 59, 78, 86)


def test_three_timeouts_in_a_row_lose(make_state: Make, stream: Stream) -> None:
    state = make_state()
    for _ in range(2):
        state = GAME.timeout(state, stream())  # A times out
        assert state.result is None
        state = GAME.apply(state, GAME.legal_actions(state)[-1], stream())  # B acts
    assert state.timeouts == (2, 0)
    lost = GAME.timeout(state, stream())
    assert lost.result.to_json() == {"winner": 1, "reason": "timeouts"}
    assert lost.timeouts == (3, 0)


def test_a_real_action_resets_the_count(make_state: Make, stream: Stream) -> None:
    state = make_state(timeouts=(2, 2))
    state = GAME.apply(state, discard(8), stream())  # A acts: A's count is cleared
    assert state.timeouts == (0, 2)
    state = GAME.timeout(state, stream())  # B's third in a row
    assert state.result.to_json() == {"winner": 0, "reason": "timeouts"}


def test_resign_on_either_turn(make_state: Make) -> None:
    state = make_state()
    assert GAME.resign(state, 0).result.to_json() == {"winner": 1, "reason": "resigned"}
    resigned = GAME.resign(state, 1)  # not B's turn: resigning needs none
    assert resigned.result.to_json() == {"winner": 0, "reason": "resigned"}
    assert resigned.last == (1, "resign", None)
    with pytest.raises(InvalidAction, match="seat must be 0 or 1"):
        GAME.resign(state, 2)


# --- refused actions --------------------------------------------------------------------------


def test_illegal_action_messages(make_state: Make, stream: Stream) -> None:
    state = make_state(hand_a=(102, 8, 10, 12, 38, 43), a={"troops": 12}, hand_b=(60, *FILL))
    with pytest.raises(
        IllegalAction, match=r"^cannot afford Dragon: costs 25 troops, seat A has 12$"
    ):
        GAME.apply(state, play(102), stream())
    with pytest.raises(
        IllegalAction, match=r"^card 60 \(Lightning Shard\) is not in seat A's hand$"
    ):
        GAME.apply(state, play(60), stream())
    b_turn = make_state(turn=1, hand_b=(8, *FILL))
    with pytest.raises(
        IllegalAction, match=r"^card 60 \(Lightning Shard\) is not in seat B's hand$"
    ):
        GAME.apply(b_turn, discard(60), stream())
    with pytest.raises(InvalidAction, match="not an action of the two-tower duel"):
        GAME.apply(state, {"kind": "play", "card": 8}, stream())


FILL = (8, 10, 12, 38, 43)


def test_apply_never_changes_its_input(make_state: Make, stream: Stream) -> None:
    state = make_state(hand_a=(40, 8, 10, 12, 38, 43))
    snapshot = GAME.state_to_json(state)
    GAME.apply(state, play(40), stream())
    GAME.timeout(state, stream())
    GAME.resign(state, 0)
    assert GAME.state_to_json(state) == snapshot
