"""A Wyrdstone duel as plain text for a terminal: each mage's health and energy, the creatures
in the slots, the turn and the last scroll. Nothing in a Wyrdstone state is hidden, so every
perspective reads the same. Pure, like render.py."""

from __future__ import annotations

from .book import SCROLL_BY_ID
from .state import HEALTH, SEAT_NAMES, SLOTS, WyrdState

__all__ = ["render_text"]


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
