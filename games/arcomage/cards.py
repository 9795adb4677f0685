"""The 102 cards and the 8 battlefields of the two-tower duel, exactly as seeds 000 and 004
give them.

Card ids are 1..102 in the seeds' order: red (ore) 1-34, blue (mana) 35-68, green (troops)
69-102. The English name is the classic Arcomage name where the card is clearly a classic card
(same colour, cost and effect, or a renamed classic slot); the seeds' own names are kept as
``name_lt`` (seed 000) and ``name_sk`` (seed 004). Where a seed's numbers differ from classic
Arcomage, the seed wins: docs/rules/arcomage.md lists those cards.

>>> CARD_BY_ID[60].name, CARD_BY_ID[60].cost, CARD_BY_ID[60].resource
('Lightning Shard', 11, 'mana')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .effects import (
    BARRACKS,
    MANA,
    MINES,
    MONASTERIES,
    ORE,
    STATS,
    TOWER,
    TROOPS,
    WALL,
    Compare,
    Damage,
    Gain,
    GroundWater,
    If,
    MatchEnemy,
    Parity,
    Run,
    Steal,
    Step,
    SwapWalls,
    compile_steps,
)

__all__ = [
    "BATTLEFIELDS",
    "BATTLEFIELD_BY_ID",
    "CARDS",
    "CARD_BY_ID",
    "COLOUR_RESOURCE",
    "Battlefield",
    "Card",
]

#: what each colour costs
COLOUR_RESOURCE: dict[str, str] = {"red": "ore", "blue": "mana", "green": "troops"}


@dataclass(frozen=True, slots=True)
class Card:
    """One card: its names, cost, printed effect and the effect as steps (see effects.py).

    ``play_again`` is set for every card whose text ends in "Play again", Prism and Elven Scout
    included; ``draw_discard`` only for those two ("Draw a card, discard a card").
    """

    id: int
    name: str
    name_lt: str
    name_sk: str
    colour: str
    cost: int
    effect: str
    steps: tuple[Step, ...]
    play_again: bool = False
    draw_discard: bool = False
    run: Run = field(init=False, repr=False, compare=False)
    resource: str = field(init=False)
    #: index of the resource in a player's block of the stats list (ORE, MANA or TROOPS)
    resource_index: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        resource = COLOUR_RESOURCE[self.colour]
        object.__setattr__(self, "resource", resource)
        object.__setattr__(self, "resource_index", STATS.index(resource))
        object.__setattr__(self, "run", compile_steps(self.steps))

    @property
    def seed_names(self) -> dict[str, str]:
        """The seeds' names: ``{"lt": ..., "sk": ...}``."""
        return {"lt": self.name_lt, "sk": self.name_sk}

    def to_json(self) -> dict[str, str | int | bool]:
        """The flat record ``rules_data`` lists (strings, ints and bools only)."""
        return {
            "id": self.id,
            "name": self.name,
            "name_lt": self.name_lt,
            "name_sk": self.name_sk,
            "colour": self.colour,
            "cost": self.cost,
            "resource": self.resource,
            "effect": self.effect,
            "play_again": self.play_again,
        }


@dataclass(frozen=True, slots=True)
class Battlefield:
    """Where a match is played: the start values and the two victory thresholds."""

    id: str
    name: str
    name_lt: str
    name_sk: str
    tower: int
    wall: int
    mines: int
    monasteries: int
    barracks: int
    victory_tower: int
    victory_resource: int

    @property
    def seed_names(self) -> dict[str, str]:
        """The seeds' names: ``{"lt": ..., "sk": ...}``."""
        return {"lt": self.name_lt, "sk": self.name_sk}

    def to_json(self) -> dict[str, str | int]:
        """The flat record ``rules_data`` lists."""
        return {
            "id": self.id,
            "name": self.name,
            "name_lt": self.name_lt,
            "name_sk": self.name_sk,
            "tower": self.tower,
            "wall": self.wall,
            "mines": self.mines,
            "monasteries": self.monasteries,
            "barracks": self.barracks,
            "victory_tower": self.victory_tower,
            "victory_resource": self.victory_resource,
        }


