"""Helpers for the Wyrdstone tests: constructed states, creatures and the protocol's stream."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest

from fairdeal.games.wyrdstone.book import ELEMENTS, SCROLL_BY_ID, SCROLLS
from fairdeal.games.wyrdstone.state import SLOTS, Creature, Loadout, WyrdState
from fairdeal.games.wyrdstone.versions import V1, V2, RuleSet
from fairdeal.verifier.rng import RandomStream

#: every scroll of the book, so a constructed mage may cast anything
ALL_SCROLLS = tuple(scroll.id for scroll in SCROLLS)


def creature(scroll: str, summoned: int = 0, **changes: int | bool) -> Creature:
    """A creature of ``scroll`` as summoned on turn ``summoned``, with ``changes``."""
    record = SCROLL_BY_ID[scroll]
    made = Creature(scroll, record.attack, record.health, record.health, summoned)
    for key, value in changes.items():
        setattr(made, key, value)
    return made


def loadout(school: str = "fire", *, deck: Sequence[str] = ALL_SCROLLS,
            runes: Sequence[str] = (), artifacts: Sequence[str] = (),
            skills: Sequence[str] = (), tavern: Sequence[str] = ()) -> Loadout:
    """A mage's equipment (the deck need not be a legal match deck here)."""
    return Loadout(school, None, school, tuple(deck), tuple(runes), tuple(artifacts),
                   tuple(skills), tuple(tavern))


def build_state(
    board: Mapping[tuple[int, int], Creature] | None = None,
    *,
    energy: Sequence[int] | int = 20,
    health: tuple[int, int] = (40, 40),
    turn: int = 10,
    seat: int = 0,
    a: Loadout | None = None,
    b: Loadout | None = None,
    training: bool = False,
    rune_used: bool = False,
    rules: RuleSet = V2,
) -> WyrdState:
    """A state on turn ``turn`` with ``seat`` to act; ``board`` maps (seat, slot 1-5) to
    creatures; ``energy`` is one number for all ten counters or the ten of them. Under the
    newest rules unless ``rules`` names another version."""
    cells: list[Creature | None] = [None] * (2 * SLOTS)
    for (side, slot), made in (board or {}).items():
        cells[side * SLOTS + slot - 1] = made
    counters = (energy,) * (2 * len(ELEMENTS)) if isinstance(energy, int) else tuple(energy)
    first, second = a or loadout("fire"), b or loadout("earth")
    return WyrdState(
        loadouts=(first, second),
        training=training,
        turn=turn,
        seat=seat,
        health=health,
        energy=counters,
        board=tuple(cells),
        belts=(first.runes, second.runes),
        rune_used=rune_used,
        last=None,
        last_cast=None,
        result=None,
        rules=rules,
    )


def stream(label: str = "test") -> RandomStream:
    """A RandomStream under a fixed test key."""
    return RandomStream(bytes(range(32)), label)


@pytest.fixture
def make_state() -> Callable[..., WyrdState]:
    """``make_state(board, energy=..., ...)``: see build_state."""
    return build_state


class Kit:
    """The helpers above, for tests (conftest is not importable under --import-mode=importlib)."""

    state = staticmethod(build_state)
    creature = staticmethod(creature)
    loadout = staticmethod(loadout)
    stream = staticmethod(stream)
    V1 = V1
    V2 = V2


@pytest.fixture
def kit() -> type[Kit]:
    """``kit.state(...)``, ``kit.creature(...)``, ``kit.loadout(...)``, ``kit.stream(...)``."""
    return Kit
