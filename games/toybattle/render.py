"""Toy Battle drawn as a standalone SVG string: a pure function, like python-chess's svg.board.

The boards' data is only a graph, so the layout is computed: each node's row is its distance
from blue's HQs (red's HQs on a last row of their own), and within a row nodes are ordered by
the mean position of their neighbours in the row before (ties by id). Blue is drawn at the
bottom, or red when drawing from red's perspective.
"""

from __future__ import annotations

from html import escape

from ..svgtext import SCALABLE, text_block, title
from .boards import SEAT_NAMES, Board, Node
from .state import State
from .troops import TROOP_BY_ID

__all__ = ["board_svg", "layout"]

WIDTH = 640
ROW_GAP = 78
TOP = 70
COLOURS = ("#2f6fdf", "#d8363a")
LIGHT = ("#dbe7fb", "#f8dcdc")
MARKS = {
    "castle": "C",
    "clouds": "K",
    "volcano": "V",
    "cemetery": "G",
    "metal": "M",
    "battlefield": "F",
}

_layouts: dict[str, dict[int, tuple[int, int]]] = {}


def layout(board: Board) -> dict[int, tuple[int, int]]:
    """Each node's (column position, row) on a ``WIDTH``-wide grid, deterministic per board."""
    cached = _layouts.get(board.id)
    if cached is not None:
        return cached
    nodes = board.node_by_id
    from_blue, from_red = _distances(board, 0), _distances(board, 1)
    # A base's row is how much nearer it is to blue's HQs than to red's, so the middle of the
    # board is drawn in the middle even with two HQs a side; each side's HQs share an outer row.
    balance = {base: from_blue[base] - from_red[base] for base in board.bases}
    steps = sorted(set(balance.values()))
    row = {base: steps.index(balance[base]) + 1 for base in board.bases}
    last = len(steps) + 1
    row.update({hq: 0 for hq in board.hqs(0)})
    row.update({hq: last for hq in board.hqs(1)})
    levels = [sorted(n for n in row if row[n] == level) for level in range(last + 1)]
    x = {node: (i + 1) / (len(members) + 1) for members in levels for i, node in enumerate(members)}
    # Barycentre sweeps (Sugiyama): order each row by the mean position of its neighbours in
    # the row just swept, down then up, a few times; ties keep the previous order.
    for sweep in range(8):
        order = range(1, last + 1) if sweep % 2 == 0 else range(last - 1, -1, -1)
        for level in order:
            side = level - 1 if sweep % 2 == 0 else level + 1
            members = levels[level]

            def centre(node: int, side: int = side) -> float:
                near = [x[n] for n in nodes[node].neighbours if row[n] == side]
                return sum(near) / len(near) if near else x[node]

            members.sort(key=lambda node: (centre(node), x[node], node))
            for index, node in enumerate(members):
                x[node] = (index + 1) / (len(members) + 1)
    placed = {node: (round(x[node] * WIDTH), row[node]) for node in row}
    _layouts[board.id] = placed
    return placed


def _distances(board: Board, seat: int) -> dict[int, int]:
    """Each node's distance in paths from the nearest HQ of ``seat``."""
    nodes = board.node_by_id
    distance = {hq: 0 for hq in board.hqs(seat)}
    frontier = list(distance)
    while frontier:
        following = []
        for node in frontier:
            for neighbour in nodes[node].neighbours:
                if neighbour not in distance:
                    distance[neighbour] = distance[node] + 1
                    following.append(neighbour)
        frontier = following
    return distance


def _troop_label(troop: str) -> str:
    strength = TROOP_BY_ID[troop].strength
    return "X" if strength is None else str(strength)


def troop_text(troop: str) -> str:
    """A troop's full text, as its ``<title>`` (what hovering shows)."""
    kind = TROOP_BY_ID[troop]
    strength = "" if kind.strength is None else f" ({kind.strength})"
    note = f" {kind.note}" if kind.note else ""
    return f"{kind.name}{strength}: {kind.effect}{note}"


