"""One test per scroll of the starter book: each scroll's abilities do what its text says.

The scene (see ``_scene``): turn 10, A to act with 20 of every energy, both mages at 40 health;
B holds a Stone Golem (3/20) in slot 1 and an Earth Titan (6/30) in slot 3. Each case puts
the scroll where its ability fires (cast / summon, start of turn, a hit, its death, an ally's
death) and checks the numbers after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games.wyrdstone.book import SCROLL_BY_ID, SCROLLS
from fairdeal.games.wyrdstone.engine import Duel
from fairdeal.games.wyrdstone.rules import cast
from fairdeal.games.wyrdstone.state import WyrdState

Check = Callable[[WyrdState], Any]


def _b_total(state: WyrdState) -> int:
    return sum(c.health for c in state.board[5:] if c is not None)


def _scene(kit: Any, scroll: str, how: str, slot: int | None) -> WyrdState:
    board = {(1, 1): kit.creature("stone-golem"), (1, 3): kit.creature("earth-titan")}
    if how in ("start", "hit"):
        board[0, 1] = kit.creature(scroll)
        if scroll in ("merfolk-shaman", "wind-dancer"):
            board[0, 2] = kit.creature("stone-golem", health=10)
    elif how == "death":
        board[0, 2] = kit.creature(scroll, health=0)
    elif how == "ally-death":
        board[0, 2] = kit.creature(scroll)
        board[0, 4] = kit.creature("stone-golem", health=0)
    elif how == "cast" and slot is None:
        board[0, 2] = kit.creature("stone-golem", health=10)  # for own-creature spells
    elif how == "cast" and SCROLL_BY_ID[scroll].target == "own-creature":
        board[0, slot] = kit.creature("stone-golem", health=10)
    state = kit.state(board)
    duel = Duel(state, kit.stream(scroll))
    if how == "cast":
        cast(duel, 0, SCROLL_BY_ID[scroll], slot)
    elif how == "start":
        duel.start_turn()
    elif how == "hit":
        duel.attacks()
    else:
        duel.deaths()
    return duel.freeze(None, None)


def _at(state: WyrdState, seat: int, slot: int) -> Any:
    found = state.creature(seat, slot)
    assert found is not None
    return found


# scroll id -> (where its ability fires, the slot it names, the check)
CASES: dict[str, tuple[str, int | None, Check]] = {
    "fire-imp": ("cast", 2, lambda s: (_at(s, 0, 2).attack, s.health[1]) == (2, 38)),
    "salamander": ("start", None, lambda s: _at(s, 1, 1).health == 18),
    "flame-archer": ("start", None, lambda s: _b_total(s) == 48),
    "phoenix": ("death", None, lambda s: s.health[1] == 34 and s.creature(0, 2) is None),
    "fire-drake": ("cast", 5, lambda s: (_at(s, 1, 1).health, _at(s, 1, 3).health) == (17, 27)),
    "fireball": ("cast", 1, lambda s: _at(s, 1, 1).health == 11),
    "flame-wave": ("cast", None, lambda s: (_at(s, 1, 1).health, _at(s, 1, 3).health)
                   == (16, 26)),
    "meteor": ("cast", None, lambda s: s.health == (40, 32)),
    "river-sprite": ("start", None, lambda s: s.health[0] == 42),
    "merfolk-shaman": ("start", None, lambda s: _at(s, 0, 2).health == 12),
    "ice-golem": ("hit", None, lambda s: (_at(s, 1, 1).health, _at(s, 1, 1).stun) == (16, 1)),
    "sea-serpent": ("cast", 1, lambda s: _at(s, 1, 1).stun == 2),
    "frost-bolt": ("cast", 1, lambda s: (_at(s, 1, 1).health, _at(s, 1, 1).stun) == (15, 1)),
    "healing-rain": ("cast", None, lambda s: s.health[0] == 48),
    "tidal-wave": ("cast", None, lambda s: (_at(s, 1, 1).health, _at(s, 1, 3).health)
                   == (15, 25)),
    "mana-spring": ("cast", None, lambda s: s.energy[:5] == (22, 18, 22, 22, 22)),
    "keeper-of-heights": ("hit", None, lambda s: _at(s, 1, 1).health == 16),
    "storm-hawk": ("cast", 2, lambda s: _b_total(s) == 47),
    "thunderbird": ("hit", None, lambda s: (_at(s, 1, 1).health, _at(s, 1, 1).stun) == (15, 1)),
    "wind-dancer": ("start", None, lambda s: (_at(s, 0, 1).buff, _at(s, 0, 2).buff,
                                              _at(s, 0, 2).buff_turns) == (1, 1, 1)),
    "lightning": ("cast", None, lambda s: s.health[1] == 34),
    "chain-lightning": ("cast", None, lambda s: (_at(s, 1, 1).health, _at(s, 1, 3).health,
                                                 s.health[1]) == (17, 27, 37)),
    "tailwind": ("cast", None, lambda s: (_at(s, 0, 2).buff, _at(s, 0, 2).buff_turns) == (2, 1)),
    "gust": ("cast", 3, lambda s: _at(s, 1, 3).stun == 2),
    "stone-golem": ("cast", 4, lambda s: (_at(s, 0, 4).attack, _at(s, 0, 4).health) == (3, 20)),
    "dryad": ("start", None, lambda s: s.energy[3] == 22 and s.energy[0] == 21),
    "venom-spider": ("hit", None, lambda s: (_at(s, 1, 1).health, _at(s, 1, 1).poison,
                                             _at(s, 1, 1).poison_turns) == (18, 2, 3)),
    "earth-titan": ("cast", 4, lambda s: (_at(s, 0, 4).attack, _at(s, 0, 4).health) == (6, 30)),
    "stoneskin": ("cast", 2, lambda s: (_at(s, 0, 2).health, _at(s, 0, 2).attack) == (20, 4)),
    "rockfall": ("cast", 1, lambda s: _at(s, 1, 1).health == 12),
    "poison-cloud": ("cast", None, lambda s: all(
        (c.poison, c.poison_turns) == (2, 3) for c in s.board[5:] if c is not None)),
    "earthquake": ("cast", None, lambda s: (_at(s, 1, 1).health, _at(s, 1, 3).health,
                                            _at(s, 0, 2).health) == (15, 25, 5)),
    # with 20 Death (16 after paying) the Werewolf is a wolf the moment it comes in
    "werewolf": ("cast", 2, lambda s: (_at(s, 0, 2).wolf, _at(s, 0, 2).attack,
                                       _at(s, 0, 2).health) == (True, 6, 20)),
    "skeleton": ("death", None, lambda s: s.health[1] == 38),
    "ghoul": ("ally-death", None, lambda s: _at(s, 0, 2).attack == 4),
    "banshee": ("cast", 2, lambda s: s.health[1] == 36),
    "vampire": ("hit", None, lambda s: s.health[0] == 43 and _at(s, 1, 1).health == 16),
    "drain-life": ("cast", None, lambda s: s.health == (44, 36)),
    "curse": ("cast", 1, lambda s: (_at(s, 1, 1).poison, _at(s, 1, 1).poison_turns) == (3, 3)),
    "bone-spear": ("cast", 3, lambda s: _at(s, 1, 3).health == 18),
    "doom": ("cast", None, lambda s: _b_total(s) == 40 and s.health[1] == 40),
    "elemental-guardian": ("cast", 1, lambda s: s.energy[:5] == (18, 18, 18, 18, 20)
                           and _at(s, 0, 1).health == 20),
    "wandering-knight": ("cast", 1, lambda s: s.health[0] == 43 and s.energy[:5]
                         == (17, 20, 20, 17, 20)),
    "chaos-orb": ("cast", None, lambda s: _b_total(s) == 41 and s.energy[:5]
                  == (16, 20, 16, 20, 16)),
    "restoration": ("cast", None, lambda s: s.health[0] == 50 and _at(s, 0, 2).health == 13),
    "frost-storm": ("cast", None, lambda s: (_at(s, 1, 1).stun, _at(s, 1, 3).stun) == (1, 1)),
    "battle-cry": ("cast", None, lambda s: _at(s, 0, 2).attack == 5 and _at(s, 0, 2).buff == 0),
}


def test_every_scroll_has_a_case() -> None:
    assert set(CASES) == {scroll.id for scroll in SCROLLS}


@pytest.mark.parametrize("scroll", sorted(CASES))
def test_scroll(kit: Any, scroll: str) -> None:
    how, slot, check = CASES[scroll]
    after = _scene(kit, scroll, how, slot)
    assert check(after), after


def test_banshee_death_poisons_every_enemy_creature(kit: Any) -> None:
    after = _scene(kit, "banshee", "death", None)
    assert [(c.poison, c.poison_turns) for c in after.board[5:] if c is not None] == [(1, 3)] * 2
