"""The Wyrdstone mage duel as fairdeal loads it (the ``fairdeal.games`` entry point
``wyrdstone``)."""

from __future__ import annotations

from collections.abc import Mapping

from ..base import Bot
from ..plugin import GamePlugin
from .game import GAME, VERSIONS

__all__ = ["PLUGIN", "WyrdstonePlugin"]


def _bots() -> Mapping[str, Bot]:
    from .bots import BOTS

    return BOTS


class WyrdstonePlugin(GamePlugin):
    """Nothing is dealt: the seats are compared by who moves first only. The setup resolves
    turn 1, which may pick at random, so its picks are recorded too."""

    setup_picks = True
    turn_limit_note = "Wyrdstone takes 60 s for the whole turn"
    reason_words = {
        "health": "{winner} brought {loser}'s mage down",
        "wrath": "{loser}'s mage fell to the Wrath of the Gods",
        "turn-70": "both mages were still standing at turn 70",
    }


PLUGIN = WyrdstonePlugin(GAME, _bots, versions=VERSIONS)
