"""Helpers for the two-tower duel tests: constructed states and the protocol's random stream."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest

from fairdeal.games.arcomage import BATTLEFIELD_BY_ID, ArcomageState
from fairdeal.games.arcomage.effects import STATS
from fairdeal.games.arcomage.state import ACT
from fairdeal.verifier.rng import RandomStream

#: the numbers of the constructed states, unless a test overrides some
BASE_A = {
    "tower": 20,
    "wall": 10,
    "mines": 3,
    "monasteries": 3,
    "barracks": 3,
    "ore": 30,
    "mana": 30,
    "troops": 30,
}
BASE_B = {
    "tower": 25,
    "wall": 12,
    "mines": 4,
    "monasteries": 2,
    "barracks": 4,
    "ore": 20,
    "mana": 20,
    "troops": 20,
}
#: filler cards for hands: Basic Wall, Sturdy Wall, Miners, Amethyst, Ruby (cheap, harmless)
FILLER = (8, 10, 12, 38, 43)
#: a known draw pile, so refills are predictable: Orc, Ogre, Quartz, Ruby, Emerald, ...
DRAW_PILE = (78, 86, 37, 43, 52, 59, 65, 31, 28, 92)


def build_state(
    a: Mapping[str, int] | None = None,
    b: Mapping[str, int] | None = None,
    *,
    hand_a: Sequence[int] = (1, *FILLER),
    hand_b: Sequence[int] = (2, *FILLER),
    turn: int = 0,
    phase: int = ACT,
    draw_pile: Sequence[int] = DRAW_PILE,
    discard_pile: Sequence[int] = (),
    infinite: bool = False,
    battlefield: str = "free-steppe",
    timeouts: tuple[int, int] = (0, 0),
    last: tuple[int, str, int | None] | None = None,
) -> ArcomageState:
    """A state with BASE_A / BASE_B numbers, changed by ``a`` and ``b`` (by stat name)."""
    first, second = {**BASE_A, **(a or {})}, {**BASE_B, **(b or {})}
    return ArcomageState(
        battlefield=BATTLEFIELD_BY_ID[battlefield],
        infinite=infinite,
        turn=turn,
        phase=phase,
        stats=tuple(first[name] for name in STATS) + tuple(second[name] for name in STATS),
        hands=(tuple(hand_a), tuple(hand_b)),
        draw_pile=() if infinite else tuple(draw_pile),
        discard_pile=tuple(discard_pile),
        timeouts=timeouts,
        last=last,
        result=None,
    )


@pytest.fixture
def make_state() -> Callable[..., ArcomageState]:
    """``make_state(a={...}, b={...}, hand_a=..., ...)``: see build_state."""
    return build_state


@pytest.fixture
def stream() -> Callable[[str], RandomStream]:
    """``stream(label)``: a RandomStream under a fixed test key."""

    def make(label: str = "test") -> RandomStream:
        return RandomStream(bytes(range(32)), label)

    return make
