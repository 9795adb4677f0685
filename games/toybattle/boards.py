"""The eight Toy Battle boards as data, transcribed from the board facts (toybattle-boards.md).

Nodes 1 and 2 are blue's HQs, 41 and 42 red's; 11-25 are bases. Each board lists every node's
neighbours (the graph is undirected), its special bases and its regions with their medals.
A region's medals go to the first player who tops every base of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..base import JSON

__all__ = [
    "BLUE",
    "BOARDS",
    "BOARD_BY_ID",
    "RED",
    "SEAT_NAMES",
    "SPECIAL_KINDS",
    "Board",
    "Node",
    "Region",
]

BLUE = 0
RED = 1
SEAT_NAMES: tuple[str, str] = ("blue", "red")

#: special base kinds and what each does (the board facts' letters: C T K V G M F)
SPECIAL_KINDS: dict[str, str] = {
    "castle": "Castle Field: you may take one of your other visible troops back to your rack.",
    "pool": "Tropical Pool: only the marked strengths (and Kwak) may be placed here.",
    "clouds": "City of Clouds: you may draw 1 troop from your reserve.",
    "volcano": "Volcanic Jungle: you may move one adjacent enemy troop to a base next to it.",
    "cemetery": "Cursed Cemetery: you may take one of your discarded troops back to your rack.",
    "metal": "Station Metal-X: troop effects do not apply here.",
    "battlefield": "Battlefield: a random troop on the opponent's rack is frozen for their turn.",
}


@dataclass(frozen=True, slots=True)
class Node:
    """A base (ids 11-25) or an HQ (1, 2 blue; 41, 42 red)."""

    id: int
    neighbours: tuple[int, ...]
    hq: int | None = None
    special: str | None = None
    limit: tuple[int, ...] | None = None

    @property
    def is_base(self) -> bool:
        """True for a base; an HQ is not a base."""
        return self.hq is None

    def to_json(self) -> dict[str, JSON]:
        """The node record of ``rules_data()``."""
        return {
            "id": self.id,
            "neighbours": list(self.neighbours),
            "hq": None if self.hq is None else SEAT_NAMES[self.hq],
            "special": self.special,
            "limit": None if self.limit is None else list(self.limit),
        }


@dataclass(frozen=True, slots=True)
class Region:
    """Bases around a medal spot: whoever first tops all of them takes ``medals``."""

    bases: tuple[int, ...]
    medals: int

    def to_json(self) -> dict[str, JSON]:
        """The region record of ``rules_data()``."""
        return {"bases": list(self.bases), "medals": self.medals}


@dataclass(frozen=True)
class Board:
    """One battlefield: its graph, special bases, regions and the medals needed to win."""

    id: str
    name: str
    effect: str
    medals_to_win: int
    nodes: tuple[Node, ...]
    regions: tuple[Region, ...]
    node_by_id: Mapping[int, Node] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "node_by_id", {node.id: node for node in self.nodes})

    @property
    def medals_total(self) -> int:
        """All the medals on the board."""
        return sum(region.medals for region in self.regions)

    @property
    def special(self) -> str | None:
        """The board's special base kind (None for Caribbean Sea)."""
        kinds = sorted({node.special for node in self.nodes if node.special})
        return kinds[0] if kinds else None

    def hqs(self, seat: int) -> tuple[int, ...]:
        """The HQ node ids of ``seat``."""
        return tuple(node.id for node in self.nodes if node.hq == seat)

    @property
    def bases(self) -> tuple[int, ...]:
        """Every base id (HQs excluded), ascending."""
        return tuple(node.id for node in self.nodes if node.hq is None)

    def to_json(self) -> dict[str, JSON]:
        """The board record of ``rules_data()``."""
        return {
            "id": self.id,
            "name": self.name,
            "effect": self.effect,
            "medals_to_win": self.medals_to_win,
            "medals_total": self.medals_total,
            "special": self.special,
            "nodes": [node.to_json() for node in self.nodes],
            "regions": [region.to_json() for region in self.regions],
        }

    def summary(self) -> dict[str, JSON]:
        """A flat one-line record for tables."""
        return {
            "id": self.id,
            "name": self.name,
            "special": self.special,
            "effect": self.effect,
            "bases": len(self.bases),
            "hqs_blue": len(self.hqs(BLUE)),
            "hqs_red": len(self.hqs(RED)),
            "regions": len(self.regions),
            "medals_total": self.medals_total,
            "medals_to_win": self.medals_to_win,
        }


_LIMITS = {"T12": (1, 2), "T345": (3, 4, 5), "T4567": (4, 5, 6, 7), "T67": (6, 7)}


