"""Shared helpers for the Toy Battle tests: build a position by hand, and a random stream."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from fairdeal.games.toybattle import BOARD_BY_ID, GAME, State
from fairdeal.games.toybattle.state import NODE_SLOTS, Pending
from fairdeal.verifier.rng import RandomStream

Builder = Callable[..., State]


def build_state(
    board: str = "castle-field",
    *,
    seat: int = 0,
    stacks: Mapping[int, Sequence[tuple[int, str]]] | None = None,
    racks: tuple[Sequence[str], Sequence[str]] = ((), ()),
    reserves: tuple[Sequence[str], Sequence[str]] | None = None,
    discards: tuple[Sequence[str], Sequence[str]] = ((), ()),
    frozen: tuple[Sequence[int], Sequence[int]] = ((), ()),
    medals: tuple[int, int] = (0, 0),
    regions: Sequence[int | None] | None = None,
    pending: Sequence[tuple[str, int]] = (),
    turn: int = 5,
    timeouts: tuple[int, int] = (0, 0),
) -> State:
    """A position built by hand. Reserves default to 10 Roxys each (so drawing is possible)."""
    layout: list[tuple[tuple[int, str], ...]] = [()] * NODE_SLOTS
    for base, stack in (stacks or {}).items():
        layout[base] = tuple(stack)
    if reserves is None:
        reserves = (("roxy",) * 10, ("roxy",) * 10)
    return State(
        board_id=board,
        first=0,
        turn=turn,
        seat=seat,
        stacks=tuple(layout),
        racks=(tuple(racks[0]), tuple(racks[1])),
        reserves=(tuple(reserves[0]), tuple(reserves[1])),
        set_aside=(("kwak",) * 4, ("kwak",) * 4),
        discards=(tuple(discards[0]), tuple(discards[1])),
        frozen=(tuple(frozen[0]), tuple(frozen[1])),
        medals=medals,
        regions=tuple(regions)
        if regions is not None
        else (None,) * len(BOARD_BY_ID[board].regions),
        pending=tuple(Pending(effect, base) for effect, base in pending),
        timeouts=timeouts,
    )


@pytest.fixture
def build() -> Builder:
    """``build(board, seat=..., stacks={13: [(0, "hook")]}, racks=(("roxy",), ()), ...)``"""
    return build_state


@pytest.fixture
def stream() -> Callable[[str], RandomStream]:
    """A deterministic random stream for ``label`` (key of 32 zero bytes)."""
    return lambda label="test": RandomStream(bytes(32), label)


@pytest.fixture
def play(stream: Callable[[str], RandomStream]) -> Callable[[State, Any], State]:
    """Apply an action given as JSON (or an Action) with a fresh stream."""

    def _play(state: State, action: Any) -> State:
        if isinstance(action, Mapping):
            action = GAME.parse_action(action)
        return GAME.apply(state, action, stream("ply"))

    return _play
