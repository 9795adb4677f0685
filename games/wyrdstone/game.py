"""The Wyrdstone mage duel behind the Game interface of fairdeal.games.base.

>>> GAME.normalize_params({})["A"]["school"], GAME.normalize_params({})["training"]
('fire', False)
"""

from __future__ import annotations

from collections.abc import Mapping

from ..base import JSON, InvalidAction, Outcome, Rng
from . import params as match_params
from . import rules
from .book import RUNE_BY_ID, SCROLL_BY_ID, rules_records
from .render import render_svg
from .state import SEAT_NAMES, Action, WyrdState, state_from_json, state_to_json, view_json

__all__ = ["GAME", "WyrdstoneGame"]


class WyrdstoneGame:
    """The Wyrdstone mage duel of seed 001."""

    name = "wyrdstone"
    title = "Wyrdstone mage duel"
    rules_version = "wyrdstone/1"
    seat_names: tuple[str, ...] = SEAT_NAMES

    def rules_data(self) -> JSON:
        """The starter Book of Magic as flat records: scrolls, runes, artifacts, skills,
        schools."""
        return rules_records()

    def default_params(self) -> dict[str, JSON]:
        """A Fire mage against an Earth mage with default decks and equipment."""
        return match_params.default_params()

    def normalize_params(self, params: Mapping[str, JSON]) -> dict[str, JSON]:
        """Fill in defaults and validate (see params.py); InvalidParams names the bad key."""
        return match_params.normalize(params)

    def setup(self, params: Mapping[str, JSON], rng: Rng) -> WyrdState:
        """The first state (see rules.setup) for the normalized ``params``."""
        normal = match_params.normalize(params)
        return rules.setup(match_params.loadouts(normal), bool(normal["training"]), rng)

    def current_seat(self, state: WyrdState) -> int | None:
        """The mage to act, or None once the duel is over."""
        return None if state.result is not None else state.seat

    def legal_actions(self, state: WyrdState) -> list[Action]:
        """Every action the acting mage may take (see rules.legal_actions)."""
        return rules.legal_actions(state)

    def apply(self, state: WyrdState, action: Action, rng: Rng) -> WyrdState:
        """The next state; raise IllegalAction with the rules' reason. ``state`` is unchanged."""
        return rules.apply(state, action, rng)

    def timeout(self, state: WyrdState, rng: Rng) -> WyrdState:
        """The acting mage timed out: a loss, or a skipped turn in training (rules.timeout)."""
        return rules.timeout(state, rng)

    def resign(self, state: WyrdState, seat: int) -> WyrdState:
        """``seat`` resigns: the other mage wins."""
        return rules.resign(state, seat)

    def result(self, state: WyrdState) -> Outcome | None:
        """The outcome once the duel is over, else None."""
        return state.result

    def parse_action(self, data: JSON) -> Action:
        """An action from its JSON form (see state.Action)."""
        return Action.from_json(data)

    def action_to_json(self, action: Action) -> JSON:
        """The JSON form of an action."""
        if not isinstance(action, Action):
            raise InvalidAction(f"not an action of the Wyrdstone duel: {action!r}")
        return action.to_json()

    def state_to_json(self, state: WyrdState) -> JSON:
        """Everything in the state (see state.state_to_json)."""
        return state_to_json(state)

    def state_from_json(self, data: JSON) -> WyrdState:
        """The state ``state_to_json`` wrote (not part of the Game interface)."""
        return state_from_json(data)

    def view(self, state: WyrdState, seat: int | None) -> JSON:
        """What ``seat`` may see: the whole state, since nothing in it is hidden."""
        return view_json(state, seat)

    def describe_action(self, state: WyrdState, action: Action) -> str:
        """E.g. ``"A casts Fireball (4 Fire) on B's slot 3: 9 damage to the chosen creature"``."""
        seat = SEAT_NAMES[state.seat]
        if action.kind == "skip":
            return f"{seat} skips the rest of the turn; the creatures still attack"
        if action.kind == "rune":
            assert action.rune is not None
            rune = RUNE_BY_ID[action.rune]
            return f"{seat} uses the {rune.name}: {rune.text}"
        assert action.scroll is not None
        scroll = SCROLL_BY_ID[action.scroll]
        label = f"{scroll.name} ({scroll.cost_text})"
        if scroll.kind == "creature":
            stats = f"{scroll.attack}/{scroll.health}"
            text = f": {scroll.text}" if scroll.text else ""
            return f"{seat} summons {label}, {stats}, into slot {action.slot}{text}"
        if scroll.target:
            side = SEAT_NAMES[1 - state.seat] if scroll.target == "enemy-creature" else seat
            return f"{seat} casts {label} on {side}'s slot {action.slot}: {scroll.text}"
        return f"{seat} casts {label}: {scroll.text}"

    def render_text(self, state: WyrdState, seat: int | None = None) -> str:
        """The state as plain text for a terminal (see text.render_text)."""
        from .text import render_text

        return render_text(state, seat)

    def render_svg(self, state: WyrdState, seat: int | None = None, *,
                   spectator: bool = False) -> str:
        """The state as a standalone SVG (see render.render_svg)."""
        return render_svg(state, seat, spectator=spectator)

    def __repr__(self) -> str:
        return f"<Game {self.name} {self.rules_version}>"


GAME = WyrdstoneGame()
