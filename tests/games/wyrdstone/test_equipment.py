"""One test per rune, artifact and skill of the starter book."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games.wyrdstone.book import ARTIFACTS, RUNES, SKILLS
from fairdeal.games.wyrdstone.engine import Duel
from fairdeal.games.wyrdstone.rules import apply
from fairdeal.games.wyrdstone.state import Action, WyrdState

Check = Callable[[WyrdState], Any]


def _board(kit: Any) -> dict[tuple[int, int], Any]:
    return {(0, 2): kit.creature("stone-golem", health=10), (1, 1): kit.creature("stone-golem"),
            (1, 3): kit.creature("earth-titan")}


def _b_total(state: WyrdState) -> int:
    return sum(c.health for c in state.board[5:] if c is not None)


RUNE_CASES: dict[str, Check] = {
    "rune-of-fire": lambda s: s.energy[0] == 23,
    "rune-of-the-grave": lambda s: s.energy[4] == 23,
    "rune-of-healing": lambda s: s.health[0] == 46,
    "rune-of-storms": lambda s: _b_total(s) == 46 and s.health[1] == 40,
    "rune-of-valour": lambda s: (s.board[1].buff, s.board[1].buff_turns) == (2, 1),  # type: ignore[union-attr]
}


def test_every_rune_has_a_case() -> None:
    assert set(RUNE_CASES) == {rune.id for rune in RUNES}


@pytest.mark.parametrize("rune", sorted(RUNE_CASES))
def test_rune(kit: Any, rune: str) -> None:
    state = kit.state(_board(kit), a=kit.loadout("fire", runes=(rune, rune)))
    after = apply(state, Action("rune", rune=rune), kit.stream(rune))
    assert RUNE_CASES[rune](after), after
    # used up (one of the two copies), the turn goes on, no second rune this turn
    assert after.belts[0] == (rune,) and after.seat == 0 and after.turn == 10 and after.rune_used


def test_rune_of_storms_strikes_the_mage_when_no_enemy_creature_stands(kit: Any) -> None:
    state = kit.state({}, a=kit.loadout("fire", runes=("rune-of-storms",)))
    after = apply(state, Action("rune", rune="rune-of-storms"), kit.stream())
    assert after.health == (40, 36)


def _start(kit: Any, **equipment: Any) -> WyrdState:
    duel = Duel(kit.state(_board(kit), a=kit.loadout("fire", **equipment)), kit.stream())
    duel.start_turn()
    return duel.freeze(None, None)


def _ally_dies(kit: Any, **equipment: Any) -> WyrdState:
    board = _board(kit)
    board[0, 2].health = 0
    duel = Duel(kit.state(board, a=kit.loadout("fire", **equipment)), kit.stream())
    duel.deaths()
    return duel.freeze(None, None)


def _enemy_dies(kit: Any, **equipment: Any) -> WyrdState:
    board = _board(kit)
    board[1, 1].health = 0
    duel = Duel(kit.state(board, a=kit.loadout("fire", **equipment)), kit.stream())
    duel.deaths()
    return duel.freeze(None, None)


# artifact id -> (scene, check)
ARTIFACT_CASES: dict[str, tuple[Callable[..., WyrdState], Check]] = {
    "staff-of-embers": (_start, lambda s: _b_total(s) == 49),
    "chalice-of-life": (_start, lambda s: s.health[0] == 41),
    "crown-of-tides": (_start, lambda s: s.energy[:5] == (21, 22, 21, 21, 21)),
    "bone-charm": (_enemy_dies, lambda s: s.energy[4] == 21 and s.energy[9] == 20),
    "death-mask": (_ally_dies, lambda s: sorted((c.poison, c.poison_turns) for c in s.board[5:]
                                                if c is not None) == [(0, 0), (1, 2)]),
}
SKILL_CASES: dict[str, tuple[Callable[..., WyrdState], Check]] = {
    "meditation": (_start, lambda s: s.energy[:5] == (22, 21, 21, 21, 21)),
    "regeneration": (_start, lambda s: s.health[0] == 41),
    "necromancy": (_ally_dies, lambda s: s.energy[4] == 21),
    "vengeance": (_ally_dies, lambda s: s.health == (40, 38)),
}


def test_every_artifact_and_skill_has_a_case() -> None:
    assert set(ARTIFACT_CASES) == {item.id for item in ARTIFACTS}
    assert set(SKILL_CASES) == {skill.id for skill in SKILLS}


@pytest.mark.parametrize("artifact", sorted(ARTIFACT_CASES))
def test_artifact(kit: Any, artifact: str) -> None:
    scene, check = ARTIFACT_CASES[artifact]
    after = scene(kit, artifacts=(artifact,))
    assert check(after), after
    assert check(scene(kit)) is False  # without the artifact it does not happen


@pytest.mark.parametrize("skill", sorted(SKILL_CASES))
def test_skill(kit: Any, skill: str) -> None:
    scene, check = SKILL_CASES[skill]
    assert check(scene(kit, skills=(skill,)))
    assert check(scene(kit)) is False


def test_meditation_gives_the_school_element(kit: Any) -> None:
    duel = Duel(kit.state({}, a=kit.loadout("water", skills=("meditation",))), kit.stream())
    duel.start_turn()
    assert duel.energy[:5] == [21, 22, 21, 21, 21]


def test_bone_charm_hears_its_own_side_too(kit: Any) -> None:
    assert _ally_dies(kit, artifacts=("bone-charm",)).energy[4] == 21
