"""The Wyrdstone mage duel of seed 001 (Ukrainian): two mages, five elements, five slots a side.

The registry (fairdeal.games) takes ``GAME`` from here and ``BOTS`` from ``.bots``. The rules
as implemented, the whole starter Book of Magic and every decision the seed leaves open are in
docs/rules/wyrdstone.md.

>>> GAME.name, GAME.rules_version, GAME.seat_names
('wyrdstone', 'wyrdstone/2', ('A', 'B'))

``VERSIONS`` holds every rules version a recorded duel may name (versions.py says what each
changes); the registry replays a match under the one its header names.
"""

from __future__ import annotations

from .book import ARTIFACTS, RUNES, SCROLL_BY_ID, SCROLLS, SKILLS, TAVERN, Equipment, Scroll
from .game import GAME, VERSIONS, WyrdstoneGame
from .render import render_svg
from .state import Action, Creature, WyrdState, state_from_json, state_to_json, view_json
from .versions import V1, V2, RuleSet

__all__ = [
    "ARTIFACTS",
    "GAME",
    "RUNES",
    "SCROLLS",
    "SCROLL_BY_ID",
    "SKILLS",
    "TAVERN",
    "VERSIONS",
    "Action",
    "Creature",
    "Equipment",
    "RuleSet",
    "Scroll",
    "V1",
    "V2",
    "WyrdState",
    "WyrdstoneGame",
    "render_svg",
    "state_from_json",
    "state_to_json",
    "view_json",
]
