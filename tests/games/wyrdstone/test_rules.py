"""The rules around the scrolls: the start, the order of a turn's start, attacks and deaths,
the Werewolf, neutral costs, Wrath of the Gods, the endings, timeouts and illegal actions."""

from __future__ import annotations

from typing import Any

import pytest

from fairdeal.games.base import IllegalAction, InvalidAction
from fairdeal.games.wyrdstone import GAME
from fairdeal.games.wyrdstone.book import Effect
from fairdeal.games.wyrdstone.engine import Duel, DuelOver
from fairdeal.games.wyrdstone.rules import apply, legal_actions, resign, timeout
from fairdeal.games.wyrdstone.state import SKIP, Action
from fairdeal.verifier.rng import RandomStream

from ...sources import source_module


def _trace(monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, int | None]], Any]:
    """Record every effect the engine runs, as (operation, source board index); returns the
    record and the Duel class to run. That is the engine's source, so the patch is seen in the
    compiled build too (compiled code calls its own methods directly; docs/compiled.md)."""
    trail: list[tuple[str, int | None]] = []
    traced = source_module("fairdeal.games.wyrdstone.engine").Duel
    original = traced.run

    def run(self: Duel, effect: Effect, seat: int, source: int | None = None,
            target: int | None = None) -> None:
        trail.append((effect.op, source))
        original(self, effect, seat, source, target)

    monkeypatch.setattr(traced, "run", run)
    return trail, traced


# ---------------------------------------------------------------- the start


def test_setup_gives_23_energy_then_starts_the_first_players_turn() -> None:
    state = GAME.setup({}, RandomStream(bytes(32), "setup"))
    first = state.seat
    fire_mage = {"fire": 7, "water": 4, "air": 4, "earth": 4, "death": 4}
    earth_mage = {"fire": 4, "water": 4, "air": 4, "earth": 7, "death": 4}
    starts = [fire_mage, earth_mage]
    assert sum(starts[0].values()) == 23
    # the first player's turn 1 began: +1 of each element, +1 more of the school (Meditation)
    school = ("fire", "earth")[first]
    expected = {e: n + 1 + (e == school) for e, n in starts[first].items()}
    assert state.energy_of(first) == expected
    assert state.energy_of(1 - first) == starts[1 - first]
    assert state.turn == 1 and state.health == (50, 50) and state.board == (None,) * 10


def test_the_first_player_comes_from_the_stream() -> None:
    firsts = {GAME.setup({}, RandomStream(bytes([n]) * 32, "setup")).seat for n in range(16)}
    assert firsts == {0, 1}


# ---------------------------------------------------------------- start-of-turn order


def test_energy_comes_before_poison(kit: Any) -> None:
    # a poisoned human Werewolf at 3 health, Death 5: the +1 Death makes it a wolf (+8 health)
    # before the poison bites; the other way round it would die
    wolf = kit.creature("werewolf", health=3, poison=4, poison_turns=2)
    energy = [20, 20, 20, 20, 5] + [20] * 5
    duel = Duel(kit.state({(0, 1): wolf}, energy=energy), kit.stream())
    duel.start_turn()
    after = duel.board[0]
    assert after is not None and after.wolf and after.health == 7 and after.poison_turns == 1


def test_temporary_effects_tick_before_creature_abilities(kit: Any) -> None:
    # Wind Dancer's fresh one-turn buff survives the tick (it comes after); a stunned
    # Salamander misses its ability this turn
    board = {(0, 1): kit.creature("wind-dancer"), (0, 2): kit.creature("salamander", stun=1),
             (1, 2): kit.creature("stone-golem")}
    duel = Duel(kit.state(board), kit.stream())
    duel.start_turn()
    dancer, salamander, golem = duel.board[0], duel.board[1], duel.board[6]
    assert dancer is not None and (dancer.buff, dancer.buff_turns) == (1, 1)
    assert salamander is not None and salamander.held and salamander.stun == 0
    assert golem is not None and golem.health == 20


