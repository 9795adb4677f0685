"""Crazy Eights as fairdeal loads it: the ``fairdeal.games`` entry point ``crazy-eights`` that
this package's pyproject.toml declares (``fairdeal_crazy_eights.plugin:PLUGIN``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fairdeal.games import Bot, DealFacts, DealtOrder, GamePlugin, SimulateOption

from .cards import CARDS, EIGHT, POINTS, rank_of
from .game import GAME, STOCK_RULES
from .rules import points
from .state import state_from_json, state_to_json

__all__ = ["PLUGIN", "CrazyEightsPlugin"]

#: each card's successor in the deck's order: what ``hidden_changed`` puts in its place
_NEXT = {card: CARDS[(index + 1) % len(CARDS)] for index, card in enumerate(CARDS)}


def _bots() -> Mapping[str, Bot]:
    from .bots import BOTS

    return BOTS


class CrazyEightsPlugin(GamePlugin):
    """The 52-card deck is dealt: seven cards a seat off the shuffled deck, then the starter
    (eights turned up first are buried under the stock), then the stock; an opening hand's
    strength is the points its cards count (an eight 50, a court card 10, an ace 1, else pips).
    """

    simulate_options = (
        SimulateOption("stock", "Crazy Eights: when the stock runs out, reshuffle the discard "
                       "pile into it, or pass (default: reshuffle).", "Crazy Eights",
                       choices=STOCK_RULES),)
    dealt_orders = {"deck": DealtOrder(
        items=CARDS, item_word="card",
        title="card by deal position ({deck} {order}: A's hand, B's hand, then the cards "
              "turned and the stock in thirds)",
        bins=((0, 7), (7, 14), (14, 27), (27, 40), (40, 52)),
        axis_label="card", labelled_rows=False, plot_height=5.5)}
    reason_words = {
        "out": "{winner} played their last card",
        "blocked": "the game blocked; {winner} held fewer points",
        "turn-cap": "the turn cap came; {winner} held fewer points",
    }
    draw_words = {
        "blocked": "the game blocked with the points level",
        "turn-cap": "the turn cap came with the points level",
    }
    live_secrecy = ("Hands and the stock stay hidden until the end: a spectator sees the "
                    "discard pile, the suit to follow and how many cards each hand holds, and "
                    "the whole match is replayed once the seed is revealed.")

    def read_deal(self, state: Any) -> DealFacts:
        # the shuffled deck as it was dealt: A's seven, B's seven, the eights turned up and
        # buried (now at the stock's bottom), the starter, then the stock above the buried
        hands, buried = state.hands, state.buried
        stock = state.stock[:len(state.stock) - len(buried)]
        order = [*hands[0], *hands[1], *buried, state.discard[0], *stock]
        return DealFacts(orders={"deck": order},
                         hand_totals=tuple(points(hand) for hand in hands),
                         hand_sizes=tuple(len(hand) for hand in hands))

    def hand_values(self) -> Sequence[float]:
        return [float(POINTS[card]) for card in CARDS]

    def replays_play(self, deck_key: str) -> bool:
        # play draws only from the stock (and its reshuffles): nothing the audit tests
        return False

    def hidden_changed(self, state: Any, seen_by: int | None) -> Any:
        # every hand but seen_by's own (and the card it drew) another card, the stock reversed
        data = state_to_json(state)
        for seat, hand in enumerate(data["hands"]):
            if seat != seen_by:
                data["hands"][seat] = [_NEXT[card] for card in hand]
                if data["drawn"] is not None and seat == state.turn:
                    data["drawn"] = _NEXT[data["drawn"]]
        data["stock"] = list(reversed(data["stock"]))
        return state_from_json(data)

    def quote(self, action: Any) -> str:
        kind, card = getattr(action, "kind", None), getattr(action, "card", None)
        if kind == "play" and isinstance(card, str):
            if rank_of(card) == EIGHT:
                return " — eights are wild: an eight goes on any card and names the suit to follow"
            return (" — a card goes on the discard pile when it matches the suit to follow or "
                    "the rank of the top card")
        if kind == "draw":
            return (" — a player who cannot or will not play draws one card, then may play "
                    "only that card, or pass")
        if kind == "pass":
            return (" — a player passes after drawing, or when there is nothing to play and "
                    "nothing to draw")
        return ""


PLUGIN = CrazyEightsPlugin(GAME, _bots)
