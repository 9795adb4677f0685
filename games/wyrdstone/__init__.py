"""The Wyrdstone mage duel of seed 001 (Ukrainian): two mages, five elements, five slots a side.

The registry (fairdeal.games) takes ``GAME`` from here and ``BOTS`` from ``.bots``. The rules
as implemented, the whole starter Book of Magic and every decision the seed leaves open are in
docs/rules/wyrdstone.md.

>>> GAME.name, GAME.rules_version, GAME.seat_names
('wyrdstone', 'wyrdstone/1', ('A', 'B'))
"""

from __future__ import annotations

from .book import ARTIFACTS, RUNES, SCROLL_BY_ID, SCROLLS, SKILLS, Equipment, Scroll
from .game import GAME, WyrdstoneGame
from .render import render_svg
from .state import Action, Creature, WyrdState, state_from_json, state_to_json, view_json

__all__ = [
    "ARTIFACTS",
    "GAME",
    "RUNES",
    "SCROLLS",
    "SCROLL_BY_ID",
    "SKILLS",
    "Action",
    "Creature",
    "Equipment",
    "Scroll",
    "WyrdState",
    "WyrdstoneGame",
    "render_svg",
    "state_from_json",
    "state_to_json",
    "view_json",
]
