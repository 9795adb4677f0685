"""Toy Battle (seed 003): troops placed on a graph of bases, medals for regions, 8 boards.

The registry takes ``GAME`` from here and ``BOTS`` from ``fairdeal.games.toybattle.bots``.
The rules as implemented, and every decision the seed leaves open, are in
docs/rules/toybattle.md.
"""

from __future__ import annotations

from .actions import Action, parse_action
from .boards import BOARD_BY_ID, BOARDS, Board
from .game import GAME, ToyBattle
from .state import State, state_from_json, state_to_json
from .troops import TROOP_BY_ID, TROOPS

__all__ = [
    "BOARDS",
    "BOARD_BY_ID",
    "GAME",
    "TROOPS",
    "TROOP_BY_ID",
    "Action",
    "Board",
    "State",
    "ToyBattle",
    "parse_action",
    "state_from_json",
    "state_to_json",
]
