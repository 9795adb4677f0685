"""Tavern effects (wyrdstone/2): one test per effect, where they fire (once, before turn 1),
and how they are chosen (each seat's ``tavern`` parameter, fixed in the match header)."""

from __future__ import annotations

from typing import Any

import pytest

from fairdeal.games.base import InvalidParams
from fairdeal.games.wyrdstone import GAME, TAVERN, VERSIONS
from fairdeal.games.wyrdstone.engine import Duel
from fairdeal.games.wyrdstone.state import WyrdState
from fairdeal.verifier.rng import RandomStream

Energy = dict[str, int]
FLAT: Energy = dict.fromkeys(("fire", "water", "air", "earth", "death"), 10)


def _plus(**changes: int) -> Energy:
    return {element: amount + changes.get(element, 0) for element, amount in FLAT.items()}


# effect id -> (A's energy after it, B's energy after it); both start at 10 of each
TAVERN_CASES: dict[str, tuple[Energy, Energy]] = {
    "fire-whisky": (_plus(fire=2), FLAT),
    "sailors-grog": (_plus(water=2), FLAT),
    "storm-mead": (_plus(air=2), FLAT),
    "dwarven-ale": (_plus(earth=2), FLAT),
    "gravediggers-gin": (_plus(death=2), FLAT),
    "hermits-tea": (_plus(fire=1, water=1, air=1, earth=1, death=1), FLAT),
    "bitter-draught": (FLAT, _plus(fire=-1, water=-1, air=-1, earth=-1, death=-1)),
}


def _duel_start(kit: Any, *tavern: str) -> WyrdState:
    duel = Duel(kit.state({}, energy=10, a=kit.loadout("fire", tavern=tavern)), kit.stream())
    duel.duel_start()
    return duel.freeze(None, None)


def test_every_tavern_effect_has_a_case() -> None:
    assert set(TAVERN_CASES) == {item.id for item in TAVERN}


@pytest.mark.parametrize("effect", sorted(TAVERN_CASES))
def test_tavern_effect(kit: Any, effect: str) -> None:
    after = _duel_start(kit, effect)
    assert (after.energy_of(0), after.energy_of(1)) == TAVERN_CASES[effect]
    nothing = _duel_start(kit)
    assert (nothing.energy_of(0), nothing.energy_of(1)) == (FLAT, FLAT)


def test_tavern_effects_fire_once_before_turn_1_not_at_each_turn(kit: Any) -> None:
    duel = Duel(kit.state({}, energy=10, a=kit.loadout("fire", tavern=("fire-whisky",))),
                kit.stream())
    duel.start_turn()  # a turn's start: +1 of each element, no whisky
    assert duel.energy[:5] == [11, 11, 11, 11, 11]


def test_setup_applies_both_seats_tavern_effects_before_the_first_turn() -> None:
    params = {"A": {"tavern": ["fire-whisky", "bitter-draught"]},
              "B": {"school": "death", "tavern": ["gravediggers-gin"]}}
    state = GAME.setup(params, RandomStream(bytes(32), "setup"))
    first = state.seat
    # A: fire mage, 7 Fire and 4 of the rest, +2 Fire; B: death mage, +2 Death, -1 of each
    a = {"fire": 9, "water": 4, "air": 4, "earth": 4, "death": 4}
    b = {"fire": 3, "water": 3, "air": 3, "earth": 3, "death": 8}
    starts = [a, b]
    # then the first player's turn 1: +1 each, and Meditation's +1 of the school
    school = ("fire", "death")[first]
    starts[first] = {e: n + 1 + (e == school) for e, n in starts[first].items()}
    assert state.energy_of(0) == starts[0] and state.energy_of(1) == starts[1]
    assert state.loadouts[0].tavern == ("fire-whisky", "bitter-draught")


def test_tavern_effects_are_fixed_in_the_normal_params() -> None:
    normal = GAME.normalize_params({"A": {"tavern": ["storm-mead"]}})
    assert normal["A"]["tavern"] == ["storm-mead"] and normal["B"]["tavern"] == []
    assert GAME.normalize_params(normal) == normal  # what the header commits to


@pytest.mark.parametrize(("params", "message"), [
    ({"A": {"tavern": "ale"}}, r"^A\.tavern must be a list of tavern effect ids"),
    ({"A": {"tavern": ["mulled-wine"]}}, r"^A\.tavern names no tavern effect of the book"),
    ({"B": {"tavern": ["storm-mead", "storm-mead"]}}, r"^B\.tavern must be up to 2 different"),
    ({"B": {"tavern": ["storm-mead", "dwarven-ale", "fire-whisky"]}},
     r"^B\.tavern must be up to 2 different"),
])
def test_bad_tavern_params_name_the_key(params: Any, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        GAME.normalize_params(params)


def test_wyrdstone_1_has_no_tavern() -> None:
    v1 = VERSIONS["wyrdstone/1"]
    with pytest.raises(InvalidParams, match=r"unknown parameter A\.tavern: .* \(under "
                       r"wyrdstone/1\)$"):
        v1.normalize_params({"A": {"tavern": ["storm-mead"]}})
    assert "tavern" not in v1.normalize_params({})["A"]
    assert "tavern" not in v1.rules_data()


def test_the_rules_data_lists_the_tavern_effects() -> None:
    records = GAME.rules_data()["tavern"]
    assert [record["id"] for record in records] == [item.id for item in TAVERN]
    assert records[5] == {"id": "hermits-tea", "name": "Hermit's Tea", "text": (
        "at the start of the duel: you gain 1 Fire; you gain 1 Water; you gain 1 Air; "
        "you gain 1 Earth; you gain 1 Death")}
