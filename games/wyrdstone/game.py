"""The Wyrdstone mage duel behind the Game interface of fairdeal.games.base, one value per
rules version (``VERSIONS``); ``GAME`` is the newest, which new duels are played under.

>>> GAME.normalize_params({})["A"]["school"], GAME.normalize_params({})["training"]
('fire', False)
>>> sorted(VERSIONS)
['wyrdstone/1', 'wyrdstone/2']
"""

from __future__ import annotations

from collections.abc import Mapping

from ..base import JSON, InvalidAction, InvalidParams, Outcome, Rng, TurnTimer, header_timer
from . import params as match_params
from . import rules
from .book import RUNE_BY_ID, SCROLL_BY_ID, rules_records, tavern_records
from .engine import DRAW_TURN, WRATH_FROM
from .render import render_svg
from .state import (
    HEALTH,
    SEAT_NAMES,
    SLOTS,
    Action,
    WyrdState,
    state_from_json,
    state_to_json,
    view_json,
)
from .versions import LATEST, V1, V2, RuleSet

__all__ = ["GAME", "VERSIONS", "WyrdstoneGame"]


def _duel_records(version: RuleSet) -> list[dict[str, str | int]]:
    """The rules of ``version`` that are numbers, as records (in its rules data, so its hash
    covers them)."""
    limit = version.turn_limit_ms
    return [
        {"id": "health", "value": HEALTH, "text": "each mage's health at the start"},
        {"id": "slots", "value": SLOTS, "text": "creature slots a side"},
        {"id": "wrath-from", "value": WRATH_FROM,
         "text": "Wrath of the Gods strikes from this turn, before the five steps"},
        {"id": "draw-turn", "value": DRAW_TURN,
         "text": "played in full; both mages alive after it: a draw"},
        {"id": "turn-limit-ms", "value": limit or 0,
         "text": "the whole turn's time; a timeout loses, in training it skips"},
        {"id": "defeat", "value": int(version.defeat_at_zero),
         "text": "a mage at 0 health loses at that blow; both at the same blow: a draw"},
    ]


class WyrdstoneGame:
    """The Wyrdstone mage duel of seed 001 under one rules version."""

    name = "wyrdstone"
    title = "Wyrdstone mage duel"
    seat_names: tuple[str, ...] = SEAT_NAMES

    def __init__(self, version: RuleSet = LATEST) -> None:
        self.rules = version
        self.rules_version = version.version

    def rules_data(self) -> JSON:
        """The starter Book of Magic as flat records: scrolls, runes, artifacts, skills,
        schools; from wyrdstone/2 also the tavern effects and the duel's numbers."""
        records = rules_records()
        if self.rules.tavern:
            records = {**records, "tavern": tavern_records(), "duel": _duel_records(self.rules)}
        return records

    def default_params(self) -> dict[str, JSON]:
        """A Fire mage against an Earth mage with default decks and equipment."""
        return match_params.default_params(self.rules)

    def normalize_params(self, params: Mapping[str, JSON]) -> dict[str, JSON]:
        """Fill in defaults and validate (see params.py); InvalidParams names the bad key."""
        return match_params.normalize(params, self.rules)

    def setup(self, params: Mapping[str, JSON], rng: Rng) -> WyrdState:
        """The first state (see rules.setup) for the normalized ``params``."""
        normal = match_params.normalize(params, self.rules)
        return rules.setup(match_params.loadouts(normal), bool(normal["training"]), rng,
                           self.rules)

    def turn_timer(self, params: Mapping[str, JSON], turn_limit_ms: int | None) -> TurnTimer:
        """wyrdstone/1: the header's limit, per action. From wyrdstone/2 the seed's 60 seconds
        for the whole turn (a rune and then a scroll, or a skip): the header must say 60000."""
        fixed = self.rules.turn_limit_ms
        if fixed is None:
            return header_timer(turn_limit_ms)
        if turn_limit_ms != fixed:
            raise InvalidParams(
                f"{self.rules_version} fixes the turn at {fixed // 1000} s for the whole turn: "
                f"turn_limit_ms must be {fixed}, got {turn_limit_ms!r}")
        return TurnTimer(fixed, per_turn=self.rules.per_turn)

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
        return state_from_json(data, self.rules)

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


#: every rules version a recorded duel may name, oldest first
VERSIONS: dict[str, WyrdstoneGame] = {
    version.version: WyrdstoneGame(version) for version in (V1, V2)
}
GAME = VERSIONS[LATEST.version]
