"""The two-tower duel behind the Game interface of fairdeal.games.base.

>>> GAME.default_params()
{'battlefield': 'archmage-citadel', 'deck': 'normal'}
>>> GAME.normalize_params({"battlefield": "Krištolinis sodas"})
{'battlefield': 'crystal-garden', 'deck': 'normal'}
"""

from __future__ import annotations

from collections.abc import Mapping

from ..base import JSON, InvalidAction, InvalidParams, Rng, TurnTimer, header_timer
from . import rules
from .cards import BATTLEFIELD_BY_ID, BATTLEFIELDS, CARD_BY_ID, CARDS
from .render import render_svg
from .state import (
    DISCARD,
    SEAT_NAMES,
    Action,
    ArcomageState,
    state_from_json,
    state_to_json,
    view_json,
)

__all__ = ["GAME", "ArcomageGame"]

DECK_TYPES: tuple[str, ...] = ("normal", "infinite")
_PARAM_KEYS = ("battlefield", "deck")
#: every name a battlefield answers to, case-folded: its id, English name and both seed names
_BATTLEFIELD_NAMES: dict[str, str] = {
    name.casefold(): field.id
    for field in BATTLEFIELDS
    for name in (field.id, field.name, field.name_lt, field.name_sk)
}


class ArcomageGame:
    """The two-tower card duel (Arcomage family) of seeds 000 and 004."""

    name = "arcomage"
    title = "Two-tower duel"
    rules_version = "arcomage/1"
    seat_names: tuple[str, ...] = SEAT_NAMES

    def rules_data(self) -> JSON:
        """Every card and battlefield as flat records, and the deck types."""
        return {
            "cards": [card.to_json() for card in CARDS],
            "battlefields": [field.to_json() for field in BATTLEFIELDS],
            "deck_types": list(DECK_TYPES),
        }

    def default_params(self) -> dict[str, JSON]:
        """The first battlefield of the seeds' table, with the normal deck."""
        return {"battlefield": BATTLEFIELDS[0].id, "deck": "normal"}

    def normalize_params(self, params: Mapping[str, JSON]) -> dict[str, JSON]:
        """Fill in defaults; a battlefield may be named by id or any of its names, in any case.

        Raise InvalidParams naming the bad key and the allowed values.
        """
        if not isinstance(params, Mapping):
            raise InvalidParams(f"params must be an object, got {params!r}")
        for key in params:
            if key not in _PARAM_KEYS:
                raise InvalidParams(
                    f"unknown parameter {key!r}: the two-tower duel takes battlefield and deck"
                )
        normal = self.default_params()
        battlefield = params.get("battlefield", normal["battlefield"])
        field_id = (
            _BATTLEFIELD_NAMES.get(battlefield.casefold()) if isinstance(battlefield, str) else None
        )
        if field_id is None:
            allowed = ", ".join(field.id for field in BATTLEFIELDS)
            raise InvalidParams(f"battlefield {battlefield!r} is not one of: {allowed}")
        deck = params.get("deck", normal["deck"])
        if not isinstance(deck, str) or deck.casefold() not in DECK_TYPES:
            raise InvalidParams(f"deck {deck!r} is not one of: {', '.join(DECK_TYPES)}")
        return {"battlefield": field_id, "deck": deck.casefold()}

    def setup(self, params: Mapping[str, JSON], rng: Rng) -> ArcomageState:
        """The deal (see rules.setup) for the normalized ``params``."""
        normal = self.normalize_params(params)
        return rules.setup(
            BATTLEFIELD_BY_ID[normal["battlefield"]], normal["deck"] == "infinite", rng
        )

    # The four calls the verifier makes at every event are the rules' own functions rather
    # than methods calling them: the rules are compiled (setup.py), this face is not, and a
    # method here would run interpreted in front of each call.
    #: the seat to act, or None once the match is over
    current_seat = staticmethod(rules.current_seat)
    #: the next state; raise IllegalAction with the rules' reason. ``state`` is unchanged
    apply = staticmethod(rules.apply)
    #: the outcome once the match is over, else None
    result = staticmethod(rules.result)
    #: an action from ``{"kind": "play" | "discard", "card": <id>}``
    parse_action = staticmethod(Action.from_json)

    def legal_actions(self, state: ArcomageState) -> list[Action]:
        """Every action the current seat may take."""
        return rules.legal_actions(state)

    def timeout(self, state: ArcomageState, rng: Rng) -> ArcomageState:
        """The current seat's turn timed out (see rules.timeout)."""
        return rules.timeout(state, rng)

    def turn_timer(self, params: Mapping[str, JSON], turn_limit_ms: int | None) -> TurnTimer:
        """The header's limit, for each action (the creator picks it)."""
        return header_timer(turn_limit_ms)

    def resign(self, state: ArcomageState, seat: int) -> ArcomageState:
        """``seat`` resigns: the other seat wins."""
        return rules.resign(state, seat)

    def action_to_json(self, action: Action) -> JSON:
        """The JSON form of an action."""
        if not isinstance(action, Action):
            raise InvalidAction(f"not an action of the two-tower duel: {action!r}")
        return action.to_json()

    def state_to_json(self, state: ArcomageState) -> JSON:
        """Everything in the state (see state.state_to_json)."""
        return state_to_json(state)

    def state_from_json(self, data: JSON) -> ArcomageState:
        """The state ``state_to_json`` wrote (not part of the Game interface)."""
        return state_from_json(data)

    def view(self, state: ArcomageState, seat: int | None) -> JSON:
        """What ``seat`` may see (see state.view_json)."""
        return view_json(state, seat)

    def describe_action(self, state: ArcomageState, action: Action) -> str:
        """E.g. ``"A plays Lightning Shard (blue, 11 mana): If your tower is higher ..."``."""
        seat = SEAT_NAMES[state.turn]
        card = CARD_BY_ID[action.card]
        label = f"{card.name} ({card.colour}, {card.cost} {card.resource})"
        if action.kind == "play":
            return f"{seat} plays {label}: {card.effect}"
        if state.phase == DISCARD and state.last is not None and state.last[2] is not None:
            return f"{seat} discards {label} for {CARD_BY_ID[state.last[2]].name}"
        return f"{seat} discards {label}"

    def render_text(self, state: ArcomageState, seat: int | None = None) -> str:
        """The state as plain text for a terminal (see text.render_text)."""
        from .text import render_text

        return render_text(state, seat)

    def render_svg(self, state: ArcomageState, seat: int | None = None, *,
                   spectator: bool = False) -> str:
        """The state as a standalone SVG (see render.render_svg)."""
        return render_svg(state, seat, spectator=spectator)

    def __repr__(self) -> str:
        return f"<Game {self.name} {self.rules_version}>"


GAME = ArcomageGame()
