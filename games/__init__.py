"""The rules of every game fairdeal records, behind one Game interface and one registry.

>>> from fairdeal.games import get_game
>>> get_game("arcomage").name
'arcomage'

Every rules version a game can replay stays registered: ``get_game`` gives the newest (new
matches use it), ``get_rules(name, version)`` the one a recorded match names (see
docs/SPEC.md, "Rules versions").

Games are plug-ins: each is found through the ``fairdeal.games`` entry-point group, which names
its ``GamePlugin`` (games/plugin.py: the rules, every version, the bots, and the per-game facts
the audit, the dispute report and ``simulate`` need). The built-in games register the same way
(pyproject.toml). An entry point that fails to load is skipped and named by
``broken_plugins()``; it never stops the others (docs/architecture.md, "How a game plugs in").

>>> get_rules("wyrdstone", "wyrdstone/1").rules_version
'wyrdstone/1'
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from typing import Any

# first: it picks the compiled or the pure modules (FAIRDEAL_PURE) before any below is imported
from . import compiled  # noqa: F401
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
from .plugin import DealFacts, DealtOrder, GamePlugin, SimulateOption

__all__ = [
    "ENTRY_POINT_GROUP",
    "GAME_NAMES",
    "BrokenPlugin",
    "DealFacts",
    "DealtOrder",
    "GamePlugin",
    "SimulateOption",
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
    "broken_plugins",
    "game_names",
    "get_bots",
    "get_game",
    "get_plugin",
    "get_rules",
    "header_timer",
    "plugins",
    "rules_versions",
]

#: the games built into this package. They register through the ``fairdeal.games`` entry-point
#: group like any other (pyproject.toml); this table is only read where no package metadata is
#: installed (the browser verifier runs these packages from a plain zip)
_BUILT_IN = {
    "arcomage": "fairdeal.games.arcomage.plugin:PLUGIN",
    "toybattle": "fairdeal.games.toybattle.plugin:PLUGIN",
    "wyrdstone": "fairdeal.games.wyrdstone.plugin:PLUGIN",
}
#: the entry-point group a game package registers its ``GamePlugin`` in
ENTRY_POINT_GROUP = "fairdeal.games"


class UnknownGame(RulesError):
    """No game is registered under that name."""


class UnknownRulesVersion(RulesError):
    """The game is known, but not under that rules version."""


@dataclass(frozen=True)
class BrokenPlugin:
    """An entry point of the ``fairdeal.games`` group that could not be loaded: skipped, and
    named wherever the games are listed."""

    name: str
    target: str
    reason: str

    def words(self) -> str:
        """One line for people: which entry point, and why it was skipped."""
        return (f"game plug-in {self.name!r} ({self.target}) failed to load and was skipped: "
                f"{self.reason}")


_plugins: dict[str, GamePlugin] = {}
_broken: dict[str, BrokenPlugin] = {}
_targets: dict[str, str] = {}
_loaded = False


def _entry_points() -> dict[str, str]:
    """Every game entry point, by name: its ``module:attribute`` target."""
    found = {point.name: point.value
             for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    if not any(name in found for name in _BUILT_IN):
        found = {**_BUILT_IN, **found}  # no metadata for this package: its own games still
    return dict(sorted(found.items()))


def _load(name: str, target: str) -> GamePlugin:
    module_name, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    if not isinstance(value, GamePlugin):
        raise TypeError(f"{target} is a {type(value).__name__}, not a GamePlugin")
    if value.name != name:
        raise ValueError(f"the entry point is named {name!r} but its game is {value.name!r}")
    return value


def _entry_point_targets() -> dict[str, str]:
    """The entry points, read once per process (reading them walks every installed package)."""
    if not _targets:
        _targets.update(_entry_points())
    return _targets


def _load_one(name: str, target: str) -> None:
    """Load one entry point into the registry, or name it as broken."""
    try:
        _plugins[name] = _load(name, target)
    except Exception as e:  # a broken third-party package must not take fairdeal down
        _broken[name] = BrokenPlugin(name, target, f"{type(e).__name__}: {e}")


def _discover() -> None:
    """Load every entry point (those loaded already stay), the registry and the broken ones
    in name order."""
    global _loaded
    if _loaded:
        return
    for name, target in _entry_point_targets().items():
        if name not in _plugins and name not in _broken:
            _load_one(name, target)
    loaded, broken = dict(sorted(_plugins.items())), dict(sorted(_broken.items()))
    _plugins.clear()
    _plugins.update(loaded)
    _broken.clear()
    _broken.update(broken)
    _loaded = True


def game_names() -> tuple[str, ...]:
    """The names of every game that loaded, sorted."""
    _discover()
    return tuple(_plugins)


def broken_plugins() -> tuple[BrokenPlugin, ...]:
    """The entry points that failed to load (skipped; see ``BrokenPlugin.words``)."""
    _discover()
    return tuple(_broken.values())


def get_plugin(name: str) -> GamePlugin:
    """The plug-in registered as ``name``; raise UnknownGame listing the known ones (or
    saying why the one of that name failed to load).

    Only that game's entry point is loaded (a match is of one game: verifying it imports no
    other game's rules, which the browser would compile for nothing); every one is loaded only
    to name the known games to a name that has none."""
    target = _entry_point_targets().get(name)
    if target is not None and name not in _plugins and name not in _broken:
        _load_one(name, target)
    if target is None:
        _discover()
    plugin = _plugins.get(name)
    if plugin is None:
        broken = _broken.get(name)
        if broken is not None:
            raise UnknownGame(broken.words())
        known = ", ".join(_plugins)
        raise UnknownGame(f"unknown game {name!r} (known games: {known})")
    return plugin


def plugins() -> tuple[GamePlugin, ...]:
    """Every game that loaded, by name."""
    _discover()
    return tuple(_plugins.values())


def __getattr__(name: str) -> tuple[str, ...]:
    # GAME_NAMES is read on first use, so that importing the rules loads no plug-in
    if name == "GAME_NAMES":
        return game_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_game(name: str) -> Game:
    """The game registered as ``name``, under its newest rules; raise UnknownGame listing the
    known ones."""
    return get_plugin(name).game


def rules_versions(name: str) -> tuple[str, ...]:
    """Every rules version of game ``name`` this code can replay, oldest first."""
    return tuple(get_plugin(name).versions)


def get_rules(name: str, rules_version: str) -> Game:
    """Game ``name`` under ``rules_version``, old or new: what a recorded match replays under.
    Raise UnknownGame or UnknownRulesVersion (listing the versions known)."""
    versions = get_plugin(name).versions
    game = versions.get(rules_version)
    if game is None:
        known = ", ".join(repr(version) for version in versions)
        raise UnknownRulesVersion(
            f"{name} has no rules version {rules_version!r} (this code knows {known})")
    return game


def get_bots(name: str) -> dict[str, Bot]:
    """The simulation bots of game ``name``, by bot name (``random``, ``greedy`` ...)."""
    return get_plugin(name).bots()
