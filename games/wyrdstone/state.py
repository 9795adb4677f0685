"""The state of a Wyrdstone duel, its actions, and their JSON forms.

Slots are numbered 1 to 5 from left to right on both sides; slot n of A faces slot n of B.
Everything in the state is public: the equipment is fixed in the match header before the
commitment (so both mages know it), and nothing is drawn from a hidden pile.

>>> Action.from_json({"kind": "cast", "scroll": "fireball", "slot": 3})
Action(kind='cast', scroll='fireball', slot=3, rune=None)
>>> Action.from_json({"kind": "skip"}).to_json()
{'kind': 'skip'}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..base import JSON, InvalidAction, Outcome
from .book import ARTIFACT_BY_ID, ELEMENTS, RUNE_BY_ID, SCROLL_BY_ID, SKILL_BY_ID, TAVERN_BY_ID
from .versions import RuleSet

__all__ = [
    "HEALTH",
    "SEAT_NAMES",
    "SLOTS",
    "Action",
    "Creature",
    "Loadout",
    "WyrdState",
    "state_from_json",
    "state_to_json",
    "view_json",
]

SEAT_NAMES: tuple[str, str] = ("A", "B")
HEALTH = 50
SLOTS = 5
_KINDS = ("cast", "rune", "skip")


@dataclass(frozen=True, slots=True)
class Action:
    """Use a rune from the belt (the turn goes on), cast a scroll, or skip (both end it).

    JSON: ``{"kind": "rune", "rune": "rune-of-fire"}``,
    ``{"kind": "cast", "scroll": "fire-imp", "slot": 2}`` (``slot`` is the empty slot a creature
    goes to, the creature a targeted spell names, or null for a spell without a target) and
    ``{"kind": "skip"}``.
    """

    kind: str
    scroll: str | None = None
    slot: int | None = None
    rune: str | None = None

    def to_json(self) -> dict[str, JSON]:
        """The JSON form a move event stores."""
        if self.kind == "cast":
            return {"kind": "cast", "scroll": self.scroll, "slot": self.slot}
        if self.kind == "rune":
            return {"kind": "rune", "rune": self.rune}
        return {"kind": "skip"}

    @classmethod
    def from_json(cls, data: JSON) -> Action:
        """Parse the JSON form; raise InvalidAction saying what is wrong (with the input)."""
        if not isinstance(data, Mapping):
            raise InvalidAction(f"an action is an object with a kind, got {data!r}")
        kind = data.get("kind")
        if kind not in _KINDS:
            raise InvalidAction(f"action kind must be 'cast', 'rune' or 'skip', got {data!r}")
        keys = {"cast": {"kind", "scroll", "slot"}, "rune": {"kind", "rune"}, "skip": {"kind"}}
        if set(data) != keys[kind]:
            wanted = ", ".join(sorted(keys[kind]))
            raise InvalidAction(f"a {kind} action has exactly the keys {wanted}, got {data!r}")
        if kind == "skip":
            return SKIP
        if kind == "rune":
            rune = data["rune"]
            if not isinstance(rune, str) or rune not in RUNE_BY_ID:
                raise InvalidAction(f"action rune must be a rune of the book, got {data!r}")
            return cls("rune", rune=rune)
        scroll, slot = data["scroll"], data["slot"]
        if not isinstance(scroll, str) or scroll not in SCROLL_BY_ID:
            raise InvalidAction(f"action scroll must be a scroll of the book, got {data!r}")
        if slot is not None and (
            not isinstance(slot, int) or isinstance(slot, bool) or not 1 <= slot <= SLOTS
        ):
            raise InvalidAction(f"action slot must be 1 to {SLOTS} or null, got {data!r}")
        return cls("cast", scroll=scroll, slot=slot)


SKIP = Action("skip")


@dataclass(slots=True, init=False)
class Creature:
    """A creature in a slot. Changed only inside the engine, on copies.

    ``attack`` includes buffs for good; ``buff`` / ``buff_turns`` is the temporary extra attack.
    ``stun`` is how many of its owner's turns it still misses; ``held`` is set while it misses
    the current one. ``summoned`` is the turn it came in (it does not attack on that turn).
    """

    scroll: str
    attack: int
    health: int
    max_health: int
    summoned: int
    poison: int = 0
    poison_turns: int = 0
    stun: int = 0
    held: bool = False
    buff: int = 0
    buff_turns: int = 0
    wolf: bool = False

    # written out rather than left to @dataclass (the same one it would write): the compiled
    # build compiles a method written here, while the one dataclasses generates runs
    # interpreted, and the engine copies creatures at every play
    def __init__(self, scroll: str, attack: int, health: int, max_health: int, summoned: int,
                 poison: int = 0, poison_turns: int = 0, stun: int = 0, held: bool = False,
                 buff: int = 0, buff_turns: int = 0, wolf: bool = False) -> None:
        self.scroll = scroll
        self.attack = attack
        self.health = health
        self.max_health = max_health
        self.summoned = summoned
        self.poison = poison
        self.poison_turns = poison_turns
        self.stun = stun
        self.held = held
        self.buff = buff
        self.buff_turns = buff_turns
        self.wolf = wolf

    def copy(self) -> Creature:
        return Creature(self.scroll, self.attack, self.health, self.max_health, self.summoned,
                        self.poison, self.poison_turns, self.stun, self.held, self.buff,
                        self.buff_turns, self.wolf)

    @property
    def name(self) -> str:
        name = SCROLL_BY_ID[self.scroll].name
        return f"{name} (wolf)" if self.wolf else name

    @property
    def strength(self) -> int:
        """The damage it deals when it attacks now."""
        return max(self.attack + self.buff, 0)

    @property
    def stunned(self) -> bool:
        return self.held or self.stun > 0

    def to_json(self) -> dict[str, JSON]:
        return {
            "scroll": self.scroll,
            "attack": self.attack,
            "health": self.health,
            "max_health": self.max_health,
            "summoned": self.summoned,
            "poison": self.poison,
            "poison_turns": self.poison_turns,
            "stun": self.stun,
            "held": self.held,
            "buff": self.buff,
            "buff_turns": self.buff_turns,
            "wolf": self.wolf,
        }

    @classmethod
    def from_json(cls, data: JSON) -> Creature:
        if data["scroll"] not in SCROLL_BY_ID or SCROLL_BY_ID[data["scroll"]].kind != "creature":
            raise ValueError(f"{data['scroll']!r} is no creature scroll")
        ints = ("attack", "health", "max_health", "summoned", "poison", "poison_turns", "stun",
                "buff", "buff_turns")
        for key in ints:
            if not isinstance(data[key], int) or isinstance(data[key], bool):
                raise ValueError(f"creature {key} must be an integer, got {data[key]!r}")
        if not isinstance(data["held"], bool) or not isinstance(data["wolf"], bool):
            raise ValueError(f"creature held and wolf are booleans, got {data!r}")
        return cls(data["scroll"], data["attack"], data["health"], data["max_health"],
                   data["summoned"], data["poison"], data["poison_turns"], data["stun"],
                   data["held"], data["buff"], data["buff_turns"], data["wolf"])


@dataclass(frozen=True, slots=True)
class Loadout:
    """One mage's equipment, fixed in the match header: school (and patron), the deck, the
    rune belt as brought to the duel, artifacts, skills and (from wyrdstone/2) tavern effects."""

    school: str
    patron: str | None
    element: str
    deck: tuple[str, ...]
    runes: tuple[str, ...]
    artifacts: tuple[str, ...]
    skills: tuple[str, ...]
    tavern: tuple[str, ...] = ()

    def to_json(self, rules: RuleSet) -> dict[str, JSON]:
        """The loadout's JSON; ``tavern`` only under the versions that have tavern effects
        (so a wyrdstone/1 state keeps its JSON)."""
        data: dict[str, JSON] = {
            "school": self.school,
            "patron": self.patron,
            "element": self.element,
            "deck": list(self.deck),
            "runes": list(self.runes),
            "artifacts": list(self.artifacts),
            "skills": list(self.skills),
        }
        if rules.tavern:
            data["tavern"] = list(self.tavern)
        return data


#: what happened last: (seat, kind, scroll or rune id or None, slot or None)
Last = tuple[int, str, str | None, int | None]


@dataclass(slots=True, init=False)
class WyrdState:
    """Everything about a duel at one moment. Treated as immutable: the rules build new ones.

    ``energy`` is seat A's five counters then seat B's (order: book.ELEMENTS); ``board`` is
    A's slots 1-5 then B's. ``turn`` counts both players' turns (turn 1 is the first player's
    first); ``seat`` is the mage whose turn it is. ``belts`` are the runes not used yet.
    ``rules`` is the rules version the duel is played under (not part of its JSON: the match
    header names it).
    """

    loadouts: tuple[Loadout, Loadout]
    training: bool
    turn: int
    seat: int
    health: tuple[int, int]
    energy: tuple[int, ...]
    board: tuple[Creature | None, ...]
    belts: tuple[tuple[str, ...], tuple[str, ...]]
    rune_used: bool
    last: Last | None
    last_cast: tuple[int, str, int | None] | None
    result: Outcome | None
    rules: RuleSet

    # written out rather than left to @dataclass, as Creature's is: every play builds a state
    def __init__(self, loadouts: tuple[Loadout, Loadout], training: bool, turn: int, seat: int,
                 health: tuple[int, int], energy: tuple[int, ...],
                 board: tuple[Creature | None, ...],
                 belts: tuple[tuple[str, ...], tuple[str, ...]], rune_used: bool,
                 last: Last | None, last_cast: tuple[int, str, int | None] | None,
                 result: Outcome | None, rules: RuleSet) -> None:
        self.loadouts = loadouts
        self.training = training
        self.turn = turn
        self.seat = seat
        self.health = health
        self.energy = energy
        self.board = board
        self.belts = belts
        self.rune_used = rune_used
        self.last = last
        self.last_cast = last_cast
        self.result = result
        self.rules = rules

    def creature(self, seat: int, slot: int) -> Creature | None:
        """The creature in ``slot`` (1-5) of ``seat``, or None."""
        return self.board[seat * SLOTS + slot - 1]

    def energy_of(self, seat: int) -> dict[str, int]:
        """``seat``'s five energy counters by element."""
        return dict(zip(ELEMENTS, self.energy[5 * seat : 5 * seat + 5], strict=True))