def test_start_of_turn_runs_creatures_left_to_right_then_skills_then_artifacts(
        kit: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    board = {(0, 4): kit.creature("river-sprite"), (0, 2): kit.creature("salamander"),
             (1, 2): kit.creature("stone-golem"), (1, 4): kit.creature("dryad")}
    a = kit.loadout("fire", skills=("regeneration",), artifacts=("crown-of-tides",))
    trail, traced = _trace(monkeypatch)
    duel = traced(kit.state(board, a=a), kit.stream())
    duel.start_turn()
    # B's Dryad does not act on A's turn
    assert trail == [("damage", 1), ("heal", 3), ("heal", None), ("energy", None)]


# ---------------------------------------------------------------- attacks


def test_attacks_go_left_to_right(kit: Any) -> None:
    # B at 3 health: the Fire Imp (2) strikes first, then the golem (3) finishes
    board = {(0, 1): kit.creature("fire-imp"), (0, 2): kit.creature("stone-golem")}
    duel = Duel(kit.state(board, health=(40, 3)), kit.stream())
    with pytest.raises(DuelOver):
        duel.attacks()
    assert duel.health[1] == -2


def test_the_keeper_of_heights_strikes_before_all_others(kit: Any) -> None:
    # B at 3 health: the Keeper (slot 4, 4 attack) strikes first and fells B; the Fire Imp in
    # slot 1 never gets to strike
    board = {(0, 1): kit.creature("fire-imp"), (0, 4): kit.creature("keeper-of-heights")}
    duel = Duel(kit.state(board, health=(40, 3)), kit.stream())
    with pytest.raises(DuelOver):
        duel.attacks()
    assert duel.health[1] == -1


def test_a_creature_hits_the_creature_opposite_or_else_the_mage(kit: Any) -> None:
    board = {(0, 1): kit.creature("stone-golem"), (0, 2): kit.creature("stone-golem"),
             (1, 1): kit.creature("earth-titan")}
    duel = Duel(kit.state(board), kit.stream())
    duel.attacks()
    titan = duel.board[5]
    assert titan is not None and titan.health == 27 and duel.health == [40, 37]


def test_summoned_and_stunned_creatures_do_not_attack(kit: Any) -> None:
    board = {(0, 1): kit.creature("stone-golem", summoned=10),
             (0, 2): kit.creature("stone-golem", stun=1),
             (0, 3): kit.creature("stone-golem", summoned=9)}
    duel = Duel(kit.state(board, turn=10), kit.stream())
    duel.attacks()
    assert duel.health == [40, 37]


def test_creatures_attack_after_the_cast_and_the_new_one_waits(kit: Any) -> None:
    state = kit.state({(0, 1): kit.creature("stone-golem")})
    after = apply(state, Action("cast", scroll="earth-titan", slot=2), kit.stream())
    assert after.health == (40, 37) and after.seat == 1 and after.turn == 11


# ---------------------------------------------------------------- deaths


def test_death_order_own_abilities_other_creatures_skills_artifacts(
        kit: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    board = {(0, 5): kit.creature("ghoul"), (0, 1): kit.creature("skeleton", health=0),
             (1, 1): kit.creature("stone-golem")}
    a = kit.loadout("death", skills=("vengeance",), artifacts=("death-mask",))
    trail, traced = _trace(monkeypatch)
    duel = traced(kit.state(board, a=a), kit.stream())
    duel.deaths()
    assert trail == [("damage", 0), ("buff", 4), ("damage", None), ("poison", None)]
    assert duel.health[1] == 36  # Skeleton 2 + Vengeance 2


def test_creatures_that_fall_together_die_acting_side_first(
        kit: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    board = {(1, 1): kit.creature("skeleton", health=0), (0, 3): kit.creature("skeleton",
                                                                               health=0)}
    trail, traced = _trace(monkeypatch)
    duel = traced(kit.state(board, seat=0), kit.stream())
    duel.deaths()
    assert trail == [("damage", 2), ("damage", 5)]


# ---------------------------------------------------------------- the Werewolf


def test_the_werewolf_turns_the_moment_death_exceeds_five(kit: Any) -> None:
    energy = [20, 20, 20, 20, 3] + [20] * 5
    a = kit.loadout("death", runes=("rune-of-the-grave",))
    state = kit.state({(0, 2): kit.creature("werewolf")}, energy=energy, a=a)
    after = apply(state, Action("rune", rune="rune-of-the-grave"), kit.stream())
    wolf = after.creature(0, 2)
    assert wolf is not None and wolf.wolf and (wolf.attack, wolf.health) == (6, 20)
    assert after.seat == 0  # mid-turn: nothing else happened yet


def test_the_werewolf_stays_human_at_exactly_five(kit: Any) -> None:
    duel = Duel(kit.state({(0, 2): kit.creature("werewolf")},
                          energy=[20, 20, 20, 20, 4] + [20] * 5), kit.stream())
    duel.gain(0, 4, 1)
    assert duel.board[1] is not None and not duel.board[1].wolf
    duel.gain(0, 4, 1)
    assert duel.board[1].wolf


def test_the_enemys_death_energy_does_not_turn_my_werewolf(kit: Any) -> None:
    duel = Duel(kit.state({(0, 2): kit.creature("werewolf")},
                          energy=[20, 20, 20, 20, 0] + [20] * 5), kit.stream())
    duel.gain(1, 4, 5)
    assert duel.board[1] is not None and not duel.board[1].wolf


def test_a_werewolf_summoned_with_death_at_five_after_paying_stays_human(kit: Any) -> None:
    state = kit.state({}, energy=[20, 20, 20, 20, 9] + [20] * 5)
    after = apply(state, Action("cast", scroll="werewolf", slot=1), kit.stream())
    werewolf = after.creature(0, 1)
    assert werewolf is not None and not werewolf.wolf  # 9 - 4 = 5: not above 5


# ---------------------------------------------------------------- costs


def test_a_neutral_scroll_needs_every_listed_element(kit: Any) -> None:
    state = kit.state({}, energy=[20, 20, 1, 20, 20] + [20] * 5)
    guardian = Action("cast", scroll="elemental-guardian", slot=1)
    assert guardian not in legal_actions(state)
    with pytest.raises(IllegalAction, match=r"^not enough Air: Elemental Guardian costs 2 Fire, "
                       r"2 Water, 2 Air, 2 Earth, seat A has 1$"):
        apply(state, guardian, kit.stream())
    enough = kit.state({}, energy=[2, 2, 2, 2, 0] + [0] * 5)
    after = apply(enough, guardian, kit.stream())
    assert after.energy[:5] == (0, 0, 0, 0, 0)


def test_a_surplus_of_one_element_does_not_pay_for_another(kit: Any) -> None:
    state = kit.state({}, energy=[99, 2, 20, 20, 20] + [20] * 5)
    with pytest.raises(IllegalAction, match=r"^not enough Water: Healing Rain costs 6 Water, "
                       r"seat A has 2$"):
        apply(state, Action("cast", scroll="healing-rain", slot=None), kit.stream())


def test_scrolls_stay_available_after_use(kit: Any) -> None:
    state = kit.state({})
    meteor = Action("cast", scroll="meteor", slot=None)
    after = apply(apply(apply(state, meteor, kit.stream()), SKIP, kit.stream()), meteor,
                  kit.stream())
    assert after.health[1] == 40 - 16


# ---------------------------------------------------------------- Wrath and the endings


@pytest.mark.parametrize("turn", [49, 50, 51, 55, 60])
def test_wrath_of_the_gods_from_turn_50(kit: Any, turn: int) -> None:
    after = apply(kit.state({}, turn=turn, health=(45, 45)), SKIP, kit.stream())
    damage = max(turn + 1 - 49, 0)
    assert after.health == (45 - damage, 45 - damage)


def test_wrath_fells_one_mage_the_other_wins(kit: Any) -> None:
    after = apply(kit.state({}, turn=55, health=(30, 7)), SKIP, kit.stream())
    assert after.result is not None and after.result.to_json() == {"winner": 0,
                                                                   "reason": "wrath"}


def test_wrath_fells_both_a_draw(kit: Any) -> None:
    after = apply(kit.state({}, turn=55, health=(7, 6)), SKIP, kit.stream())
    assert after.result is not None and after.result.to_json() == {"winner": None,
                                                                   "reason": "simultaneous"}


def test_v1_both_alive_when_turn_70_would_begin_a_draw(kit: Any) -> None:
    state = kit.state({}, turn=69, health=(50, 50), rules=kit.V1)
    after = apply(state, SKIP, kit.stream())
    assert after.turn == 70 and after.health == (50, 50)
    assert after.result is not None and after.result.to_json() == {"winner": None,
                                                                   "reason": "turn-70"}
    assert legal_actions(after) == [] and GAME.current_seat(after) is None


def test_a_mage_at_zero_loses_by_health(kit: Any) -> None:
    state = kit.state({(0, 1): kit.creature("earth-titan")}, health=(40, 6))
    after = apply(state, SKIP, kit.stream())
    assert after.result is not None and after.result.to_json() == {"winner": 0,
                                                                   "reason": "health"}
    assert after.seat == 0  # the turn did not pass


# ---------------------------------------------------------------- timeouts and resigning


def test_a_timeout_loses(kit: Any) -> None:
    after = timeout(kit.state({}, seat=1), kit.stream())
    assert after.result is not None and after.result.to_json() == {"winner": 0,
                                                                   "reason": "timeout"}


def test_a_timeout_in_training_skips_the_turn(kit: Any) -> None:
    state = kit.state({(0, 1): kit.creature("stone-golem")}, training=True)
    after = timeout(state, kit.stream())
    assert after.result is None and after.seat == 1 and after.turn == 11
    assert after.health == (40, 37)  # the creatures still attack, as after a skip
    assert after.last == (0, "timeout", None, None)


def test_resign_the_other_wins(kit: Any) -> None:
    after = resign(kit.state({}, seat=0), 1)
    assert after.result is not None and after.result.to_json() == {"winner": 0,
                                                                   "reason": "resigned"}
    with pytest.raises(IllegalAction, match="over"):
        resign(after, 0)
    with pytest.raises(InvalidAction, match="seat must be 0 or 1"):
        resign(kit.state({}), 2)


# ---------------------------------------------------------------- illegal actions


def test_one_rune_a_turn_and_only_from_the_belt(kit: Any) -> None:
    a = kit.loadout("fire", runes=("rune-of-fire", "rune-of-healing"))
    state = kit.state({}, a=a)
    used = apply(state, Action("rune", rune="rune-of-fire"), kit.stream())
    assert all(action.kind != "rune" for action in legal_actions(used))
    with pytest.raises(IllegalAction, match="^seat A has already used a rune this turn$"):
        apply(used, Action("rune", rune="rune-of-healing"), kit.stream())
    with pytest.raises(IllegalAction, match="^rune-of-storms is not on seat A's rune belt$"):
        apply(state, Action("rune", rune="rune-of-storms"), kit.stream())


@pytest.mark.parametrize(("action", "message"), [
    (Action("cast", scroll="stone-golem", slot=1), "^slot 1 of seat A is taken by Fire Imp$"),
    (Action("cast", scroll="stone-golem", slot=None), "is a creature: name an empty slot"),
    (Action("cast", scroll="fireball", slot=2), "^Fireball needs an enemy creatures"),
    (Action("cast", scroll="meteor", slot=2), "^Meteor names no slot"),
    (Action("cast", scroll="stoneskin", slot=3), "needs one of your creatures"),
])
def test_illegal_casts_say_why(kit: Any, action: Action, message: str) -> None:
    state = kit.state({(0, 1): kit.creature("fire-imp"), (1, 1): kit.creature("stone-golem")})
    with pytest.raises(IllegalAction, match=message):
        apply(state, action, kit.stream())


def test_a_scroll_outside_the_deck_is_illegal(kit: Any) -> None:
    state = kit.state({}, a=kit.loadout("fire", deck=("fire-imp",)))
    with pytest.raises(IllegalAction, match="^Meteor is not in seat A's deck$"):
        apply(state, Action("cast", scroll="meteor", slot=None), kit.stream())


def test_nothing_is_legal_once_the_duel_is_over(kit: Any) -> None:
    over = resign(kit.state({}), 0)
    with pytest.raises(IllegalAction, match="over"):
        apply(over, SKIP, kit.stream())
    with pytest.raises(IllegalAction, match="over"):
        timeout(over, kit.stream())


def test_legal_actions_list_runes_casts_and_skip(kit: Any) -> None:
    a = kit.loadout("fire", deck=("fire-imp", "fireball", "meteor", "stoneskin"),
                    runes=("rune-of-fire", "rune-of-fire"))
    state = kit.state({(0, 1): kit.creature("stone-golem"), (1, 3): kit.creature("dryad")}, a=a)
    assert [action.to_json() for action in legal_actions(state)] == [
        {"kind": "rune", "rune": "rune-of-fire"},
        *({"kind": "cast", "scroll": "fire-imp", "slot": n} for n in (2, 3, 4, 5)),
        {"kind": "cast", "scroll": "fireball", "slot": 3},
        {"kind": "cast", "scroll": "meteor", "slot": None},
        {"kind": "cast", "scroll": "stoneskin", "slot": 1},
        {"kind": "skip"},
    ]
    for action in legal_actions(state):
        apply(state, action, kit.stream())


# ---------------------------------------------------------------- random picks


def test_random_picks_come_from_the_stream_handed_in(kit: Any) -> None:
    # Chaos Orb: three strikes of 3 at random among two enemy creatures
    state = kit.state({(1, 1): kit.creature("stone-golem"), (1, 3): kit.creature("earth-titan")})
    orb = Action("cast", scroll="chaos-orb", slot=None)

    def golem_after(key: bytes) -> int:
        golem = apply(state, orb, RandomStream(key, "ply/0")).creature(1, 1)
        return 0 if golem is None else golem.health

    outcomes = {golem_after(bytes([n]) * 32) for n in range(24)}
    assert len(outcomes) > 1  # the key decides where the strikes land
    assert outcomes <= {20, 17, 14, 11}  # 0 to 3 of the strikes; nothing else touches it
    assert golem_after(bytes(32)) == golem_after(bytes(32))


def test_v1_both_mages_falling_in_the_same_start_of_turn_is_a_draw(kit: Any) -> None:
    # B skips; at the start of A's turn A's poisoned Skeleton dies (2 to B, at 2), then A's
    # Salamander kills B's Skeleton (2 to A, at 2): both fall before the start is judged
    board = {(0, 1): kit.creature("skeleton", poison=4, poison_turns=1),
             (0, 2): kit.creature("salamander"), (1, 2): kit.creature("skeleton", health=2)}
    state = kit.state(board, seat=1, health=(2, 2), rules=kit.V1)
    after = apply(state, SKIP, kit.stream())
    assert after.health == (0, 0) and after.turn == 11
    assert after.result is not None and after.result.to_json() == {"winner": None,
                                                                   "reason": "simultaneous"}


@pytest.mark.parametrize("action", [
    Action("cast"), Action("cast", scroll="unicorn", slot=1), Action("rune"),
    Action("skip", scroll="meteor"), Action("fly"), "skip",
])
def test_a_foreign_action_is_invalid_not_illegal(kit: Any, action: Any) -> None:
    with pytest.raises(InvalidAction, match="not an action of the Wyrdstone duel"):
        apply(kit.state({}), action, kit.stream())
