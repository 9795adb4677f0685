"""A Wyrdstone duel as plain text for a terminal: each mage's health and energy, the creatures
in the slots, the turn and the last scroll. Nothing in a Wyrdstone state is hidden, so every
perspective reads the same. Pure, like render.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import JSON, RulesError
from .book import SCROLL_BY_ID, TAVERN_BY_ID
from .state import HEALTH, SEAT_NAMES, SLOTS, WyrdState

__all__ = ["render_text", "tavern_facts"]


def tavern_facts(game: Any, params: Mapping[str, JSON]) -> list[tuple[str, str]]:
    """``("Tavern effects, mage A", "Fire Whisky (at the start of the duel: ...)")`` for each
    mage, under a rules version that has tavern effects (none before wyrdstone/2, or for
    parameters that do not normalize).

    >>> from fairdeal.games.wyrdstone.game import VERSIONS
    >>> tavern_facts(VERSIONS["wyrdstone/2"], {"A": {"tavern": ["storm-mead"]}})[0]
    ('Tavern effects, mage A', 'Storm Mead (at the start of the duel: you gain 2 Air)')
    >>> tavern_facts(VERSIONS["wyrdstone/1"], {})
    []
    """
    rules = getattr(game, "rules", None)
    if not getattr(rules, "tavern", False):
        return []
    try:
        normal = game.normalize_params(params)
    except (RulesError, TypeError, ValueError):
        return []
    facts = []
    for name in SEAT_NAMES:
        items = [TAVERN_BY_ID[item] for item in normal[name].get("tavern", ())]
        words = "; ".join(f"{item.name} ({item.text})" for item in items)
        facts.append((f"Tavern effects, mage {name}", words or "none"))
    return facts


def render_text(state: WyrdState, seat: int | None = None) -> str:
    """The duel in lines of text (``seat`` changes nothing: the state is public)."""
    lines = [f"turn {state.turn}"]
    if state.result is not None:
        winner = state.result.winner
        lines[0] += (": draw" if winner is None else f": mage {SEAT_NAMES[winner]} wins") \
            + f" ({state.result.reason})"
    else:
        lines[0] += f": mage {SEAT_NAMES[state.seat]} to act"
    for side in (1, 0):
        loadout = state.loadouts[side]
        school = loadout.school + (f" ({loadout.patron})" if loadout.patron else "")
        energy = ", ".join(f"{element} {amount}"
                           for element, amount in state.energy_of(side).items())
        lines.append(f"  mage {SEAT_NAMES[side]} ({school}): health "
                     f"{state.health[side]}/{HEALTH}; energy {energy}")
        for number in range(1, SLOTS + 1):
            creature = state.creature(side, number)
            if creature is not None:
                lines.append(f"    slot {number}: {creature.name}, attack {creature.strength}, "
                             f"health {creature.health}")
    if state.last_cast is not None:
        who, scroll, slot = state.last_cast
        where = "" if slot is None else f" on slot {slot}"
        lines.append(f"  last scroll: mage {SEAT_NAMES[who]} cast "
                     f"{SCROLL_BY_ID[scroll].name}{where}")
    return "\n".join(lines)