def state_to_json(state: WyrdState) -> dict[str, JSON]:
    """The whole state. Nothing in it is secret (see the module docstring)."""
    last = state.last
    cast = state.last_cast
    return {
        "turn": state.turn,
        "seat": state.seat,
        "training": state.training,
        "rune_used": state.rune_used,
        "mages": [
            {
                "health": state.health[seat],
                "energy": state.energy_of(seat),
                "belt": list(state.belts[seat]),
                "loadout": state.loadouts[seat].to_json(state.rules),
                "slots": [
                    None if creature is None else creature.to_json()
                    for creature in state.board[SLOTS * seat : SLOTS * seat + SLOTS]
                ],
            }
            for seat in (0, 1)
        ],
        "last": None if last is None else {
            "seat": last[0], "kind": last[1], "id": last[2], "slot": last[3]
        },
        "last_cast": None if cast is None else {"seat": cast[0], "scroll": cast[1],
                                                "slot": cast[2]},
        "result": None if state.result is None else {**state.result.to_json(),
                                                       "detail": state.result.detail},
    }


def view_json(state: WyrdState, seat: int | None) -> dict[str, JSON]:
    """What ``seat`` (or a spectator, None) may see: everything, since nothing is hidden."""
    return state_to_json(state)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{where} must be true or false, got {value!r}")
    return value


