"""Toy Battle's placement and drawing rules, as pure questions about a board position.

These functions read a position (the stacks, racks and reserves) and answer what a seat may
do; ``engine`` changes positions. Both the legal-move generator and the legality check call
the same ``placement_error``, so what is listed is exactly what is accepted.
"""

from __future__ import annotations

from collections.abc import Sequence

from .boards import Board
from .troops import TROOP_BY_ID

__all__ = [
    "RACK_MAX",
    "TURN_LIMIT",
    "anchors",
    "draw_count",
    "effect_draw_count",
    "free_copy",
    "placement_error",
    "stack_error",
]

#: a rack holds at most this many troops ("if you are to draw a 9th troop, skip it")
RACK_MAX = 8
#: safety net against endless play (see docs/rules/toybattle.md, "Turn limit")
TURN_LIMIT = 200

Troop = tuple[int, str]
Stacks = Sequence[tuple[Troop, ...]]


def draw_count(rack: int, reserve: int) -> int:
    """How many troops the *draw* action takes: 2, or 1 when only 1 is left or the rack holds
    7, or 0 (not allowed) when the reserve is empty or the rack is full.

    >>> draw_count(3, 10), draw_count(7, 10), draw_count(3, 1), draw_count(8, 10)
    (2, 1, 1, 0)
    """
    return max(0, min(2, reserve, RACK_MAX - rack))


def effect_draw_count(wanted: int, rack: int, reserve: int) -> int:
    """How many of ``wanted`` troops an effect can draw without a 9th on the rack."""
    return max(0, min(wanted, reserve, RACK_MAX - rack))


def anchors(board: Board, stacks: Stacks, seat: int) -> frozenset[int]:
    """The nodes a placement of ``seat`` may connect to: its HQs and every base topped by its
    troops that is linked to an HQ by a path of bases topped by its troops."""
    found = set(board.hqs(seat))
    frontier = list(found)
    nodes = board.node_by_id
    while frontier:
        node = frontier.pop()
        for neighbour in nodes[node].neighbours:
            if neighbour in found or not nodes[neighbour].is_base:
                continue
            stack = stacks[neighbour]
            if stack and stack[-1][0] == seat:
                found.add(neighbour)
                frontier.append(neighbour)
    return frozenset(found)


def free_copy(rack: Sequence[str], frozen: Sequence[int], troop: str) -> int | None:
    """The rack index of a copy of ``troop`` that is not frozen (None when there is none)."""
    for index, held in enumerate(rack):
        if held == troop and index not in frozen:
            return index
    return None


def stack_error(troop: str, seat: int, top: Troop | None) -> str | None:
    """Why ``troop`` of ``seat`` may not go on a stack topped by ``top`` (None if it may):
    empty bases and your own stacks take anything; an enemy stack takes a stronger troop,
    and Kwak covers and is covered by anything."""
    if top is None or top[0] == seat:
        return None
    if troop == "kwak" or top[1] == "kwak":
        return None
    mine = TROOP_BY_ID[troop].strength
    theirs = TROOP_BY_ID[top[1]].strength
    assert mine is not None and theirs is not None
    if mine > theirs:
        return None
    return (
        f"{TROOP_BY_ID[troop].name} ({mine}) is not stronger than the enemy "
        f"{TROOP_BY_ID[top[1]].name} ({theirs})"
    )


def placement_error(
    board: Board,
    stacks: Stacks,
    seat: int,
    troop: str,
    node_id: int,
    reach: frozenset[int],
) -> str | None:
    """Why ``seat`` may not place ``troop`` on node ``node_id`` (None when it may).

    ``reach`` is ``anchors(board, stacks, seat)``. The rack (holding the troop, freezing) is
    checked by the caller.
    """
    node = board.node_by_id.get(node_id)
    if node is None:
        return f"there is no base {node_id} on {board.name}"
    kind = TROOP_BY_ID[troop]
    if node.limit is not None and troop != "kwak" and kind.strength not in node.limit:
        allowed = "/".join(str(value) for value in node.limit)
        return f"only strengths {allowed} (and Kwak) may be placed on {node_id}"
    connected = any(neighbour in reach for neighbour in node.neighbours)
    if node.hq is not None:
        if node.hq == seat:
            return f"{node_id} is your own HQ: troops are never placed there"
        if not connected:
            return f"the enemy HQ {node_id} is not connected to your HQ by your troops"
        return None
    top = stacks[node_id][-1] if stacks[node_id] else None
    problem = stack_error(troop, seat, top)
    if problem is not None:
        return f"{problem} on base {node_id}"
    if connected:
        return None
    if troop == "hook" and node.limit is None and node.special != "metal":
        return None  # Hook's effect: it may ignore the connection rule
    if troop == "hook":
        return f"Hook's free placement is not allowed on the special base {node_id}"
    return f"base {node_id} is not connected to your HQ by a path of your troops"
