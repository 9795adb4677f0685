"""Card effects as data, and their compilation into fast functions.

A card's effect is a tuple of *steps* (small frozen dataclasses) applied in the order the card
states them. Each step names whose numbers it touches from the point of view of the player who
plays the card: ``"self"``, ``"enemy"`` or ``"all"`` (both players).

The engine keeps both players' numbers in one flat list of 16 ints: player ``p`` owns indices
``8 * p`` to ``8 * p + 7`` in the order of :data:`STATS`. :func:`compile_steps` turns a card's
steps into one function ``run(stats, me, enemy)`` where ``me`` and ``enemy`` are those offsets
(0 or 8), so playing a card costs a few list operations and no interpretation.

>>> stats = [20, 5, 2, 2, 2, 5, 5, 5] * 2
>>> run = compile_steps((Damage("enemy", 8),))
>>> run(stats, 0, 8)
>>> stats[8:10]
[17, 0]
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

__all__ = [
    "BARRACKS",
    "MANA",
    "MINES",
    "MONASTERIES",
    "ORE",
    "STATS",
    "TOWER",
    "TROOPS",
    "WALL",
    "Compare",
    "Damage",
    "Gain",
    "GroundWater",
    "If",
    "MatchEnemy",
    "Parity",
    "Run",
    "Steal",
    "Step",
    "SwapWalls",
    "compile_steps",
]

#: the eight numbers each player has, in their order inside a player's block of the stats list
STATS: tuple[str, ...] = (
    "tower",
    "wall",
    "mines",
    "monasteries",
    "barracks",
    "ore",
    "mana",
    "troops",
)
# Final, so the compiled build writes the numbers into the rules rather than looking each one up
# among the module's globals every time a turn's production or a victory test reads it
TOWER: Final = 0
WALL: Final = 1
MINES: Final = 2
MONASTERIES: Final = 3
BARRACKS: Final = 4
ORE: Final = 5
MANA: Final = 6
TROOPS: Final = 7

Target: TypeAlias = Literal["self", "enemy", "all"]
Side: TypeAlias = Literal["self", "enemy"]
#: what a card effect does to the flat stats list, given the player's and the enemy's offsets
Run: TypeAlias = Callable[[list[int], int, int], None]


@dataclass(frozen=True, slots=True)
class Gain:
    """``amount`` more (or, when negative, less) of one number: "+3 wall", "you lose 6 mana"."""

    target: Target
    stat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Damage:
    """``amount`` damage. ``mode`` "normal" hits the wall first and the rest the tower, "tower"
    skips the wall ("damage to a tower"), "wall" stops at the wall ("all walls take 5 damage")."""

    target: Target
    amount: int
    mode: Literal["normal", "tower", "wall"] = "normal"


@dataclass(frozen=True, slots=True)
class Compare:
    """A condition: one of the player's numbers against the enemy's number or a constant.

    ``Compare("self", WALL, ">", "enemy", WALL)`` reads "your wall is higher than the enemy's";
    ``Compare("enemy", WALL, ">", None, 10)`` reads "the enemy wall is higher than 10".
    """

    side: Side
    stat: int
    op: Literal["<", ">", "=="]
    other_side: Side | None
    other: int


@dataclass(frozen=True, slots=True)
class If:
    """The steps of ``then`` when ``condition`` holds at this point of the card, else those of
    ``otherwise``."""

    condition: Compare
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchEnemy:
    """The player's ``stat`` becomes the enemy's (Copping the Tech, inside an ``If``)."""

    stat: int


@dataclass(frozen=True, slots=True)
class Parity:
    """Both players' ``stat`` becomes the higher of the two."""

    stat: int


@dataclass(frozen=True, slots=True)
class SwapWalls:
    """The two walls change places."""


@dataclass(frozen=True, slots=True)
class Steal:
    """The enemy loses up to ``amount`` of ``stat``; the player gains half of what was really
    taken, rounded up."""

    stat: int
    amount: int


@dataclass(frozen=True, slots=True)
class GroundWater:
    """The player with the lower wall loses ``barracks`` barracks and ``tower`` tower; with equal
    walls, both do."""

    barracks: int
    tower: int


Step: TypeAlias = Gain | Damage | If | MatchEnemy | Parity | SwapWalls | Steal | GroundWater


# --- compilation ---------------------------------------------------------------------------

_OPERATORS: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt,
    ">": operator.gt,
    "==": operator.eq,
}


