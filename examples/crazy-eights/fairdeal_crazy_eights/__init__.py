"""Crazy Eights for fairdeal, shipped as its own package: the proof that a game plugs in
through the ``fairdeal.games`` entry-point group with no edit anywhere in fairdeal.

The rules as implemented, and every decision the traditional game leaves open, are in
RULES.md beside this package; the plug-in (the audit's, the dispute report's and
``simulate``'s hooks) is ``plugin.PLUGIN``.

>>> GAME.name, GAME.rules_version, GAME.seat_names
('crazy-eights', 'crazy-eights/1', ('A', 'B'))
"""

from __future__ import annotations

from .cards import CARDS
from .game import GAME, CrazyEights
from .state import Action, CrazyEightsState

__all__ = ["CARDS", "GAME", "Action", "CrazyEights", "CrazyEightsState"]