# --- how the effects read --------------------------------------------------------------------


def _you(stat: int, amount: int) -> Gain:
    return Gain("self", stat, amount)


def _enemy(stat: int, amount: int) -> Gain:
    return Gain("enemy", stat, amount)


def _all(stat: int, amount: int) -> Gain:
    return Gain("all", stat, amount)


def _hit(amount: int) -> Damage:
    """ "N damage" (to the enemy): the wall first, the rest to the tower."""
    return Damage("enemy", amount)


def _hit_tower(amount: int) -> Damage:
    """ "N damage to the enemy tower": through the wall."""
    return Damage("enemy", amount, "tower")


def _fewer(stat: int) -> Compare:
    """ "you have fewer <stat> than the enemy"."""
    return Compare("self", stat, "<", "enemy", stat)


def _red(
    id_: int, name: str, lt: str, sk: str, cost: int, effect: str, *steps: Step, again: bool = False
) -> Card:
    return Card(id_, name, lt, sk, "red", cost, effect, steps, play_again=again)


def _blue(
    id_: int,
    name: str,
    lt: str,
    sk: str,
    cost: int,
    effect: str,
    *steps: Step,
    again: bool = False,
    draw_discard: bool = False,
) -> Card:
    return Card(id_, name, lt, sk, "blue", cost, effect, steps, again, draw_discard)


def _green(
    id_: int,
    name: str,
    lt: str,
    sk: str,
    cost: int,
    effect: str,
    *steps: Step,
    again: bool = False,
    draw_discard: bool = False,
) -> Card:
    return Card(id_, name, lt, sk, "green", cost, effect, steps, again, draw_discard)


