"""The Wyrdstone mage duel as fairdeal loads it (the ``fairdeal.games`` entry point
``wyrdstone``)."""

from __future__ import annotations

from collections.abc import Mapping

from ..base import JSON, Bot, Game
from ..plugin import GamePlugin
from .game import GAME, VERSIONS
from .text import tavern_facts

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
    live_secrecy = ("Nothing in this duel is hidden: both mages' equipment is fixed in the "
                    "match header and no scroll is drawn from a hidden pile, so a spectator sees "
                    "the whole board. The seed is revealed at the end, and every random pick is "
                    "checked then.")

    def match_facts(self, game: Game, params: Mapping[str, JSON]) -> list[tuple[str, str]]:
        """Each mage's tavern effects (from wyrdstone/2), with what they do: they fire once,
        before turn 1, so no board shows them being taken."""
        return tavern_facts(game, params)


PLUGIN = WyrdstonePlugin(GAME, _bots, versions=VERSIONS)
