"""The starter Book of Magic of the Wyrdstone mage duel, as data: scrolls, runes, artifacts,
skills, tavern effects (from wyrdstone/2) and schools.

Seed 001 gives the structure of the duel but no card list, so this book is fairdeal's own
design (docs/rules/wyrdstone.md lists it whole). The engine (engine.py) only interprets the
records below: a larger book is only more records.

Every ability is a trigger and one effect. An effect is an operation on a set of targets:

- operations: ``damage``, ``heal``, ``poison`` (``amount`` a turn for ``turns`` turns),
  ``stun`` (miss the owner's next ``turns`` turns), ``buff`` (``amount`` attack for ``turns``
  turns; ``turns=0`` for good) and ``energy`` (``amount`` of ``element``, negative drains);
- targets (``who``): see ``TARGETS``;
- triggers: see ``TRIGGERS``.

>>> SCROLL_BY_ID["keeper-of-heights"].keywords
('first-strike',)
>>> SCROLL_BY_ID["elemental-guardian"].cost_text
'2 Fire, 2 Water, 2 Air, 2 Earth'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ARTIFACTS",
    "ARTIFACT_BY_ID",
    "ELEMENTS",
    "ELEMENT_NAMES",
    "NEUTRAL",
    "PATRONS",
    "RUNES",
    "RUNE_BY_ID",
    "SCHOOLS",
    "SCHOOL",
    "SCROLLS",
    "SCROLL_BY_ID",
    "SKILLS",
    "SKILL_BY_ID",
    "TARGETS",
    "TAVERN",
    "TAVERN_BY_ID",
    "TRIGGERS",
    "Ability",
    "Effect",
    "Equipment",
    "Scroll",
    "default_deck",
    "rules_records",
    "school_element",
    "tavern_records",
]

#: the five elements, in the order of every energy counter
ELEMENTS: tuple[str, ...] = ("fire", "water", "air", "earth", "death")
ELEMENT_NAMES: dict[str, str] = {element: element.capitalize() for element in ELEMENTS}
NEUTRAL = "neutral"
#: an effect's element that means "the element of the mage's school"
SCHOOL = "school"
#: the schools a mage may follow: one per element, and Neutral
SCHOOLS: tuple[str, ...] = (*ELEMENTS, NEUTRAL)
#: the Neutral school's patrons and the element each one gives the school
PATRONS: dict[str, str] = {"elemental": "earth", "lich": "death"}

#: who an effect touches
TARGETS: dict[str, str] = {
    "own-mage": "your mage",
    "enemy-mage": "the enemy mage",
    "self": "this creature",
    "opposite": "the creature opposite",
    "target": "the chosen creature",
    "own-creatures": "each of your creatures",
    "enemy-creatures": "each enemy creature",
    "all-creatures": "each creature on both sides",
    "random-enemy-creature": "a random enemy creature",
    "random-enemy": "a random enemy creature (the enemy mage if there is none)",
}
#: when an ability fires
TRIGGERS: dict[str, str] = {
    "cast": "when cast",
    "summon": "when summoned",
    "start": "at the start of your turn",
    "hit": "when it hits a creature",
    "death": "when it dies",
    "ally-death": "when another of your creatures dies",
    "any-death": "when any creature dies",
    "duel-start": "at the start of the duel",
}
_OPS = ("damage", "heal", "poison", "stun", "buff", "energy")


@dataclass(frozen=True, slots=True)
class Effect:
    """One operation on one set of targets (see the module docstring)."""

    op: str
    who: str
    amount: int = 0
    turns: int = 0
    element: str = ""

    def __post_init__(self) -> None:
        assert self.op in _OPS, self.op
        assert self.who in TARGETS, self.who
        assert self.op != "energy" or self.element in ELEMENTS or self.element == SCHOOL, self

    @property
    def text(self) -> str:
        """The effect in words, e.g. ``"poison the creature opposite 2 a turn for 3 turns"``."""
        who = TARGETS[self.who]
        if self.op == "damage":
            return f"{self.amount} damage to {who}"
        if self.op == "heal":
            return f"heal {who} {self.amount}"
        if self.op == "poison":
            return f"poison {who} {self.amount} a turn for {self.turns} turns"
        if self.op == "stun":
            return f"stun {who} for {self.turns} turn{'s' if self.turns > 1 else ''}"
        if self.op == "buff":
            sign = "+" if self.amount >= 0 else ""
            span = "for good" if self.turns == 0 else f"for {self.turns} turn(s)"
            return f"{sign}{self.amount} attack to {who} {span}"
        verb = "gains" if self.amount >= 0 else "loses"
        owner = "you gain" if self.who == "own-mage" else f"{who} {verb}"
        if self.who == "own-mage" and self.amount < 0:
            owner = "you lose"
        element = ELEMENT_NAMES.get(self.element, "of the school's element")
        return f"{owner} {abs(self.amount)} {element}"


@dataclass(frozen=True, slots=True)
class Ability:
    """An effect and the moment it fires."""

    trigger: str
    effect: Effect

    def __post_init__(self) -> None:
        assert self.trigger in TRIGGERS, self.trigger

    @property
    def text(self) -> str:
        """E.g. ``"when summoned: 2 damage to the enemy mage"``."""
        return f"{TRIGGERS[self.trigger]}: {self.effect.text}"


@dataclass(frozen=True, slots=True)
class Scroll:
    """A creature or a spell. ``cost`` is (element, amount) pairs: one for an element's scroll,
    several for a neutral one (every listed element must suffice).

    ``target`` says what a spell's chosen slot names: ``"enemy-creature"``, ``"own-creature"``
    or ``""`` (no choice). A creature always names the empty slot it is summoned into.
    ``wolf`` is the Werewolf's wolf form: (attack, extra health).
    """

    id: str
    name: str
    element: str
    kind: str
    cost: tuple[tuple[str, int], ...]
    abilities: tuple[Ability, ...] = ()
    attack: int = 0
    health: int = 0
    keywords: tuple[str, ...] = ()
    target: str = ""
    wolf: tuple[int, int] | None = None

    @property
    def cost_text(self) -> str:
        """E.g. ``"3 Fire"`` or ``"2 Fire, 2 Air, 2 Death"``."""
        return ", ".join(f"{amount} {ELEMENT_NAMES[element]}" for element, amount in self.cost)

    @property
    def text(self) -> str:
        """The scroll's rules text."""
        parts = []
        if "first-strike" in self.keywords:
            parts.append("strikes before all other creatures")
        if self.wolf is not None:
            parts.append(
                f"becomes a wolf ({self.wolf[0]} attack, +{self.wolf[1]} health) the moment its "
                "owner's Death exceeds 5"
            )
        if self.target:
            parts.append(f"choose {'an enemy' if self.target == 'enemy-creature' else 'your'} "
                         "creature")
        for ability in self.abilities:
            parts.append(ability.effect.text if ability.trigger == "cast" else ability.text)
        return "; ".join(parts)

    def to_json(self) -> dict[str, str | int]:
        """The flat record ``rules_data`` lists."""
        return {
            "id": self.id,
            "name": self.name,
            "element": self.element,
            "kind": self.kind,
            "cost": self.cost_text,
            "attack": self.attack,
            "health": self.health,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Equipment:
    """A rune (used once from the belt), an artifact, a skill (both fire by themselves) or a
    tavern effect (fires once, at the start of the duel)."""

    id: str
    name: str
    abilities: tuple[Ability, ...]

    @property
    def text(self) -> str:
        """The item's rules text; abilities in a row with one trigger share its words
        (``"at the start of the duel: you gain 1 Fire; you gain 1 Water"``)."""
        parts = []
        for index, ability in enumerate(self.abilities):
            shared = index > 0 and self.abilities[index - 1].trigger == ability.trigger
            plain = ability.trigger == "cast" or shared
            parts.append(ability.effect.text if plain else ability.text)
        return "; ".join(parts)

    def to_json(self) -> dict[str, str]:
        """The flat record ``rules_data`` lists."""
        return {"id": self.id, "name": self.name, "text": self.text}


def _on(trigger: str, op: str, who: str, amount: int = 0, turns: int = 0,
        element: str = "") -> Ability:
    return Ability(trigger, Effect(op, who, amount, turns, element))


def _creature(sid: str, name: str, element: str, cost: int | tuple[tuple[str, int], ...],
              attack: int, health: int, *abilities: Ability, keywords: tuple[str, ...] = (),
              wolf: tuple[int, int] | None = None) -> Scroll:
    price = ((element, cost),) if isinstance(cost, int) else cost
    return Scroll(sid, name, element, "creature", price, abilities, attack, health, keywords,
                  wolf=wolf)


def _spell(sid: str, name: str, element: str, cost: int | tuple[tuple[str, int], ...],
           *abilities: Ability, target: str = "") -> Scroll:
    price = ((element, cost),) if isinstance(cost, int) else cost
    return Scroll(sid, name, element, "spell", price, abilities, target=target)


SCROLLS: tuple[Scroll, ...] = (
    # Fire: damage, to creatures and straight at the enemy mage
    _creature("fire-imp", "Fire Imp", "fire", 2, 2, 6, _on("summon", "damage", "enemy-mage", 2)),
    _creature("salamander", "Salamander", "fire", 4, 3, 12, _on("start", "damage", "opposite", 2)),
    _creature("flame-archer", "Flame Archer", "fire", 5, 3, 10,
              _on("start", "damage", "random-enemy-creature", 2)),
    _creature("phoenix", "Phoenix", "fire", 7, 5, 16, _on("death", "damage", "enemy-mage", 6)),
    _creature("fire-drake", "Fire Drake", "fire", 9, 7, 24,
              _on("summon", "damage", "enemy-creatures", 3)),
    _spell("fireball", "Fireball", "fire", 4, _on("cast", "damage", "target", 9),
           target="enemy-creature"),
    _spell("flame-wave", "Flame Wave", "fire", 6, _on("cast", "damage", "enemy-creatures", 4)),
    _spell("meteor", "Meteor", "fire", 10, _on("cast", "damage", "enemy-mage", 8)),
    # Water: healing, stun
    _creature("river-sprite", "River Sprite", "water", 2, 1, 7,
              _on("start", "heal", "own-mage", 2)),
    _creature("merfolk-shaman", "Merfolk Shaman", "water", 4, 3, 12,
              _on("start", "heal", "own-creatures", 2)),
    _creature("ice-golem", "Ice Golem", "water", 5, 4, 18, _on("hit", "stun", "opposite", 0, 1)),
    _creature("sea-serpent", "Sea Serpent", "water", 8, 6, 22,
              _on("summon", "stun", "opposite", 0, 2)),
    _spell("frost-bolt", "Frost Bolt", "water", 3, _on("cast", "damage", "target", 5),
           _on("cast", "stun", "target", 0, 1), target="enemy-creature"),
    _spell("healing-rain", "Healing Rain", "water", 6, _on("cast", "heal", "own-mage", 8)),
    _spell("tidal-wave", "Tidal Wave", "water", 7, _on("cast", "damage", "enemy-creatures", 5)),
    _spell("mana-spring", "Mana Spring", "water", 2,
           *(_on("cast", "energy", "own-mage", 2, element=element)
             for element in ("fire", "air", "earth", "death"))),
    # Air: speed, lightning, buffs
    _creature("keeper-of-heights", "Keeper of Heights", "air", 5, 4, 14,
              keywords=("first-strike",)),
    _creature("storm-hawk", "Storm Hawk", "air", 3, 3, 7,
              _on("summon", "damage", "random-enemy-creature", 3)),
    _creature("thunderbird", "Thunderbird", "air", 6, 5, 14, _on("hit", "stun", "opposite", 0, 1)),
    _creature("wind-dancer", "Wind Dancer", "air", 4, 2, 10,
              _on("start", "buff", "own-creatures", 1, 1)),
    _spell("lightning", "Lightning", "air", 7, _on("cast", "damage", "enemy-mage", 6)),
    _spell("chain-lightning", "Chain Lightning", "air", 8,
           _on("cast", "damage", "enemy-creatures", 3), _on("cast", "damage", "enemy-mage", 3)),
    _spell("tailwind", "Tailwind", "air", 2, _on("cast", "buff", "own-creatures", 2, 1)),
    _spell("gust", "Gust", "air", 4, _on("cast", "stun", "target", 0, 2),
           target="enemy-creature"),
    # Earth: toughness, poison
    _creature("stone-golem", "Stone Golem", "earth", 4, 3, 20),
    _creature("dryad", "Dryad", "earth", 3, 1, 10, _on("start", "energy", "own-mage", 1,
                                                       element="earth")),
    _creature("venom-spider", "Venom Spider", "earth", 3, 2, 8,
              _on("hit", "poison", "opposite", 2, 3)),
    _creature("earth-titan", "Earth Titan", "earth", 9, 6, 30),
    _spell("stoneskin", "Stoneskin", "earth", 3, _on("cast", "heal", "target", 10),
           _on("cast", "buff", "target", 1, 0), target="own-creature"),
    _spell("rockfall", "Rockfall", "earth", 4, _on("cast", "damage", "target", 8),
           target="enemy-creature"),
    _spell("poison-cloud", "Poison Cloud", "earth", 5,
           _on("cast", "poison", "enemy-creatures", 2, 3)),
    _spell("earthquake", "Earthquake", "earth", 7, _on("cast", "damage", "all-creatures", 5)),
    # Death: death triggers, drain, the Werewolf
    _creature("werewolf", "Werewolf", "death", 4, 2, 12, wolf=(6, 8)),
    _creature("skeleton", "Skeleton", "death", 1, 2, 4, _on("death", "damage", "enemy-mage", 2)),
    _creature("ghoul", "Ghoul", "death", 4, 3, 12, _on("ally-death", "buff", "self", 1, 0)),
    _creature("banshee", "Banshee", "death", 5, 3, 10, _on("summon", "damage", "enemy-mage", 4),
              _on("death", "poison", "enemy-creatures", 1, 3)),
    _creature("vampire", "Vampire", "death", 6, 4, 16, _on("hit", "heal", "own-mage", 3)),
    _spell("drain-life", "Drain Life", "death", 8, _on("cast", "damage", "enemy-mage", 4),
           _on("cast", "heal", "own-mage", 4)),
    _spell("curse", "Curse", "death", 3, _on("cast", "poison", "target", 3, 3),
           target="enemy-creature"),
    _spell("bone-spear", "Bone Spear", "death", 5, _on("cast", "damage", "target", 12),
           target="enemy-creature"),
    _spell("doom", "Doom", "death", 7, _on("cast", "damage", "random-enemy", 5),
           _on("cast", "damage", "random-enemy", 5)),
    # Neutral: each costs several elements, every one of which must suffice
    _creature("elemental-guardian", "Elemental Guardian", NEUTRAL,
              (("fire", 2), ("water", 2), ("air", 2), ("earth", 2)), 5, 20),
    _creature("wandering-knight", "Wandering Knight", NEUTRAL, (("fire", 3), ("earth", 3)), 5, 14,
              _on("summon", "heal", "own-mage", 3)),
    _spell("chaos-orb", "Chaos Orb", NEUTRAL, (("fire", 4), ("air", 4), ("death", 4)),
           *(_on("cast", "damage", "random-enemy", 3) for _ in range(3))),
    _spell("restoration", "Restoration", NEUTRAL, (("water", 3), ("earth", 3)),
           _on("cast", "heal", "own-mage", 10), _on("cast", "heal", "own-creatures", 3)),
    _spell("frost-storm", "Frost Storm", NEUTRAL, (("water", 3), ("air", 3)),
           _on("cast", "stun", "enemy-creatures", 0, 1)),
    _spell("battle-cry", "Battle Cry", NEUTRAL, (("fire", 2), ("earth", 2), ("death", 2)),
           _on("cast", "buff", "own-creatures", 2, 0)),
)
SCROLL_BY_ID: dict[str, Scroll] = {scroll.id: scroll for scroll in SCROLLS}

RUNES: tuple[Equipment, ...] = (
    Equipment("rune-of-fire", "Rune of Fire", (_on("cast", "energy", "own-mage", 3,
                                                   element="fire"),)),
    Equipment("rune-of-the-grave", "Rune of the Grave",
              (_on("cast", "energy", "own-mage", 3, element="death"),)),
    Equipment("rune-of-healing", "Rune of Healing", (_on("cast", "heal", "own-mage", 6),)),
    Equipment("rune-of-storms", "Rune of Storms", (_on("cast", "damage", "random-enemy", 4),)),
    Equipment("rune-of-valour", "Rune of Valour", (_on("cast", "buff", "own-creatures", 2, 1),)),
)
ARTIFACTS: tuple[Equipment, ...] = (
    Equipment("staff-of-embers", "Staff of Embers",
              (_on("start", "damage", "random-enemy-creature", 1),)),
    Equipment("chalice-of-life", "Chalice of Life", (_on("start", "heal", "own-mage", 1),)),
    Equipment("crown-of-tides", "Crown of Tides",
              (_on("start", "energy", "own-mage", 1, element="water"),)),
    Equipment("bone-charm", "Bone Charm",
              (_on("any-death", "energy", "own-mage", 1, element="death"),)),
    Equipment("death-mask", "Death Mask",
              (_on("ally-death", "poison", "random-enemy-creature", 1, 2),)),
)
SKILLS: tuple[Equipment, ...] = (
    Equipment("meditation", "Meditation", (_on("start", "energy", "own-mage", 1,
                                               element=SCHOOL),)),
    Equipment("regeneration", "Regeneration", (_on("start", "heal", "own-mage", 1),)),
    Equipment("necromancy", "Necromancy",
              (_on("ally-death", "energy", "own-mage", 1, element="death"),)),
    Equipment("vengeance", "Vengeance", (_on("ally-death", "damage", "enemy-mage", 2),)),
)
#: tavern effects (wyrdstone/2): taken before the duel, each fires once at its start
TAVERN: tuple[Equipment, ...] = (
    Equipment("fire-whisky", "Fire Whisky", (_on("duel-start", "energy", "own-mage", 2,
                                                 element="fire"),)),
    Equipment("sailors-grog", "Sailor's Grog", (_on("duel-start", "energy", "own-mage", 2,
                                                    element="water"),)),
    Equipment("storm-mead", "Storm Mead", (_on("duel-start", "energy", "own-mage", 2,
                                               element="air"),)),
    Equipment("dwarven-ale", "Dwarven Ale", (_on("duel-start", "energy", "own-mage", 2,
                                                 element="earth"),)),
    Equipment("gravediggers-gin", "Gravedigger's Gin",
              (_on("duel-start", "energy", "own-mage", 2, element="death"),)),
    Equipment("hermits-tea", "Hermit's Tea",
              tuple(_on("duel-start", "energy", "own-mage", 1, element=element)
                    for element in ELEMENTS)),
    Equipment("bitter-draught", "Bitter Draught",
              tuple(_on("duel-start", "energy", "enemy-mage", -1, element=element)
                    for element in ELEMENTS)),
)
RUNE_BY_ID: dict[str, Equipment] = {rune.id: rune for rune in RUNES}
TAVERN_BY_ID: dict[str, Equipment] = {item.id: item for item in TAVERN}
ARTIFACT_BY_ID: dict[str, Equipment] = {item.id: item for item in ARTIFACTS}
SKILL_BY_ID: dict[str, Equipment] = {skill.id: skill for skill in SKILLS}


def school_element(school: str, patron: str | None) -> str:
    """The element a school's mage starts with 7 of: its own, or its patron's (Neutral)."""
    if school == NEUTRAL:
        return PATRONS[patron or "elemental"]
    return school


def default_deck(element: str) -> list[str]:
    """A legal 30-scroll deck: the first 8 scrolls of ``element``, the first 4 of every other
    element and the 6 neutral scrolls, in book order."""
    deck: list[str] = []
    for group in (*ELEMENTS, NEUTRAL):
        ids = [scroll.id for scroll in SCROLLS if scroll.element == group]
        take = 8 if group == element else 6 if group == NEUTRAL else 4
        deck.extend(ids[:take])
    return deck


def tavern_records() -> list[dict[str, str | int]]:
    """The tavern effects as flat JSON records (part of the rules data from wyrdstone/2)."""
    return [dict(item.to_json()) for item in TAVERN]


def rules_records() -> dict[str, list[dict[str, str | int]]]:
    """Every record of wyrdstone/1 as flat JSON: scrolls, runes, artifacts, skills, schools."""
    schools: list[dict[str, str | int]] = [
        {"id": school, "patron": "", "element": school, "start_energy": 7}
        for school in ELEMENTS
    ]
    schools += [
        {"id": NEUTRAL, "patron": patron, "element": element, "start_energy": 7}
        for patron, element in PATRONS.items()
    ]
    return {
        "scrolls": [scroll.to_json() for scroll in SCROLLS],
        "runes": [dict(rune.to_json()) for rune in RUNES],
        "artifacts": [dict(item.to_json()) for item in ARTIFACTS],
        "skills": [dict(skill.to_json()) for skill in SKILLS],
        "schools": schools,
    }