def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{where} must be an integer, got {value!r}")
    return value


def _check_loadout(loadout: Loadout) -> None:
    known = ((loadout.deck, SCROLL_BY_ID, "deck"), (loadout.runes, RUNE_BY_ID, "runes"),
             (loadout.artifacts, ARTIFACT_BY_ID, "artifacts"),
             (loadout.skills, SKILL_BY_ID, "skills"), (loadout.tavern, TAVERN_BY_ID, "tavern"))
    for ids, catalogue, where in known:
        unknown = [item for item in ids if item not in catalogue]
        if unknown:
            raise ValueError(f"loadout {where} names nothing in the book: {unknown!r}")
    if loadout.element not in ELEMENTS:
        raise ValueError(f"loadout element must be one of {ELEMENTS!r}, got {loadout.element!r}")


def state_from_json(data: JSON, rules: RuleSet) -> WyrdState:
    """The state ``state_to_json`` wrote under ``rules``; raise ValueError naming what is
    wrong."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a state is an object, got {data!r}")  # noqa: TRY004 (one error type)
    try:
        mages = data["mages"]
        if not isinstance(mages, list) or len(mages) != 2:
            raise ValueError(f"mages must be a list of two, got {mages!r}")
        loadouts = []
        for mage in mages:
            raw = mage["loadout"]
            tavern = tuple(raw["tavern"]) if rules.tavern else ()
            loadout = Loadout(raw["school"], raw["patron"], raw["element"], tuple(raw["deck"]),
                              tuple(raw["runes"]), tuple(raw["artifacts"]),
                              tuple(raw["skills"]), tavern)
            _check_loadout(loadout)
            loadouts.append(loadout)
        board: list[Creature | None] = []
        for mage in mages:
            if len(mage["slots"]) != SLOTS:
                raise ValueError(f"each mage has {SLOTS} slots, got {mage['slots']!r}")
            board += [None if c is None else Creature.from_json(c) for c in mage["slots"]]
        energy = [_int(mage["energy"][element], "energy") for mage in mages
                  for element in ELEMENTS]
        belts = [tuple(mage["belt"]) for mage in mages]
        if any(rune not in RUNE_BY_ID for belt in belts for rune in belt):
            raise ValueError(f"a belt holds no rune of the book: {belts!r}")
        last, cast = data["last"], data["last_cast"]
        seat = _int(data["seat"], "seat")
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        return WyrdState(
            loadouts=(loadouts[0], loadouts[1]),
            training=_bool(data["training"], "training"),
            turn=_int(data["turn"], "turn"),
            seat=seat,
            health=(_int(mages[0]["health"], "health"), _int(mages[1]["health"], "health")),
            energy=tuple(energy),
            board=tuple(board),
            belts=(belts[0], belts[1]),
            rune_used=_bool(data["rune_used"], "rune_used"),
            last=None if last is None else (last["seat"], last["kind"], last["id"],
                                            last["slot"]),
            last_cast=None if cast is None else (cast["seat"], cast["scroll"], cast["slot"]),
            result=None if data["result"] is None else Outcome(
                **Outcome.from_json(data["result"]).to_json(),
                detail=str(data["result"].get("detail", ""))),
            rules=rules,
        )
    except (KeyError, TypeError, IndexError) as e:
        raise ValueError(f"malformed wyrdstone state: {e!r}") from None
