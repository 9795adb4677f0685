"""Every rule wyrdstone/2 changes, one test each, beside the wyrdstone/1 behaviour it replaces
(docs/rules/wyrdstone.md, "Rules versions"): defeat at zero and the grain of "at the same
time", Wrath's place, turn 70, the whole-turn timer and the tavern effects."""

from __future__ import annotations

from typing import Any

import pytest

from fairdeal.games.base import InvalidParams, TurnTimer
from fairdeal.games.wyrdstone import GAME, VERSIONS
from fairdeal.games.wyrdstone.rules import apply, timeout
from fairdeal.games.wyrdstone.state import SKIP, Action, WyrdState

V1_GAME = VERSIONS["wyrdstone/1"]


def _result(state: WyrdState) -> dict[str, Any] | None:
    return None if state.result is None else state.result.to_json()


# ---------------------------------------------------------------- defeat at zero


def _felled_in_step_3(kit: Any, rules: Any) -> WyrdState:
    """B skips; at the start of A's turn A's Salamander (step 3) kills B's Skeleton, whose
    death strikes A (2, at 2) to 0; A's Regeneration (step 4) and Chalice (step 5) follow."""
    board = {(0, 2): kit.creature("salamander"), (1, 2): kit.creature("skeleton", health=2)}
    a = kit.loadout("fire", skills=("regeneration",), artifacts=("chalice-of-life",))
    return apply(kit.state(board, seat=1, health=(2, 30), a=a, rules=rules), SKIP, kit.stream())


def test_a_mage_at_zero_has_lost_nothing_after_heals_them(kit: Any) -> None:
    after = _felled_in_step_3(kit, kit.V2)
    assert _result(after) == {"winner": 1, "reason": "health"}
    assert after.health[0] == 0  # Regeneration and the Chalice never came


def test_v1_healed_a_mage_felled_during_the_start_back_into_play(kit: Any) -> None:
    after = _felled_in_step_3(kit, kit.V1)
    assert after.result is None and after.health[0] == 2


def _b_in_step_2_a_in_step_3(kit: Any, rules: Any) -> WyrdState:
    # at the start of A's turn A's poisoned Skeleton dies in step 2 (2 to B, at 2); in step 3
    # A's Salamander would kill B's Skeleton (2 to A, at 2)
    board = {(0, 1): kit.creature("skeleton", poison=4, poison_turns=1),
             (0, 2): kit.creature("salamander"), (1, 2): kit.creature("skeleton", health=2)}
    return apply(kit.state(board, seat=1, health=(2, 2), rules=rules), SKIP, kit.stream())


def test_the_first_to_fall_loses_even_in_one_start_of_turn(kit: Any) -> None:
    after = _b_in_step_2_a_in_step_3(kit, kit.V2)
    assert _result(after) == {"winner": 0, "reason": "health"}
    assert after.health == (2, 0)
    skeleton = after.creature(1, 2)
    assert skeleton is not None and skeleton.health == 2  # step 3 never ran


def test_v1_scored_those_two_falls_a_draw(kit: Any) -> None:
    assert _result(_b_in_step_2_a_in_step_3(kit, kit.V1)) == {"winner": None,
                                                              "reason": "simultaneous"}


def _earthquake(kit: Any, rules: Any) -> WyrdState:
    # A's Earthquake (one spell) kills a Skeleton on each side; each Skeleton's death strikes
    # the other mage for 2, and both mages are at 2
    board = {(0, 1): kit.creature("skeleton"), (1, 1): kit.creature("skeleton")}
    state = kit.state(board, health=(2, 2), rules=rules)
    return apply(state, Action("cast", scroll="earthquake", slot=None), kit.stream())


def test_death_triggers_of_one_blow_are_blows_of_their_own(kit: Any) -> None:
    # the deaths resolve one by one, the acting side first: A's Skeleton fells B, and B's
    # Skeleton's death ability never resolves
    after = _earthquake(kit, kit.V2)
    assert _result(after) == {"winner": 0, "reason": "health"}
    assert after.health == (2, 0)


def test_the_creatures_a_final_blow_killed_leave_the_board(kit: Any) -> None:
    # the Earthquake kills both Skeletons; the duel ends at A's Skeleton's death ability, and
    # B's Skeleton, killed by the same Earthquake, is gone from the board too
    after = _earthquake(kit, kit.V2)
    assert after.result is not None
    assert all(creature is None or creature.health > 0 for creature in after.board)


def test_v1_judged_the_whole_cast_at_once(kit: Any) -> None:
    assert _result(_earthquake(kit, kit.V1)) == {"winner": None, "reason": "simultaneous"}