def board_svg(state: State, seat: int | None = None, *, spectator: bool = False) -> str:
    """The state as SVG. ``seat`` 0/1 draws that seat's perspective (its own rack shown, the
    opponent's as a count); ``seat=None`` shows everything, unless ``spectator`` is set, in
    which case only public information is drawn."""
    board = state.board
    grid = layout(board)
    rows = max(r for _, r in grid.values())
    flip = seat != 1  # blue at the bottom unless drawn for red
    height = TOP + rows * ROW_GAP + 210

    def point(node: int) -> tuple[int, int]:
        column, level = grid[node]
        return column, TOP + 20 + ((rows - level) if flip else level) * ROW_GAP

    out: list[str] = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12" '
            f"{SCALABLE}>"
        ),
        f'<rect width="{WIDTH}" height="{height}" fill="#fbf8ef"/>',
        f'<text x="12" y="22" font-size="16" font-weight="bold">{escape(board.name)}</text>',
        f'<text x="12" y="42">{escape(_status(state))}</text>',
    ]
    for node in board.nodes:
        for neighbour in node.neighbours:
            if node.id < neighbour:
                (x1, y1), (x2, y2) = point(node.id), point(neighbour)
                out.append(
                    f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#9a8f7a" '
                    'stroke-width="3"/>'
                )
    for index, region in enumerate(board.regions):
        xs, ys = zip(*(point(base) for base in region.bases), strict=True)
        cx, cy = sum(xs) // len(xs), sum(ys) // len(ys)
        taker = state.regions[index]
        fill = "#e8c547" if taker is None else COLOURS[taker]
        owner = "not taken" if taker is None else f"taken by {SEAT_NAMES[taker]}"
        title = f"region {list(region.bases)}: {region.medals} medal(s), {owner}"
        out.append(
            f'<g class="region"><title>{escape(title)}</title>'
            f'<circle cx="{cx}" cy="{cy}" r="9" fill="{fill}" stroke="#6b5a1e"/>'
            f'<text x="{cx}" y="{cy + 4}" text-anchor="middle" font-size="10" fill="#222">'
            f"{region.medals}</text></g>"
        )
    for node in board.nodes:
        out.append(_node_svg(state, node.id, *point(node.id)))
    out.extend(_racks_svg(state, seat, spectator, TOP + rows * ROW_GAP + 70))
    out.append("</svg>")
    return "\n".join(out)


def _status(state: State) -> str:
    medals = (
        f"medals blue {state.medals[0]} - red {state.medals[1]} (win {state.board.medals_to_win})"
    )
    if state.outcome is not None:
        winner = (
            "draw" if state.outcome.winner is None else f"{SEAT_NAMES[state.outcome.winner]} wins"
        )
        return f"{winner} ({state.outcome.reason}) · {medals}"
    pending = f" · pending: {state.pending[0].effect}" if state.pending else ""
    return f"turn {state.turn}: {SEAT_NAMES[state.seat]} to act{pending} · {medals}"


def _node_svg(state: State, node_id: int, x: int, y: int) -> str:
    node = state.board.node_by_id[node_id]
    if node.hq is not None:
        return _hq_svg(state, node, x, y)
    return _base_svg(state, node, x, y)


def _hq_svg(state: State, node: Node, x: int, y: int) -> str:
    """A headquarters: its seat's colour, its limit, and the troop that took it, if one did."""
    assert node.hq is not None
    node_id = node.id
    colour = COLOURS[node.hq]
    limit = "" if node.limit is None else f" {'/'.join(map(str, node.limit))}"
    title = f"{SEAT_NAMES[node.hq]} HQ {node_id}{limit}"
    label = f"HQ{limit}"
    stroke = ""
    if state.captor is not None and state.captor[0] == node_id:
        _, owner, troop = state.captor
        title += f" · taken by {SEAT_NAMES[owner]}'s {TROOP_BY_ID[troop].name}"
        label = f"{TROOP_BY_ID[troop].name} {_troop_label(troop)}"
        stroke = f' stroke="{COLOURS[owner]}" stroke-width="5"'
    return (
        f'<g class="hq"><title>{escape(title)}</title>'
        f'<rect x="{x - 26}" y="{y - 16}" width="52" height="32" rx="4" '
        f'fill="{colour}"{stroke}/>'
        f'<text x="{x}" y="{y + 4}" text-anchor="middle" fill="#fff" font-weight="bold">'
        f"{escape(label)}</text></g>"
    )


