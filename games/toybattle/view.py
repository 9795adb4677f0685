"""What one seat (or a spectator) may see of a Toy Battle state.

Public: the board, the discards (face up), medals and regions, counts of every hidden pile, the
pending effect, the last event and the result. A seat also sees its own rack and which of its
troops are frozen. Nobody sees the reserves' order, the opponent's rack, or the troops set
aside (those are shown only by ``state_to_json`` after the reveal).
"""

from __future__ import annotations

from ..base import JSON
from .boards import SEAT_NAMES
from .state import State, state_to_json

__all__ = ["view"]


def view(state: State, seat: int | None) -> dict[str, JSON]:
    """The view of ``seat`` (0 blue, 1 red, None a spectator)."""
    full = state_to_json(state)
    counts = {
        "racks": {SEAT_NAMES[s]: len(state.racks[s]) for s in (0, 1)},
        "reserves": {SEAT_NAMES[s]: len(state.reserves[s]) for s in (0, 1)},
        "set_aside": {SEAT_NAMES[s]: len(state.set_aside[s]) for s in (0, 1)},
        "frozen": {SEAT_NAMES[s]: len(state.frozen[s]) for s in (0, 1)},
    }
    public = {
        key: full[key]
        for key in (
            "board",
            "first",
            "turn",
            "seat",
            "stacks",
            "discards",
            "medals",
            "regions",
            "pending",
            "timeouts",
            "last",
            "captor",
            "result",
        )
    }
    public["counts"] = counts
    public["viewer"] = None if seat is None else SEAT_NAMES[seat]
    if seat is not None:
        public["rack"] = list(state.racks[seat])
        public["frozen"] = list(state.frozen[seat])
    return public