def test_a_rune_that_fells_the_enemy_ends_the_duel_on_the_spot(kit: Any) -> None:
    a = kit.loadout("fire", runes=("rune-of-storms",))
    after = apply(kit.state({}, health=(30, 4), a=a), Action("rune", rune="rune-of-storms"),
                  kit.stream())
    assert _result(after) == {"winner": 0, "reason": "health"} and after.health[1] == 0


def test_the_attacks_stop_at_the_blow_that_fells(kit: Any) -> None:
    # the Keeper of Heights strikes first and fells B; the golem in slot 1 never strikes
    board = {(0, 1): kit.creature("stone-golem"), (0, 4): kit.creature("keeper-of-heights")}
    after = apply(kit.state(board, health=(40, 4)), SKIP, kit.stream())
    assert _result(after) == {"winner": 0, "reason": "health"} and after.health[1] == 0


# ---------------------------------------------------------------- Wrath of the Gods


def test_one_wrath_strike_felling_both_is_the_only_same_time(kit: Any) -> None:
    after = apply(kit.state({}, turn=55, health=(7, 7)), SKIP, kit.stream())
    assert _result(after) == {"winner": None, "reason": "simultaneous"}
    assert after.result is not None and "Wrath of the Gods" in after.result.detail


def test_wrath_felling_one_the_other_wins(kit: Any) -> None:
    after = apply(kit.state({}, turn=55, health=(30, 7)), SKIP, kit.stream())
    assert _result(after) == {"winner": 0, "reason": "wrath"}


def test_wrath_strikes_before_the_five_steps_so_nothing_heals_first(kit: Any) -> None:
    # turn 50: A at 1 with Regeneration and the Chalice (steps 4 and 5) and a River Sprite
    # (step 3) still falls to Wrath's 1, which opens the turn; B (at 30) wins
    a = kit.loadout("water", skills=("regeneration",), artifacts=("chalice-of-life",))
    state = kit.state({(0, 1): kit.creature("river-sprite")}, turn=49, seat=1, health=(1, 30),
                      a=a)
    after = apply(state, SKIP, kit.stream())
    assert after.turn == 50 and _result(after) == {"winner": 1, "reason": "wrath"}
    assert after.energy_of(0)["water"] == 20  # step 1 never came either


# ---------------------------------------------------------------- turn 70


def test_turn_70_is_played_then_two_living_mages_draw(kit: Any) -> None:
    after = apply(kit.state({}, turn=69, health=(50, 50)), SKIP, kit.stream())
    assert after.turn == 70 and after.seat == 1 and after.result is None
    assert after.health == (29, 29)  # turn 70's Wrath: 21
    end = apply(after, SKIP, kit.stream())
    assert _result(end) == {"winner": None, "reason": "turn-70"}
    assert end.turn == 70 and end.result is not None
    assert end.result.detail == "both mages were alive at the end of turn 70"
    assert GAME.legal_actions(end) == [] and GAME.current_seat(end) is None


def test_a_mage_felled_during_turn_70_loses(kit: Any) -> None:
    state = kit.state({(1, 1): kit.creature("earth-titan")}, turn=70, seat=1, health=(5, 30))
    after = apply(state, SKIP, kit.stream())
    assert _result(after) == {"winner": 1, "reason": "health"}


# ---------------------------------------------------------------- the timer


def test_the_turn_is_60_seconds_for_the_whole_turn_fixed_by_the_rules() -> None:
    params = GAME.default_params()
    assert GAME.turn_timer(params, 60_000) == TurnTimer(60_000, per_turn=True)
    for other in (None, 30_000, 60_001):
        with pytest.raises(InvalidParams, match="^wyrdstone/2 fixes the turn at 60 s for the "
                           rf"whole turn: turn_limit_ms must be 60000, got {other}$"):
            GAME.turn_timer(params, other)


def test_v1_took_the_headers_limit_per_action() -> None:
    params = V1_GAME.default_params()
    assert V1_GAME.turn_timer(params, 5_000) == TurnTimer(5_000, per_turn=False)
    assert V1_GAME.turn_timer(params, None) == TurnTimer(None)


def test_a_timeout_loses_except_in_training(kit: Any) -> None:
    assert _result(timeout(kit.state({}, seat=1), kit.stream())) == {"winner": 0,
                                                                      "reason": "timeout"}
    skipped = timeout(kit.state({}, seat=1, training=True), kit.stream())
    assert skipped.result is None and skipped.seat == 0 and skipped.turn == 11