def _base_svg(state: State, node: Node, x: int, y: int) -> str:
    """A base: the troop on top of its stack (how many under it), its number and special."""
    node_id = node.id
    stack = state.stacks[node_id]
    parts = [f"base {node_id}"]
    if node.special:
        parts.append(
            node.special + ("" if node.limit is None else " " + "/".join(map(str, node.limit)))
        )
    parts.append(
        "stack: "
        + (", ".join(f"{SEAT_NAMES[o]} {TROOP_BY_ID[t].name}" for o, t in stack) or "empty")
    )
    if stack:
        parts.append(f"on top: {troop_text(stack[-1][1])}")
    shape = [f'<g class="base"><title>{escape(" · ".join(parts))}</title>']
    special_ring = ' stroke="#222" stroke-dasharray="4 2"' if node.special else ' stroke="#666"'
    if stack:
        owner, troop = stack[-1]
        shape.append(
            f'<circle cx="{x}" cy="{y}" r="19" fill="{COLOURS[owner]}"{special_ring} '
            'stroke-width="2"/>'
            f'<text x="{x}" y="{y - 2}" text-anchor="middle" fill="#fff" font-size="10">'
            f"{escape(TROOP_BY_ID[troop].name)}</text>"
            f'<text x="{x}" y="{y + 11}" text-anchor="middle" fill="#fff" font-weight="bold">'
            f"{_troop_label(troop)}</text>"
        )
        if len(stack) > 1:
            shape.append(
                f'<text x="{x + 22}" y="{y + 18}" font-size="10" fill="#333">x{len(stack)}</text>'
            )
    else:
        shape.append(
            f'<circle cx="{x}" cy="{y}" r="19" fill="#fff"{special_ring} stroke-width="2"/>'
        )
    shape.append(f'<text x="{x - 22}" y="{y - 15}" font-size="9" fill="#555">{node_id}</text>')
    if node.special:
        mark = MARKS.get(node.special) or "/".join(map(str, node.limit or ()))
        shape.append(
            f'<text x="{x + 14}" y="{y - 15}" font-size="10" font-weight="bold" fill="#7a3b00">'
            f"{escape(mark)}</text>"
        )
    shape.append("</g>")
    return "".join(shape)


def _racks_svg(state: State, seat: int | None, spectator: bool, y: int) -> list[str]:
    out: list[str] = []
    for index, side in enumerate((0, 1)):
        line_y = y + index * 60
        colour = COLOURS[side]
        name = SEAT_NAMES[side]
        shown = not spectator and (seat is None or seat == side)
        counts = (
            f"{name}: reserve {len(state.reserves[side])} · discard "
            f"{', '.join(TROOP_BY_ID[t].name for t in state.discards[side]) or 'none'}"
        )
        if seat is None and not spectator:
            aside = ", ".join(TROOP_BY_ID[t].name for t in state.set_aside[side])
            counts += f" · set aside: {aside}"
        out.append(
            f'<text x="12" y="{line_y}" fill="{colour}" font-weight="bold">{escape(counts)}</text>'
        )
        if shown:
            for slot, troop in enumerate(state.racks[side]):
                frozen = slot in state.frozen[side]
                sx = 12 + slot * 74
                fill = "#c9e9f6" if frozen else LIGHT[side]
                label = (
                    TROOP_BY_ID[troop].name + f" {_troop_label(troop)}" + (" *" if frozen else "")
                )
                out.append(
                    f'<g class="troop">{title(troop_text(troop))}'
                    f'<rect x="{sx}" y="{line_y + 8}" width="70" height="26" rx="3" fill="{fill}" '
                    f'stroke="{colour}"/>'
                    + text_block(label, sx + 35, line_y + 9, 66, 24, sizes=(12, 11, 10, 9, 8),
                                 anchor="middle")
                    + "</g>"
                )
        else:
            hidden = f"rack: {len(state.racks[side])} troops (hidden)"
            if state.frozen[side]:
                hidden += f", {len(state.frozen[side])} frozen"
            out.append(f'<text x="12" y="{line_y + 25}">{escape(hidden)}</text>')
    return out
