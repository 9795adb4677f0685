"""Toy Battle as fairdeal loads it (the ``fairdeal.games`` entry point ``toybattle``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Bot
from ..plugin import DealFacts, DealtOrder, GamePlugin, SimulateOption
from .game import GAME
from .troops import TROOP_BY_ID, TROOP_IDS, full_army, strength

__all__ = ["PLUGIN", "ToyBattlePlugin"]


def _bots() -> Mapping[str, Bot]:
    from .bots import BOTS

    return BOTS


def _army(colour: str) -> DealtOrder:
    return DealtOrder(
        items=tuple(TROOP_IDS), item_word="troop",
        title="troop by deal position ({deck} {order}: set-aside, opening, reserve)")


class ToyBattlePlugin(GamePlugin):
    """Each colour's army is shuffled and dealt: set aside, opening rack, reserve; an opening
    rack's strength is its troops' total (Kwak, who has no strength, counts 0)."""

    simulate_options = (
        SimulateOption("board", "Toy Battle: the board (default: the first).", "Toy Battle"),)
    dealt_orders = {"blue": _army("blue"), "red": _army("red")}
    reason_words = {
        "medals": "{winner} took the medals needed to win",
        "hq-captured": "{winner} took {loser}'s headquarters",
        "turn-limit": "the turn limit came; {winner} had more medals",
        "stalemate": "a side could not move, so the medals decided",
    }
    draw_words = {"turn-limit": "the turn limit came with the medals level"}
    live_secrecy = ("The racks, the order of the reserves and the troops set aside stay hidden "
                    "until the end: a spectator sees the board, the discards, the medals and how "
                    "many troops each pile holds, and the whole match is replayed once the seed "
                    "is revealed.")

    def read_deal(self, state: Any) -> DealFacts:
        deal = DealFacts(
            hand_totals=tuple(sum(strength(troop) or 0 for troop in rack)
                              for rack in state.racks),
            hand_sizes=tuple(len(rack) for rack in state.racks))
        # each colour's shuffled army: the set-aside troops, then the opening rack, the reserve
        for seat, colour in enumerate(("blue", "red")):
            deal.orders[colour] = [*state.set_aside[seat], *state.racks[seat],
                                   *state.reserves[seat]]
        return deal

    def hand_values(self) -> Sequence[float]:
        return [float(strength(troop) or 0) for troop in full_army()]

    def quote(self, action: Any) -> str:
        # the description names the troop; the dispute also quotes its effect text
        troop = getattr(action, "troop", None)
        kind = TROOP_BY_ID.get(troop) if isinstance(troop, str) else None
        return f" — {kind.name}: {kind.effect}" if kind is not None else ""


PLUGIN = ToyBattlePlugin(GAME, _bots)