def _gain(stat: int, amount: int, sides: tuple[bool, ...]) -> Run:
    # sides: (apply to me, apply to enemy)
    to_me, to_enemy = sides

    def run(stats: list[int], me: int, enemy: int) -> None:
        if to_me:
            stats[me + stat] = max(0, stats[me + stat] + amount)
        if to_enemy:
            stats[enemy + stat] = max(0, stats[enemy + stat] + amount)

    return run


def _hit(stats: list[int], offset: int, amount: int) -> None:
    """Normal damage to the player at ``offset``: the wall first, the rest to the tower."""
    wall = stats[offset + WALL]
    if amount <= wall:
        stats[offset + WALL] = wall - amount
        return
    stats[offset + WALL] = 0
    stats[offset + TOWER] = max(0, stats[offset + TOWER] - (amount - wall))


def _damage(amount: int, mode: str, sides: tuple[bool, ...]) -> Run:
    if mode != "normal":  # straight to the tower, or only the wall: a plain loss
        return _gain(WALL if mode == "wall" else TOWER, -amount, sides)
    to_me, to_enemy = sides

    def run(stats: list[int], me: int, enemy: int) -> None:
        if to_me:
            _hit(stats, me, amount)
        if to_enemy:
            _hit(stats, enemy, amount)

    return run


def _condition(compare: Compare) -> Callable[[list[int], int, int], bool]:
    test = _OPERATORS[compare.op]
    left, left_enemy = compare.stat, compare.side == "enemy"
    right, right_side = compare.other, compare.other_side

    if right_side is None:

        def against_constant(stats: list[int], me: int, enemy: int) -> bool:
            return test(stats[(enemy if left_enemy else me) + left], right)

        return against_constant
    right_enemy = right_side == "enemy"

    def against_stat(stats: list[int], me: int, enemy: int) -> bool:
        return test(
            stats[(enemy if left_enemy else me) + left],
            stats[(enemy if right_enemy else me) + right],
        )

    return against_stat


def _compile_step(step: Step) -> Run:
    if isinstance(step, Gain | Damage):
        sides = (step.target != "enemy", step.target != "self")
        if isinstance(step, Gain):
            return _gain(step.stat, step.amount, sides)
        return _damage(step.amount, step.mode, sides)
    if isinstance(step, If):
        test = _condition(step.condition)
        then = compile_steps(step.then)
        otherwise = compile_steps(step.otherwise)

        def run_if(stats: list[int], me: int, enemy: int) -> None:
            if test(stats, me, enemy):
                then(stats, me, enemy)
            else:
                otherwise(stats, me, enemy)

        return run_if
    if isinstance(step, MatchEnemy):
        matched = step.stat

        def run_match(stats: list[int], me: int, enemy: int) -> None:
            stats[me + matched] = stats[enemy + matched]

        return run_match
    if isinstance(step, Parity):
        levelled = step.stat

        def run_parity(stats: list[int], me: int, enemy: int) -> None:
            high = max(stats[me + levelled], stats[enemy + levelled])
            stats[me + levelled] = stats[enemy + levelled] = high

        return run_parity
    if isinstance(step, SwapWalls):

        def run_swap(stats: list[int], me: int, enemy: int) -> None:
            stats[me + WALL], stats[enemy + WALL] = stats[enemy + WALL], stats[me + WALL]

        return run_swap
    if isinstance(step, Steal):
        stolen, most = step.stat, step.amount

        def run_steal(stats: list[int], me: int, enemy: int) -> None:
            taken = min(most, stats[enemy + stolen])
            stats[enemy + stolen] -= taken
            stats[me + stolen] += (taken + 1) // 2

        return run_steal
    return _ground_water(step.barracks, step.tower)


def _ground_water(barracks: int, tower: int) -> Run:
    def lose(stats: list[int], offset: int) -> None:
        stats[offset + BARRACKS] = max(0, stats[offset + BARRACKS] - barracks)
        stats[offset + TOWER] = max(0, stats[offset + TOWER] - tower)

    def run(stats: list[int], me: int, enemy: int) -> None:
        mine, theirs = stats[me + WALL], stats[enemy + WALL]
        if mine <= theirs:
            lose(stats, me)
        if theirs <= mine:
            lose(stats, enemy)

    return run


def _nothing(stats: list[int], me: int, enemy: int) -> None:
    return None


def compile_steps(steps: tuple[Step, ...]) -> Run:
    """One function that applies ``steps`` in order to a stats list (see the module doc)."""
    runs = tuple(_compile_step(step) for step in steps)
    if not runs:
        return _nothing
    if len(runs) == 1:
        return runs[0]

    def run(stats: list[int], me: int, enemy: int) -> None:
        for part in runs:
            part(stats, me, enemy)

    return run