# fmt: off
#: every card in the seeds' order; ``CARDS[i].id == i + 1``
CARDS: tuple[Card, ...] = (
    # --- red: costs ore ---
    _red(1, "Brick Shortage", "Prasta rūda", "Chybná ruda", 0,
         "All players lose 8 ore", _all(ORE, -8)),
    _red(2, "Earthquake", "Žemės drebėjimas", "Zemetrasenie", 0,
         "-1 mine to all players", _all(MINES, -1)),
    _red(3, "Strip Mine", "Kasyklos griūtis", "Zával bane", 0,
         "-1 mine, +10 wall, you gain 5 mana", _you(MINES, -1), _you(WALL, 10), _you(MANA, 5)),
    _red(4, "Lucky Cache", "Laimingoji moneta", "Šťastná minca", 0,
         "+2 ore, +2 mana. Play again", _you(ORE, 2), _you(MANA, 2), again=True),
    _red(5, "Friendly Terrain", "Derlinga žemė", "Úrodná pôda", 1,
         "+1 wall. Play again", _you(WALL, 1), again=True),
    _red(6, "Rock Garden", "Akmenų sodas", "Kamenná záhrada", 1,
         "+1 wall, +1 tower, +2 troops", _you(WALL, 1), _you(TOWER, 1), _you(TROOPS, 2)),
    _red(7, "Innovations", "Naujovės", "Inovácie", 2,
         "+1 mine to all players, you gain 4 mana", _all(MINES, 1), _you(MANA, 4)),
    _red(8, "Basic Wall", "Paprasta siena", "Obyčajný múr", 2,
         "+3 wall", _you(WALL, 3)),
    _red(9, "Work Overtime", "Viršvalandžiai", "Nadčasy", 2,
         "+5 wall, you lose 6 mana", _you(WALL, 5), _you(MANA, -6)),
    _red(10, "Sturdy Wall", "Didelė siena", "Veľký múr", 3,
         "+4 wall", _you(WALL, 4)),
    _red(11, "Foundations", "Pamatai", "Základy", 3,
         "If you have no wall, +5 wall, otherwise +3",
         If(Compare("self", WALL, "==", None, 0), (_you(WALL, 5),), (_you(WALL, 3),))),
    _red(12, "Miners", "Kalnakasiai", "Baníci", 3,
         "+1 mine", _you(MINES, 1)),
    _red(13, "Mother Lode", "Turtinga gysla", "Bohatá žila", 4,
         "If you have fewer mines than the enemy, +2 mines, otherwise +1",
         If(_fewer(MINES), (_you(MINES, 2),), (_you(MINES, 1),))),
    _red(14, "Collapse!", "Griūtis", "Zával", 4,
         "-1 enemy mine", _enemy(MINES, -1)),
    _red(15, "Copping the Tech", "Technologijų vagystė", "Krádež technológií", 5,
         "If you have fewer mines than the enemy, you get as many as the enemy",
         If(_fewer(MINES), (MatchEnemy(MINES),))),
    _red(16, "Big Wall", "Sustiprinta siena", "Zosilnený múr", 5,
         "+6 wall", _you(WALL, 6)),
    _red(17, "Flood Water", "Gruntiniai vandenys", "Spodná voda", 6,
         "The player with the lower wall loses 1 barracks and 2 tower (equal walls: both)",
         GroundWater(barracks=1, tower=2)),
    _red(18, "New Equipment", "Nauja įranga", "Nové vybavenie", 6,
         "+2 mines", _you(MINES, 2)),
    _red(19, "Dwarven Miners", "Nykštukai kalnakasiai", "Trpasličí baníci", 7,
         "+4 wall, +1 mine", _you(WALL, 4), _you(MINES, 1)),
    _red(20, "Forced Labor", "Priverstinis darbas", "Nútené práce", 7,
         "+9 wall, you lose 5 troops", _you(WALL, 9), _you(TROOPS, -5)),
    _red(21, "Tremors", "Smūgiai", "Otrasy", 7,
         "All walls take 5 damage. Play again", Damage("all", 5, "wall"), again=True),
    _red(22, "Reinforced Wall", "Galinga siena", "Mohutná hradba", 8,
         "+8 wall", _you(WALL, 8)),
    _red(23, "Secret Room", "Slaptas urvas", "Tajná jaskyňa", 8,
         "+1 monastery. Play again", _you(MONASTERIES, 1), again=True),
    _red(24, "Porticulus", "Galerijos", "Štôlne", 9,
         "+5 wall, +1 barracks", _you(WALL, 5), _you(BARRACKS, 1)),
    _red(25, "Crystal Rocks", "Stebuklingas kalnas", "Čarovná hora", 9,
         "+7 wall, +7 mana", _you(WALL, 7), _you(MANA, 7)),
    _red(26, "Barracks", "Kareivinės", "Kasárne", 10,
         "+6 troops, +6 wall. If you have fewer barracks than the enemy, +1 barracks",
         _you(TROOPS, 6), _you(WALL, 6), If(_fewer(BARRACKS), (_you(BARRACKS, 1),))),
    _red(27, "Harmonic Ore", "Dainuojančios anglys", "Spievajúce uhlie", 11,
         "+6 wall, +3 tower", _you(WALL, 6), _you(TOWER, 3)),
    _red(28, "Mondo Wall", "Bastionas", "Bašta", 13,
         "+12 wall", _you(WALL, 12)),
    _red(29, "Battlements", "Įtvirtinimai", "Opevnenie", 14,
         "+7 wall, 6 damage to the enemy", _you(WALL, 7), _hit(6)),
    _red(30, "Focused Designs", "Naujos aukštumos", "Nové výšiny", 15,
         "+8 wall, +5 tower", _you(WALL, 8), _you(TOWER, 5)),
    _red(31, "Great Wall", "Didžiausia siena", "Najväčšia hradba", 16,
         "+15 wall", _you(WALL, 15)),
    _red(32, "Shift", "Sukeitimas", "Posun", 17,
         "Your wall and the enemy's wall swap", SwapWalls()),
    _red(33, "Rock Launcher", "Akmenų svaidyklė", "Vrhač kameňov", 18,
         "+6 wall, 10 damage to the enemy", _you(WALL, 6), _hit(10)),
    _red(34, "Dragon's Heart", "Drakono širdis", "Dračie srdce", 24,
         "+20 wall, +8 tower", _you(WALL, 20), _you(TOWER, 8)),
    # --- blue: costs mana ---
    _blue(35, "Bag of Baubles", "Niekučiai", "Cetky", 0,
          "If your tower is lower than the enemy's, +2 tower, otherwise +1",
          If(_fewer(TOWER), (_you(TOWER, 2),), (_you(TOWER, 1),))),
    _blue(36, "Rainbow", "Vaivorykštė", "Dúha", 0,
          "+1 tower to all players, you gain 3 mana", _all(TOWER, 1), _you(MANA, 3)),
    _blue(37, "Quartz", "Kvarcas", "Kremeň", 1,
          "+1 tower. Play again", _you(TOWER, 1), again=True),
    _blue(38, "Amethyst", "Ametistas", "Ametyst", 2,
          "+3 tower", _you(TOWER, 3)),
    _blue(39, "Smoky Quartz", "Dūminis kvarcas", "Záhneda", 2,
          "1 damage to the enemy tower. Play again", _hit_tower(1), again=True),
    _blue(40, "Prism", "Prizmė", "Hranol", 2,
          "Draw a card, discard a card. Play again", again=True, draw_discard=True),
    _blue(41, "Gemstone Flaw", "Plyšys", "Trhlina", 2,
          "3 damage to the enemy tower", _hit_tower(3)),
    _blue(42, "Power Burn", "Jėgos pliūpsnis", "Výbuch sily", 3,
          "5 damage to your tower, +2 monasteries",
          Damage("self", 5, "tower"), _you(MONASTERIES, 2)),
    _blue(43, "Ruby", "Rubinas", "Rubín", 3,
          "+5 tower", _you(TOWER, 5)),
    _blue(44, "Spell Weavers", "Kerų audėjai", "Tkáči kúziel", 3,
          "+1 monastery", _you(MONASTERIES, 1)),
    _blue(45, "Solar Flare", "Užtemimas", "Zatmenie", 4,
          "+2 tower, 2 damage to the enemy tower", _you(TOWER, 2), _hit_tower(2)),
    _blue(46, "Gem Spear", "Ietis", "Kopija", 4,
          "5 damage to the enemy tower", _hit_tower(5)),
    _blue(47, "Quarry's Help", "Pagalba darbe", "Pomoc pri práci", 4,
          "+7 tower, you lose 10 ore", _you(TOWER, 7), _you(ORE, -10)),
    _blue(48, "Apprentice", "Preliudas", "Predohra", 5,
          "+4 tower, you lose 3 troops, 2 damage to the enemy tower",
          _you(TOWER, 4), _you(TROOPS, -3), _hit_tower(2)),
    _blue(49, "Discord", "Nesantaika", "Svár", 5,
          "7 damage to all towers, -1 monastery to all players",
          Damage("all", 7, "tower"), _all(MONASTERIES, -1)),
    _blue(50, "Lodestone", "Rūdos gysla", "Rudná žila", 5,
          "+8 tower", _you(TOWER, 8)),
    _blue(51, "Crystal Matrix", "Matrica", "Matrica", 6,
          "+1 monastery, +3 tower, +1 enemy tower",
          _you(MONASTERIES, 1), _you(TOWER, 3), _enemy(TOWER, 1)),
    _blue(52, "Emerald", "Smaragdas", "Smaragd", 6,
          "+8 tower", _you(TOWER, 8)),
    _blue(53, "Harmonic Vibe", "Harmonija", "Harmónia", 7,
          "+1 monastery, +3 tower, +3 wall", _you(MONASTERIES, 1), _you(TOWER, 3), _you(WALL, 3)),
    _blue(54, "Crumblestone", "Minkštas akmuo", "Mäkký kameň", 7,
          "+5 tower, the enemy loses 6 ore", _you(TOWER, 5), _enemy(ORE, -6)),
    _blue(55, "Parity", "Paritetas", "Parita", 7,
          "Both players' monasteries become the higher of the two", Parity(MONASTERIES)),
    _blue(56, "Shatterer", "Sutrupinimas", "Roztrieštenie", 8,
          "-1 monastery, 9 damage to the enemy tower", _you(MONASTERIES, -1), _hit_tower(9)),
    _blue(57, "Crystallize", "Sukietėjimas", "Spevnenie", 8,
          "+11 tower, -6 wall", _you(TOWER, 11), _you(WALL, -6)),
    _blue(58, "Pearl of Wisdom", "Išminties perlas", "Perla múdrosti", 9,
          "+5 tower, +1 monastery", _you(TOWER, 5), _you(MONASTERIES, 1)),
    _blue(59, "Sapphire", "Safyras", "Zafír", 10,
          "+11 tower", _you(TOWER, 11)),
    _blue(60, "Lightning Shard", "Žaibas", "Blesk", 11,
          "If your tower is higher than the enemy's wall, 8 damage to the enemy tower, "
          "otherwise 8 damage to all",
          If(Compare("self", TOWER, ">", "enemy", WALL),
             (_hit_tower(8),), (Damage("all", 8),))),
    _blue(61, "Crystal Shield", "Krištolinis skydas", "Krištáľový štít", 12,
          "+8 tower, +3 wall", _you(TOWER, 8), _you(WALL, 3)),
    _blue(62, "Fire Ruby", "Ugnies rubinas", "Ohnivý rubín", 13,
          "+6 tower, 4 damage to the enemy tower", _you(TOWER, 6), _hit_tower(4)),
    _blue(63, "Empathy Gem", "Empatija", "Empatia", 14,
          "+8 tower, +1 barracks", _you(TOWER, 8), _you(BARRACKS, 1)),
    _blue(64, "Sanctuary", "Vienuolynas", "Kláštor", 15,
          "+10 tower, +5 wall, +5 troops", _you(TOWER, 10), _you(WALL, 5), _you(TROOPS, 5)),
    _blue(65, "Diamond", "Deimantas", "Diamant", 16,
          "+15 tower", _you(TOWER, 15)),
    _blue(66, "Lava Jewel", "Spindintis akmuo", "Žiariaci kameň", 17,
          "+12 tower, 6 damage to the enemy", _you(TOWER, 12), _hit(6)),
    _blue(67, "Phase Jewel", "Meditacija", "Meditácia", 18,
          "+13 tower, +6 troops, +6 ore", _you(TOWER, 13), _you(TROOPS, 6), _you(ORE, 6)),
    _blue(68, "Dragon's Eye", "Drakono akis", "Dračie oko", 21,
          "+20 tower", _you(TOWER, 20)),
    # --- green: costs troops ---
    _green(69, "Mad Cow Disease", "Karvių pasiutligė", "Choroba šialených kráv", 0,
           "All players lose 6 troops", _all(TROOPS, -6)),
    _green(70, "Full Moon", "Pilnatis", "Spln", 0,
           "+1 barracks to all players, you gain 3 troops", _all(BARRACKS, 1), _you(TROOPS, 3)),
    _green(71, "Moody Goblins", "Goblinai", "Škriatkovia", 1,
           "4 damage, you lose 3 mana", _hit(4), _you(MANA, -3)),
    _green(72, "Faerie", "Fėja", "Víla", 1,
           "2 damage. Play again", _hit(2), again=True),
    _green(73, "Gnome", "Nykštukas", "Trpaslík", 2,
           "3 damage, +1 mana", _hit(3), _you(MANA, 1)),
    _green(74, "Spearman", "Ietininkas", "Kopijník", 2,
           "If your wall is higher than the enemy's, 3 damage, otherwise 2",
           If(Compare("self", WALL, ">", "enemy", WALL), (_hit(3),), (_hit(2),))),
    _green(75, "Elven Scout", "Elfai žvalgai", "Elfí prieskumníci", 2,
           "Draw a card, discard a card. Play again", again=True, draw_discard=True),
    _green(76, "Goblin Mob", "Goblinų armija", "Škriatia armáda", 3,
           "6 damage to the enemy, 3 damage to you", _hit(6), Damage("self", 3)),
    _green(77, "Minotaur", "Minotauras", "Minotaurus", 3,
           "+1 barracks", _you(BARRACKS, 1)),
    _green(78, "Orc", "Orkas", "Ork", 3,
           "5 damage", _hit(5)),
    _green(79, "Berserker", "Berserkas", "Berserk", 4,
           "8 damage, 3 damage to your tower", _hit(8), Damage("self", 3, "tower")),
    _green(80, "Goblin Archers", "Goblinai lankininkai", "Škriatí lukostrelci", 4,
           "3 damage to the enemy tower, 1 damage to you", _hit_tower(3), Damage("self", 1)),
    _green(81, "Dwarves", "Nykštukai", "Trpaslíci", 5,
           "4 damage, +3 wall", _hit(4), _you(WALL, 3)),
    _green(82, "Slasher", "Triuškintojas", "Drvič", 5,
           "6 damage", _hit(6)),
    _green(83, "Imp", "Velniukas", "Čertík", 5,
           "6 damage, all players lose 5 ore, 5 mana and 5 troops",
           _hit(6), _all(ORE, -5), _all(MANA, -5), _all(TROOPS, -5)),
    _green(84, "Rabid Sheep", "Pasiutusi avis", "Zbesilá ovca", 6,
           "6 damage, the enemy loses 3 troops", _hit(6), _enemy(TROOPS, -3)),
    _green(85, "Little Snakes", "Gyvatėlės", "Malé hady", 6,
           "4 damage to the enemy tower", _hit_tower(4)),
    _green(86, "Ogre", "Ogras", "Zlobor", 6,
           "7 damage", _hit(7)),
    _green(87, "Shadow Faerie", "Vaiduoklė fėja", "Prízračná víla", 6,
           "2 damage to the enemy tower. Play again", _hit_tower(2), again=True),
    _green(88, "Troll Trainer", "Trolių treneris", "Cvičiteľ trolov", 7,
           "+2 barracks", _you(BARRACKS, 2)),
    _green(89, "Tower Gremlin", "Bokšto gremlinas", "Vežový gremlin", 8,
           "2 damage, +4 wall, +2 tower", _hit(2), _you(WALL, 4), _you(TOWER, 2)),
    _green(90, "Spizzer", "Milžiniškas vabalas", "Obrí chrobák", 8,
           "If the enemy has no wall, 10 damage, otherwise 6",
           If(Compare("enemy", WALL, "==", None, 0), (_hit(10),), (_hit(6),))),
    _green(91, "Unicorn", "Vienaragis", "Jednorožec", 9,
           "If you have more monasteries than the enemy, 12 damage, otherwise 8",
           If(Compare("self", MONASTERIES, ">", "enemy", MONASTERIES), (_hit(12),), (_hit(8),))),
    _green(92, "Werewolf", "Vilkolakis", "Vlkolak", 9,
           "9 damage", _hit(9)),
    _green(93, "Elven Archers", "Elfai lankininkai", "Elfí lukostrelci", 10,
           "If your wall is higher than the enemy's, 6 damage to the enemy tower, "
           "otherwise 6 damage",
           If(Compare("self", WALL, ">", "enemy", WALL), (_hit_tower(6),), (_hit(6),))),
    _green(94, "Corrosion Cloud", "Nuodingas debesis", "Jedovatý mrak", 11,
           "If the enemy wall is higher than 10, 10 damage, otherwise 7",
           If(Compare("enemy", WALL, ">", None, 10), (_hit(10),), (_hit(7),))),
    _green(95, "Rock Stompers", "Akmenėdžiai", "Požierači skál", 11,
           "8 damage, -1 enemy mine", _hit(8), _enemy(MINES, -1)),
    _green(96, "Thief", "Vagis", "Zlodej", 12,
           "The enemy loses 10 mana and 5 ore, you gain half (rounded up)",
           Steal(MANA, 10), Steal(ORE, 5)),
    _green(97, "Warlord", "Karvedys", "Vojvodca", 13,
           "13 damage, you lose 3 mana", _hit(13), _you(MANA, -3)),
    _green(98, "Succubus", "Sukubės", "Sukuby", 14,
           "5 damage to the enemy tower, the enemy loses 6 troops",
           _hit_tower(5), _enemy(TROOPS, -6)),
    _green(99, "Stone Giant", "Akmens milžinas", "Kamenný obor", 15,
           "10 damage, +4 wall", _hit(10), _you(WALL, 4)),
    _green(100, "Vampire", "Vampyras", "Upír", 17,
           "10 damage, the enemy loses 5 troops and 1 barracks",
           _hit(10), _enemy(TROOPS, -5), _enemy(BARRACKS, -1)),
    _green(101, "Pegasus Lancer", "Pegaso raitelis", "Jazdec na pegasovi", 18,
           "12 damage to the enemy tower", _hit_tower(12)),
    _green(102, "Dragon", "Drakonas", "Drak", 25,
           "20 damage, the enemy loses 10 mana and 1 barracks",
           _hit(20), _enemy(MANA, -10), _enemy(BARRACKS, -1)),
)