def _board(
    board_id: str,
    name: str,
    effect: str,
    medals_to_win: int,
    graph: Mapping[int, tuple[int, ...]],
    specials: Mapping[int, str],
    regions: tuple[tuple[tuple[int, ...], int], ...],
) -> Board:
    nodes = []
    for node_id, neighbours in graph.items():
        hq = BLUE if node_id < 10 else RED if node_id > 40 else None
        mark = specials.get(node_id)
        limit = _LIMITS.get(mark) if mark else None
        special = "pool" if limit else mark
        nodes.append(Node(node_id, neighbours, hq, special, limit))
    return Board(
        board_id,
        name,
        effect,
        medals_to_win,
        tuple(nodes),
        tuple(Region(bases, medals) for bases, medals in regions),
    )


C, K, V, G, M, F = "castle", "clouds", "volcano", "cemetery", "metal", "battlefield"

# The graphs stay in the board facts' compact layout, one line per few nodes, so they can be
# read against the source line by line.
# fmt: off
BOARDS: tuple[Board, ...] = (
    _board(
        "castle-field",
        "Castle Field",
        "You may choose 1 of your other troops, no matter where it is, "
        "and place it back on your rack.",
        7,
        {
            1: (11, 12), 11: (1, 13), 12: (1, 14), 13: (11, 15, 17, 18),
            14: (12, 16, 18, 19), 15: (13, 17), 16: (14, 19), 17: (13, 15, 20, 22),
            18: (13, 14, 22, 23), 19: (14, 16, 21, 23), 20: (17, 22), 21: (19, 23),
            22: (17, 18, 20, 24), 23: (18, 19, 21, 25), 24: (22, 41), 25: (23, 41),
            41: (24, 25),
        },
        {15: C, 16: C, 20: C, 21: C},
        (
            ((11, 12, 13, 14, 18), 3), ((13, 15, 17), 1), ((14, 16, 19), 1),
            ((13, 17, 18, 22), 2), ((14, 18, 19, 23), 2), ((17, 20, 22), 1),
            ((19, 21, 23), 1), ((18, 22, 23, 24, 25), 3),
        ),
    ),
    _board(
        "tropical-pool",
        "Tropical Pool",
        "Only troops with the indicated values can be placed on these special bases and HQ.",
        6,
        {
            1: (11,), 2: (13,), 11: (1, 12, 13), 12: (11, 13, 15), 13: (2, 11, 12, 14, 17),
            14: (13, 16, 17), 15: (12, 17, 18), 16: (14, 19), 17: (13, 14, 15, 19, 20, 21),
            18: (15, 20), 19: (16, 17, 22), 20: (17, 18, 21), 21: (17, 20, 22, 23, 41),
            22: (19, 21, 23), 23: (21, 22, 42), 41: (21,), 42: (23,),
        },
        {2: "T67", 12: "T12", 16: "T345", 17: "T67", 18: "T345", 22: "T12", 41: "T67"},
        (
            ((11, 12, 13), 1), ((12, 13, 15, 17), 2), ((13, 14, 17), 1),
            ((14, 16, 17, 19), 2), ((15, 17, 18, 20), 2), ((17, 20, 21), 1),
            ((17, 19, 21, 22), 2), ((21, 22, 23), 1),
        ),
    ),
    _board(
        "city-of-clouds",
        "City of Clouds",
        "You may draw 1 troop from your reserve and place it on your rack.",
        8,
        {
            1: (11, 12), 11: (1, 13, 14), 12: (1, 13, 15), 13: (11, 12, 14, 15),
            14: (11, 13, 16, 17), 15: (12, 13, 16, 18), 16: (14, 15, 17, 18),
            17: (14, 16, 19, 20), 18: (15, 16, 19, 21), 19: (17, 18, 20, 21),
            20: (17, 19, 22, 23), 21: (18, 19, 22, 24), 22: (20, 21, 23, 24),
            23: (20, 22, 41), 24: (21, 22, 41), 41: (23, 24),
        },
        {13: K, 16: K, 19: K, 22: K},
        (
            ((11, 12, 13), 1), ((11, 13, 14), 1), ((12, 13, 15), 1), ((13, 14, 15, 16), 2),
            ((14, 16, 17), 1), ((15, 16, 18), 1), ((16, 17, 18, 19), 2), ((17, 19, 20), 1),
            ((18, 19, 21), 1), ((19, 20, 21, 22), 2), ((20, 22, 23), 1), ((21, 22, 24), 1),
            ((22, 23, 24), 1),
        ),
    ),
    _board(
        "volcanic-jungle",
        "Volcanic Jungle",
        "You may choose 1 enemy troop that is adjacent to this special base. Move it to a base "
        "that is adjacent to its starting base, ignoring placement rules.",
        7,
        {
            1: (11, 13), 11: (1, 12, 13, 14), 12: (11, 15), 13: (1, 11, 16),
            14: (11, 15, 17), 15: (12, 14, 18), 16: (13, 17, 19), 17: (14, 16, 18, 20),
            18: (15, 17, 21), 19: (16, 20, 22), 20: (17, 19, 23), 21: (18, 23, 41),
            22: (19, 23), 23: (20, 21, 22, 41), 41: (21, 23),
        },
        {15: V, 19: V},
        (
            ((11, 13, 14, 16, 17), 3), ((11, 12, 14, 15), 2), ((14, 15, 17, 18), 2),
            ((16, 17, 19, 20), 2), ((17, 18, 20, 21, 23), 3), ((19, 20, 22, 23), 2),
        ),
    ),
    _board(
        "cursed-cemetery",
        "Cursed Cemetery",
        "You may choose 1 of your Troops in the discard and place it on your rack.",
        7,
        {
            1: (11, 13), 11: (1, 13, 14, 16), 12: (13, 15), 13: (1, 11, 12, 15),
            14: (11, 16), 15: (12, 13, 16, 17, 18), 16: (11, 14, 15, 18, 19), 17: (15, 20),
            18: (15, 16, 20, 21), 19: (16, 21), 20: (17, 18, 21, 22, 25),
            21: (18, 19, 20, 23, 24), 22: (20, 25), 23: (21, 24, 25, 41), 24: (21, 23),
            25: (20, 22, 23, 41), 41: (23, 25),
        },
        {12: G, 14: G, 22: G, 24: G},
        (
            ((11, 14, 16), 1), ((11, 13, 15, 16), 2), ((12, 13, 15), 1), ((15, 16, 18), 1),
            ((15, 17, 18, 20), 2), ((16, 18, 19, 21), 2), ((18, 20, 21), 1),
            ((20, 22, 25), 1), ((20, 21, 23, 25), 2), ((21, 23, 24), 1),
        ),
    ),
    _board(
        "caribbean-sea",
        "Caribbean Sea",
        "No special bases, but is asymmetric with 2 blue HQ and 1 red HQ.",
        5,
        {
            1: (11, 13), 2: (15,), 11: (1, 12, 14), 12: (11, 15, 17, 21), 13: (1, 14),
            14: (11, 13, 16), 15: (2, 12, 18), 16: (14, 17, 19), 17: (12, 16, 20),
            18: (15, 21), 19: (16, 20, 22), 20: (17, 19, 21, 41), 21: (12, 18, 20),
            22: (19, 41), 41: (20, 22),
        },
        {},
        (
            ((11, 13, 14), 1), ((11, 12, 14, 16, 17), 3), ((12, 15, 18, 21), 2),
            ((12, 17, 20, 21), 2), ((16, 17, 19, 20), 2), ((19, 20, 22), 1),
        ),
    ),
    _board(
        "station-metal-x",
        "Station Metal-X",
        "Troop effects are not applied on special bases.",
        7,
        {
            1: (11, 12), 11: (1, 14, 15), 12: (1, 13, 15), 13: (12, 15, 16),
            14: (11, 15, 18), 15: (11, 12, 13, 14, 16, 17, 18), 16: (13, 15, 17, 19, 20),
            17: (15, 16, 18, 19), 18: (14, 15, 17, 19, 21),
            19: (16, 17, 18, 20, 21, 22, 23), 20: (16, 19, 23), 21: (18, 19, 22),
            22: (19, 21, 41), 23: (19, 20, 41), 41: (22, 23),
        },
        {16: M, 17: M, 18: M},
        (
            ((11, 12, 15), 1), ((11, 14, 15), 1), ((12, 13, 15), 1), ((13, 15, 16), 1),
            ((14, 15, 18), 1), ((15, 16, 17), 1), ((15, 17, 18), 1), ((16, 17, 19), 1),
            ((17, 18, 19), 1), ((16, 19, 20), 1), ((18, 19, 21), 1), ((19, 20, 23), 1),
            ((19, 21, 22), 1), ((19, 22, 23), 1),
        ),
    ),
    _board(
        "battlefield",
        "Battlefield",
        'Select 1 of your opponent\'s Troops at random. It is "frozen" and cannot be placed '
        "until the next turn.",
        8,
        {
            1: (11, 12), 11: (1, 13), 12: (1, 15), 13: (11, 14, 16, 17),
            14: (13, 15, 17, 18), 15: (12, 14, 18, 19), 16: (13, 20), 17: (13, 14, 20, 21),
            18: (14, 15, 21, 22), 19: (15, 22), 20: (16, 17, 21, 23), 21: (17, 18, 20, 22),
            22: (18, 19, 21, 24), 23: (20, 41), 24: (22, 41), 41: (23, 24),
        },
        {14: F, 16: F, 19: F, 21: F},
        (
            ((11, 12, 13, 14, 15), 3), ((13, 14, 17), 1), ((14, 15, 18), 1),
            ((13, 16, 17, 20), 2), ((14, 17, 18, 21), 2), ((15, 18, 19, 22), 2),
            ((17, 20, 21), 1), ((18, 21, 22), 1), ((20, 21, 22, 23, 24), 3),
        ),
    ),
)
# fmt: on

BOARD_BY_ID: dict[str, Board] = {board.id: board for board in BOARDS}
