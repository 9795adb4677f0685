"""The eight troop kinds of Toy Battle, as data (seed 003, the troop table).

Each colour has three of each kind, 24 troops in all. Strength is ``None`` for Kwak (the seed's
"X"): Kwak beats nothing by strength, but may cover any enemy troop and be covered by any.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base import JSON

__all__ = ["COPIES", "TROOPS", "TROOP_BY_ID", "TROOP_IDS", "TroopKind", "full_army", "strength"]

#: how many troops of each kind a colour owns
COPIES = 3


@dataclass(frozen=True, slots=True)
class TroopKind:
    """One kind of troop: its slug id, printed name, strength, and the seed's effect text."""

    id: str
    name: str
    strength: int | None
    effect: str
    note: str = ""

    def to_json(self) -> dict[str, JSON]:
        """The flat record ``rules_data()`` publishes for this kind."""
        return {
            "id": self.id,
            "name": self.name,
            "strength": self.strength,
            "effect": self.effect,
            "note": self.note,
        }


TROOPS: tuple[TroopKind, ...] = (
    TroopKind(
        "kwak",
        "Kwak",
        None,
        "Kwak has no effect, but may be placed on top of any enemy Troop. "
        "However, any enemy Troop may also cover it.",
    ),
    TroopKind(
        "skully",
        "Skully",
        1,
        "You may draw 2 Troops from your reserve.",
        "If you already have 7 Troops on your rack, you draw only one.",
    ),
    TroopKind(
        "capn",
        "Capn",
        2,
        "You may place 1 extra Troop following normal placement rules and apply its effect.",
        "Effects of Troops placed (including Capn) are triggered first, "
        "then any special base effects.",
    ),
    TroopKind(
        "jumbo",
        "Jumbo",
        3,
        "You may choose 1 visible enemy Troop (adjacent to Jumbo) and discard it face up.",
        "Troops are adjacent if connected by a single section of path.",
    ),
    TroopKind(
        "hook",
        "Hook",
        4,
        "You may ignore the connection rule and place Hook on any base whether or not it is "
        "connected to your H.Q.",
        "To place Hook on the enemy HQ (which is not a base), it must be connected to your HQ "
        "by your troops.",
    ),
    TroopKind(
        "xb42",
        "XB-42",
        5,
        "You may take, at random, 1 Troop from your opponent's rack and discard it face up.",
    ),
    TroopKind(
        "star",
        "Star",
        6,
        "You may draw 1 Troop from your reserve and place it on your rack.",
    ),
    TroopKind("roxy", "Roxy", 7, "No effect."),
)

TROOP_BY_ID: dict[str, TroopKind] = {kind.id: kind for kind in TROOPS}
TROOP_IDS: tuple[str, ...] = tuple(kind.id for kind in TROOPS)


def strength(troop: str) -> int | None:
    """The strength of troop kind ``troop`` (None for Kwak).

    >>> strength("hook"), strength("kwak")
    (4, None)
    """
    return TROOP_BY_ID[troop].strength


def full_army() -> list[str]:
    """One colour's 24 troops in the canonical order (table order, three of each) before the
    shuffle: the order the random stream's shuffle starts from, so it is part of the protocol."""
    return [kind.id for kind in TROOPS for _ in range(COPIES)]