#: the battlefields in the seeds' table order; the first is the default
BATTLEFIELDS: tuple[Battlefield, ...] = (
    #           id                   name                  seed 000 (lt)           seed 004 (sk)
    Battlefield("archmage-citadel", "Archmage Citadel", "Arkimage citadelė", "Citadela arcimága",
                20, 5, 2, 2, 2, 50, 150),
    Battlefield("crystal-garden", "Crystal Garden", "Krištolinis sodas", "Krištáľová záhrada",
                20, 10, 3, 3, 3, 75, 200),
    Battlefield("seaside-fortress", "Seaside Fortress", "Pajūrio tvirtovė", "Prímorská pevnosť",
                20, 10, 5, 5, 5, 150, 400),
    Battlefield("azure-valley", "Azure Valley", "Žydrasis slėnis", "Azúrové údolie",
                20, 50, 1, 1, 5, 100, 300),
    Battlefield("misty-harbor", "Misty Harbor", "Rūko uostas", "Hmlistý prístav",
                50, 50, 5, 3, 5, 100, 300),
    Battlefield("square-of-winds", "Square of Winds", "Vėjų aikštė", "Námestie vetrov",
                20, 10, 3, 1, 2, 125, 350),
    Battlefield("free-steppe", "Free Steppe", "Laisvoji stepė", "Voľná step",
                20, 10, 1, 1, 1, 200, 500),
    Battlefield("mirror-labyrinth", "Mirror Labyrinth", "Veidrodžių labirintas",
                "Zrkadlový labyrint", 30, 15, 4, 4, 4, 100, 300),
)
# fmt: on

CARD_BY_ID: dict[int, Card] = {card.id: card for card in CARDS}
BATTLEFIELD_BY_ID: dict[str, Battlefield] = {field.id: field for field in BATTLEFIELDS}
