"""Toy Battle as plain text for a terminal: medals and regions, every base with its stack, and
the racks the perspective may see. Pure, like render.py."""

from __future__ import annotations

from .boards import SEAT_NAMES
from .state import State
from .troops import TROOP_BY_ID

__all__ = ["render_text"]


def _troop(troop: str) -> str:
    kind = TROOP_BY_ID[troop]
    return kind.name if kind.strength is None else f"{kind.name} {kind.strength}"


def render_text(state: State, seat: int | None = None) -> str:
    """The state in lines of text; ``seat`` is whose eyes (None: both racks are shown)."""
    board = state.board
    lines = [f"{board.name}: medals blue {state.medals[0]} - red {state.medals[1]} "
             f"(win at {board.medals_to_win})"]
    if state.outcome is not None:
        winner = state.outcome.winner
        lines.append(("  draw" if winner is None else f"  {SEAT_NAMES[winner]} wins")
                     + f" ({state.outcome.reason})")
    else:
        pending = f" (pending: {state.pending[0].effect})" if state.pending else ""
        lines.append(f"  turn {state.turn}: {SEAT_NAMES[state.seat]} to act{pending}")
    for index, region in enumerate(board.regions):
        taker = state.regions[index]
        owner = "not taken" if taker is None else f"taken by {SEAT_NAMES[taker]}"
        lines.append(f"  region {list(region.bases)}: {region.medals} medal(s), {owner}")
    for node in board.nodes:
        if node.hq is not None:
            lines.append(f"  {SEAT_NAMES[node.hq]} HQ {node.id}"
                         + ("" if state.captor is None or state.captor[0] != node.id else
                            f": taken by {SEAT_NAMES[state.captor[1]]}'s "
                            f"{_troop(state.captor[2])}"))
            continue
        stack = state.stacks[node.id]
        special = f" [{node.special}]" if node.special else ""
        pieces = ", ".join(f"{SEAT_NAMES[owner]} {_troop(troop)}" for owner, troop in stack)
        lines.append(f"  base {node.id}{special}: {pieces or 'empty'}")
    for side in (0, 1):
        name = SEAT_NAMES[side]
        discards = ", ".join(_troop(t) for t in state.discards[side]) or "none"
        lines.append(f"  {name}: reserve {len(state.reserves[side])}, discard {discards}")
        rack = state.racks[side]
        if seat is None or seat == side:
            frozen = state.frozen[side]
            troops = ", ".join(_troop(t) + (" (frozen)" if slot in frozen else "")
                               for slot, t in enumerate(rack))
            lines.append(f"  {name}'s rack: {troops or 'empty'}")
        else:
            lines.append(f"  {name}'s rack: {len(rack)} troops (hidden)")
    return "\n".join(lines)
