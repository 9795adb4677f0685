"""Crazy Eights behind the Game interface of fairdeal.games.

>>> GAME.default_params()
{'stock': 'reshuffle'}
>>> GAME.normalize_params({"stock": "Pass"})
{'stock': 'pass'}
"""

from __future__ import annotations

from collections.abc import Mapping

from fairdeal.games import JSON, InvalidAction, InvalidParams, Outcome, Rng, TurnTimer, header_timer

from . import rules
from .cards import CARDS, POINTS, SUITS, card_name
from .render import render_svg
from .state import (
    SEAT_NAMES,
    Action,
    CrazyEightsState,
    state_from_json,
    state_to_json,
    view_json,
)

__all__ = ["GAME", "STOCK_RULES", "CrazyEights"]

#: what happens when the stock runs out: the discard pile under its top card is shuffled into
#: a new stock, or nobody draws any more
STOCK_RULES: tuple[str, ...] = ("reshuffle", "pass")


class CrazyEights:
    """The traditional two-player Crazy Eights, as RULES.md states it."""

    name = "crazy-eights"
    title = "Crazy Eights"
    rules_version = "crazy-eights/1"
    seat_names: tuple[str, ...] = SEAT_NAMES

    def rules_data(self) -> JSON:
        """The deck, each card's points, the suits, and the numbers the rules fix."""
        return {
            "cards": [{"card": card, "name": card_name(card), "points": POINTS[card]}
                      for card in CARDS],
            "suits": list(SUITS),
            "hand_size": rules.HAND_SIZE,
            "turn_cap": rules.TURN_CAP,
            "timeouts_to_lose": rules.TIMEOUTS_TO_LOSE,
            "stock_rules": list(STOCK_RULES),
        }

    def default_params(self) -> dict[str, JSON]:
        """An empty stock is rebuilt from the discard pile."""
        return {"stock": "reshuffle"}

    def normalize_params(self, params: Mapping[str, JSON]) -> dict[str, JSON]:
        """Fill in the default; raise InvalidParams naming the bad key and the allowed values."""
        if not isinstance(params, Mapping):
            raise InvalidParams(f"params must be an object, got {params!r}")
        for key in params:
            if key != "stock":
                raise InvalidParams(f"unknown parameter {key!r}: crazy eights takes stock")
        stock = params.get("stock", "reshuffle")
        if not isinstance(stock, str) or stock.casefold() not in STOCK_RULES:
            raise InvalidParams(f"stock {stock!r} is not one of: {', '.join(STOCK_RULES)}")
        return {"stock": stock.casefold()}

    def setup(self, params: Mapping[str, JSON], rng: Rng) -> CrazyEightsState:
        """The deal (see rules.setup) for the normalized ``params``."""
        return rules.setup(self.normalize_params(params)["stock"] == "reshuffle", rng)

    def current_seat(self, state: CrazyEightsState) -> int | None:
        """The seat to act, or None once the match is over."""
        return None if state.result is not None else state.turn

    def legal_actions(self, state: CrazyEightsState) -> list[Action]:
        """Every action the current seat may take (see rules.legal_actions)."""
        return rules.legal_actions(state)

    def apply(self, state: CrazyEightsState, action: Action, rng: Rng) -> CrazyEightsState:
        """The next state; raise IllegalAction with the rules' reason. ``state`` is unchanged."""
        return rules.apply(state, action, rng)

    def timeout(self, state: CrazyEightsState, rng: Rng) -> CrazyEightsState:
        """The current seat's turn timed out (see rules.timeout)."""
        return rules.timeout(state, rng)

    def turn_timer(self, params: Mapping[str, JSON], turn_limit_ms: int | None) -> TurnTimer:
        """The header's limit, for each action (the creator picks it)."""
        return header_timer(turn_limit_ms)

    def resign(self, state: CrazyEightsState, seat: int) -> CrazyEightsState:
        """``seat`` resigns: the other seat wins."""
        return rules.resign(state, seat)

    def result(self, state: CrazyEightsState) -> Outcome | None:
        """The outcome once the match is over, else None."""
        return state.result

    def parse_action(self, data: JSON) -> Action:
        """An action from its JSON form (see state.Action)."""
        return Action.from_json(data)

    def action_to_json(self, action: Action) -> JSON:
        """The JSON form of an action."""
        if not isinstance(action, Action):
            raise InvalidAction(f"not an action of crazy eights: {action!r}")
        return action.to_json()

    def state_to_json(self, state: CrazyEightsState) -> JSON:
        """Everything in the state (see state.state_to_json)."""
        return state_to_json(state)

    def state_from_json(self, data: JSON) -> CrazyEightsState:
        """The state ``state_to_json`` wrote (not part of the Game interface)."""
        return state_from_json(data)

    def view(self, state: CrazyEightsState, seat: int | None) -> JSON:
        """What ``seat`` may see (see state.view_json)."""
        return view_json(state, seat)

    def describe_action(self, state: CrazyEightsState, action: Action) -> str:
        """E.g. ``"A plays 8 of hearts and names spades"``; a draw never names the card."""
        seat = SEAT_NAMES[state.turn]
        if action.kind == "draw":
            return f"{seat} draws a card from the stock"
        if action.kind == "pass":
            return f"{seat} passes"
        assert action.card is not None
        named = f" and names {action.suit}" if action.suit is not None else ""
        return f"{seat} plays {card_name(action.card)}{named}"

    def render_text(self, state: CrazyEightsState, seat: int | None = None) -> str:
        """The state as plain text for a terminal (see text.render_text)."""
        from .text import render_text

        return render_text(state, seat)

    def render_svg(self, state: CrazyEightsState, seat: int | None = None, *,
                   spectator: bool = False) -> str:
        """The state as a standalone SVG (see render.render_svg)."""
        return render_svg(state, seat, spectator=spectator)

    def __repr__(self) -> str:
        return f"<Game {self.name} {self.rules_version}>"


GAME = CrazyEights()
