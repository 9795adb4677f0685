"""The rules of every game fairdeal records, behind one Game interface and one registry.

>>> from fairdeal.games import get_game
>>> get_game("arcomage").name
'arcomage'
"""

from __future__ import annotations

import importlib

from .base import (
    JSON,
    Bot,
    Game,
    IllegalAction,
    InvalidAction,
    InvalidParams,
    Outcome,
    Rng,
    RulesError,
    SimpleRng,
)

__all__ = [
    "GAME_NAMES",
    "JSON",
    "Bot",
    "Game",
    "IllegalAction",
    "InvalidAction",
    "InvalidParams",
    "Outcome",
    "Rng",
    "RulesError",
    "SimpleRng",
    "UnknownGame",
    "get_game",
    "get_bots",
]

#: every registered game, by its short name, and the module that holds it
_MODULES = {
    "arcomage": "fairdeal.games.arcomage",
    "toybattle": "fairdeal.games.toybattle",
    "wyrdstone": "fairdeal.games.wyrdstone",
}
GAME_NAMES: tuple[str, ...] = tuple(_MODULES)


class UnknownGame(RulesError):
    """No game is registered under that name."""


_cache: dict[str, Game] = {}


def get_game(name: str) -> Game:
    """The game registered as ``name``; raise UnknownGame listing the known ones."""
    game = _cache.get(name)
    if game is None:
        module_name = _MODULES.get(name)
        if module_name is None:
            known = ", ".join(GAME_NAMES)
            raise UnknownGame(f"unknown game {name!r} (known games: {known})")
        game = importlib.import_module(module_name).GAME
        _cache[name] = game
    return game


def get_bots(name: str) -> dict[str, Bot]:
    """The simulation bots of game ``name``, by bot name (``random``, ``greedy`` ...)."""
    get_game(name)
    module = importlib.import_module(_MODULES[name] + ".bots")
    bots: dict[str, Bot] = module.BOTS
    return bots
