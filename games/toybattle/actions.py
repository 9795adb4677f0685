"""Toy Battle actions: small frozen values with a JSON form.

A turn begins with ``draw`` or ``place``. A placement may leave optional effects pending
(a troop's effect, then the special bases' effects); the same seat then answers each one in
turn, with the effect's own action or ``skip``:

>>> parse_action({"kind": "place", "troop": "hook", "base": 17})
Place(troop='hook', base=17)
>>> parse_action({"kind": "jumbo", "target": 18}).to_json()
{'kind': 'jumbo', 'target': 18}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..base import JSON, InvalidAction
from .troops import TROOP_BY_ID

__all__ = [
    "Action",
    "Castle",
    "Cemetery",
    "Clouds",
    "Draw",
    "Jumbo",
    "Place",
    "Skip",
    "Skully",
    "Star",
    "Volcano",
    "Xb42",
    "parse_action",
]


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw 2 troops from the reserve (1 when only 1 is left or the rack holds 7)."""

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "draw"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "draw"}``"""
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Place:
    """Place ``troop`` from the rack on ``base`` (a base id, or the enemy HQ's id). Also the
    answer to a pending Capn: its extra placement."""

    troop: str
    base: int

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "place"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "place", "troop": ..., "base": ...}``"""
        return {"kind": self.kind, "troop": self.troop, "base": self.base}


@dataclass(frozen=True, slots=True)
class Skip:
    """Decline the pending optional effect."""

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "skip"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "skip"}``"""
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Skully:
    """Use Skully's effect: draw 2 (1 when the rack holds 7 or the reserve has 1)."""

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "skully"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "skully"}``"""
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Star:
    """Use Star's effect: draw 1."""

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "star"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "star"}``"""
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Xb42:
    """Use XB-42's effect: a random troop from the opponent's rack is discarded face up."""

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "xb42"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "xb42"}``"""
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Clouds:
    """Use a City of Clouds base: draw 1."""

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "clouds"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "clouds"}``"""
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Jumbo:
    """Use Jumbo's effect: discard the visible enemy troop on base ``target``."""

    target: int

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "jumbo"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "jumbo", "target": base}``"""
        return {"kind": self.kind, "target": self.target}


@dataclass(frozen=True, slots=True)
class Castle:
    """Use a Castle Field base: take your visible troop on base ``target`` back to your rack."""

    target: int

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "castle"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "castle", "target": base}``"""
        return {"kind": self.kind, "target": self.target}


@dataclass(frozen=True, slots=True)
class Volcano:
    """Use a Volcanic Jungle base: move the enemy troop on ``target`` to base ``to``."""

    target: int
    to: int

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "volcano"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "volcano", "target": base, "to": base}``"""
        return {"kind": self.kind, "target": self.target, "to": self.to}


@dataclass(frozen=True, slots=True)
class Cemetery:
    """Use a Cursed Cemetery base: take one of your discarded ``troop`` back to your rack."""

    troop: str

    @property
    def kind(self) -> str:
        """The action's kind, as its JSON form names it."""
        return "cemetery"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind": "cemetery", "troop": kind}``"""
        return {"kind": self.kind, "troop": self.troop}


Action = Draw | Place | Skip | Skully | Star | Xb42 | Clouds | Jumbo | Castle | Volcano | Cemetery

#: each action kind and the fields its JSON form carries besides "kind"
_FIELDS: dict[str, tuple[str, ...]] = {
    "draw": (),
    "place": ("troop", "base"),
    "skip": (),
    "skully": (),
    "star": (),
    "xb42": (),
    "clouds": (),
    "jumbo": ("target",),
    "castle": ("target",),
    "volcano": ("target", "to"),
    "cemetery": ("troop",),
}


def _int_field(data: Mapping[str, JSON], key: str) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidAction(f"action field {key!r} must be an integer node id, got {value!r}")
    return value


def _troop_field(data: Mapping[str, JSON], key: str) -> str:
    value = data[key]
    if not isinstance(value, str) or value not in TROOP_BY_ID:
        known = ", ".join(TROOP_BY_ID)
        raise InvalidAction(f"action field {key!r} must be a troop id ({known}), got {value!r}")
    return value


def parse_action(data: JSON) -> Action:
    """The action whose JSON form is ``data``; raise InvalidAction naming what is wrong."""
    if not isinstance(data, Mapping):
        raise InvalidAction(f"an action is a JSON object, got {data!r}")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _FIELDS:
        known = ", ".join(_FIELDS)
        raise InvalidAction(f"unknown action kind {kind!r} in {data!r} (known: {known})")
    expected = {"kind", *_FIELDS[kind]}
    missing = sorted(expected - set(data))
    extra = sorted(str(key) for key in set(data) - expected)
    if missing:
        raise InvalidAction(f"{kind!r} action is missing {missing!r}: {data!r}")
    if extra:
        raise InvalidAction(f"{kind!r} action has unknown fields {extra!r}: {data!r}")
    match kind:
        case "draw":
            return Draw()
        case "place":
            return Place(_troop_field(data, "troop"), _int_field(data, "base"))
        case "skip":
            return Skip()
        case "skully":
            return Skully()
        case "star":
            return Star()
        case "xb42":
            return Xb42()
        case "clouds":
            return Clouds()
        case "jumbo":
            return Jumbo(_int_field(data, "target"))
        case "castle":
            return Castle(_int_field(data, "target"))
        case "volcano":
            return Volcano(_int_field(data, "target"), _int_field(data, "to"))
        case _:
            return Cemetery(_troop_field(data, "troop"))
