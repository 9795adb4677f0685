"""The two-tower card duel (Arcomage family) of seeds 000 (Lithuanian) and 004 (Slovak).

The registry (fairdeal.games) takes ``GAME`` from here and ``BOTS`` from ``.bots``. The rules
as implemented, the card table and every decision the seeds leave open are in
docs/rules/arcomage.md.

>>> GAME.name, GAME.rules_version, GAME.seat_names
('arcomage', 'arcomage/1', ('A', 'B'))
"""

from __future__ import annotations

from .cards import BATTLEFIELD_BY_ID, BATTLEFIELDS, CARD_BY_ID, CARDS, Battlefield, Card
from .game import GAME, ArcomageGame
from .render import render_svg
from .state import Action, ArcomageState, state_from_json, state_to_json, view_json

__all__ = [
    "BATTLEFIELDS",
    "BATTLEFIELD_BY_ID",
    "CARDS",
    "CARD_BY_ID",
    "GAME",
    "Action",
    "ArcomageGame",
    "ArcomageState",
    "Battlefield",
    "Card",
    "render_svg",
    "state_from_json",
    "state_to_json",
    "view_json",
]
