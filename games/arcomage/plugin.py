"""The two-tower duel as fairdeal loads it (the ``fairdeal.games`` entry point ``arcomage``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..base import JSON, Bot
from ..plugin import DealFacts, DealtOrder, GamePlugin, SimulateOption
from .cards import CARDS
from .game import GAME

__all__ = ["PLUGIN", "ArcomagePlugin"]

_CARD_COST = {card.id: card.cost for card in CARDS}


def _bots() -> Mapping[str, Bot]:
    from .bots import BOTS

    return BOTS


class ArcomagePlugin(GamePlugin):
    """The deck is dealt: six cards a seat off the shuffled 102 (or drawn with replacement from
    the infinite deck); an opening hand's strength is its total cost."""

    simulate_options = (
        SimulateOption("battlefield", "Two-tower duel: the battlefield (default: the first).",
                       "the two-tower duel"),
        SimulateOption("deck", "Two-tower duel: the deck type (default: normal).",
                       "the two-tower duel", choices=("normal", "infinite")),
    )
    dealt_orders = {"deck": DealtOrder(
        items=tuple(card.id for card in CARDS), item_word="card",
        title="card by deal position ({deck} {order})",
        # A's six cards, B's six, then the draw pile in six bins of fifteen
        bins=((0, 6), (6, 12), *((12 + 15 * i, 27 + 15 * i) for i in range(6))),
        axis_label="card id", labelled_rows=False, plot_height=5.5)}
    draw_items = tuple(card.id for card in CARDS)
    reason_words = {
        "tower-built": "{winner} built the tower to the victory height",
        "resource": "{winner} gathered the victory amount of a resource",
        "tower-destroyed": "{winner} destroyed {loser}'s tower",
    }
    live_secrecy = ("Hands and the deck stay hidden until the end: a spectator sees the "
                    "towers, walls, resources and the cards played, and the whole match is "
                    "replayed once the seed is revealed.")

    def deck_key(self, params: Mapping[str, JSON]) -> str:
        return f"arcomage/{params.get('deck', 'normal')}"

    def read_deal(self, state: Any) -> DealFacts:
        hands = state.hands
        deal = DealFacts(
            hand_totals=tuple(sum(_CARD_COST[card] for card in hand) for hand in hands),
            hand_sizes=tuple(len(hand) for hand in hands), replacement=state.infinite)
        if state.infinite:
            deal.draws.extend(hands[0] + hands[1])
        else:  # A took the first six of the shuffled deck, B the next six, the rest is the pile
            deal.orders["deck"] = [*hands[0], *hands[1], *state.draw_pile]
        return deal

    def hand_values(self) -> Sequence[float]:
        return [float(card.cost) for card in CARDS]

    def replays_play(self, deck_key: str) -> bool:
        # the normal deck draws nothing during play but its reshuffles: skip that replay
        return deck_key != "arcomage/normal"

    def draws_from_picks(self, deck_key: str, picks: Sequence[tuple[str, int, int]]
                         ) -> list[Any]:
        if deck_key != "arcomage/infinite":
            return []
        return [value + 1 for purpose, _, value in picks if purpose == "draw"]


PLUGIN = ArcomagePlugin(GAME, _bots)
