"""The rules of every game fairdeal records, behind one Game interface and one registry.

>>> from fairdeal.games import get_game
>>> get_game("arcomage").name
'arcomage'

Every rules version a game can replay stays registered: ``get_game`` gives the newest (new
matches use it), ``get_rules(name, version)`` the one a recorded match names. A game module
with a single version exposes only ``GAME``; one with several also ``VERSIONS``, every version
by its name, the newest being ``GAME`` (see docs/SPEC.md, "Rules versions").

>>> get_rules("wyrdstone", "wyrdstone/1").rules_version
'wyrdstone/1'
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
    TurnTimer,
    header_timer,
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
    "TurnTimer",
    "UnknownGame",
    "UnknownRulesVersion",
    "get_bots",
    "get_game",
    "get_rules",
    "header_timer",
    "rules_versions",
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


class UnknownRulesVersion(RulesError):
    """The game is known, but not under that rules version."""


_cache: dict[str, Game] = {}
_versions: dict[str, dict[str, Game]] = {}


def get_game(name: str) -> Game:
    """The game registered as ``name``, under its newest rules; raise UnknownGame listing the
    known ones."""
    game = _cache.get(name)
    if game is None:
        module_name = _MODULES.get(name)
        if module_name is None:
            known = ", ".join(GAME_NAMES)
            raise UnknownGame(f"unknown game {name!r} (known games: {known})")
        module = importlib.import_module(module_name)
        game = module.GAME
        versions: dict[str, Game] = dict(getattr(module, "VERSIONS", {}))
        versions.setdefault(game.rules_version, game)
        _versions[name] = versions
        _cache[name] = game
    return game


def rules_versions(name: str) -> tuple[str, ...]:
    """Every rules version of game ``name`` this code can replay, oldest first."""
    get_game(name)
    return tuple(_versions[name])


def get_rules(name: str, rules_version: str) -> Game:
    """Game ``name`` under ``rules_version``, old or new: what a recorded match replays under.
    Raise UnknownGame or UnknownRulesVersion (listing the versions known)."""
    get_game(name)
    game = _versions[name].get(rules_version)
    if game is None:
        known = ", ".join(repr(version) for version in _versions[name])
        raise UnknownRulesVersion(
            f"{name} has no rules version {rules_version!r} (this code knows {known})")
    return game


def get_bots(name: str) -> dict[str, Bot]:
    """The simulation bots of game ``name``, by bot name (``random``, ``greedy`` ...)."""
    get_game(name)
    module = importlib.import_module(_MODULES[name] + ".bots")
    bots: dict[str, Bot] = module.BOTS
    return bots
