"""The state of a two-tower duel and its actions, with their JSON forms.

The state is compact on purpose (the verifier aims at a thousand matches a second): both
players' eight numbers live in one flat tuple of 16 ints (see effects.STATS), hands and piles are
tuples of card ids. States are never changed after they are built; the rules build new ones.

>>> Action.from_json({"kind": "play", "card": 60})
Action(kind='play', card=60)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..base import JSON, InvalidAction, Outcome
from .cards import BATTLEFIELD_BY_ID, CARD_BY_ID, Battlefield
from .effects import STATS

__all__ = [
    "ACT",
    "ACTIONS",
    "DISCARD",
    "HAND_SIZE",
    "SEAT_NAMES",
    "Action",
    "ArcomageState",
    "Last",
    "state_from_json",
    "state_to_json",
    "view_json",
]

SEAT_NAMES: tuple[str, str] = ("A", "B")
HAND_SIZE: Final = 6
#: the phases: a normal action, or the discard Prism / Elven Scout demand
ACT: Final = 0
DISCARD: Final = 1
_PHASES = ("act", "discard")
#: what happened last: (seat, "play" | "discard" | "timeout" | "resign", card id or None)
Last = tuple[int, str, int | None]
_KINDS = ("play", "discard")


@dataclass(frozen=True, slots=True)
class Action:
    """Play a card, or discard one: ``{"kind": "play", "card": 60}``."""

    kind: Literal["play", "discard"]
    card: int

    def to_json(self) -> dict[str, JSON]:
        """The JSON form a move event stores."""
        return {"kind": self.kind, "card": self.card}

    @classmethod
    def from_json(cls, data: JSON) -> Action:
        """Parse the JSON form; raise InvalidAction saying what is wrong (with the input)."""
        if type(data) is dict and len(data) == 2:
            # the usual case in one lookup (the verifier parses every move of every match):
            # two keys, both found, make exactly kind and card. Only a str and an int are
            # looked up: ``type(...) is int`` refuses True, which ACTIONS would take for card
            # 1, and a list (unhashable) goes to the checks below, which name it
            kind, card = data.get("kind"), data.get("card")
            if type(kind) is str and type(card) is int:
                action = ACTIONS.get((kind, card))
                if action is not None:
                    return action
        if not isinstance(data, Mapping):
            raise InvalidAction(f"an action is an object with kind and card, got {data!r}")
        if set(data) != {"kind", "card"}:
            raise InvalidAction(f"an action has exactly the keys kind and card, got {data!r}")
        kind, card = data["kind"], data["card"]
        if kind not in _KINDS:
            raise InvalidAction(f"action kind must be 'play' or 'discard', got {data!r}")
        if not isinstance(card, int) or isinstance(card, bool) or card not in CARD_BY_ID:
            raise InvalidAction(f"action card must be a card id from 1 to 102, got {data!r}")
        return ACTIONS[kind, card]


#: every action once, so parsing and listing legal actions allocate nothing
ACTIONS: dict[tuple[str, int], Action] = {
    (kind, card): Action(kind, card)  # type: ignore[arg-type]
    for kind in _KINDS
    for card in CARD_BY_ID
}


@dataclass(slots=True, eq=True, init=False)
class ArcomageState:
    """Everything about a match at one moment. Treated as immutable: rules return new states.

    ``stats`` holds seat 0's eight numbers then seat 1's (order: effects.STATS). ``turn`` is the
    seat to act (once the match is over, the seat that acted last). The draw pile is in draw
    order (the next card first); both piles stay empty in the infinite deck.
    """

    battlefield: Battlefield
    infinite: bool
    turn: int
    phase: int
    stats: tuple[int, ...]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    draw_pile: tuple[int, ...]
    discard_pile: tuple[int, ...]
    timeouts: tuple[int, int]
    last: Last | None
    result: Outcome | None

    # written out rather than left to @dataclass (the same one it would write): the compiled
    # build compiles a method written here, while the one dataclasses generates runs
    # interpreted, and every play of every verified match builds a state
    def __init__(self, battlefield: Battlefield, infinite: bool, turn: int, phase: int,
                 stats: tuple[int, ...], hands: tuple[tuple[int, ...], tuple[int, ...]],
                 draw_pile: tuple[int, ...], discard_pile: tuple[int, ...],
                 timeouts: tuple[int, int], last: Last | None, result: Outcome | None) -> None:
        self.battlefield = battlefield
        self.infinite = infinite
        self.turn = turn
        self.phase = phase
        self.stats = stats
        self.hands = hands
        self.draw_pile = draw_pile
        self.discard_pile = discard_pile
        self.timeouts = timeouts
        self.last = last
        self.result = result

    def player(self, seat: int) -> dict[str, int]:
        """Seat ``seat``'s eight numbers by name (tower, wall, mines, ..., troops)."""
        block = self.stats[8 * seat : 8 * seat + 8]
        return dict(zip(STATS, block, strict=True))


def _player_json(state: ArcomageState, seat: int, show_hand: bool) -> dict[str, JSON]:
    player: dict[str, JSON] = dict(state.player(seat))
    hand = state.hands[seat]
    player["hand"] = list(hand) if show_hand else len(hand)
    player["timeouts"] = state.timeouts[seat]
    return player


def _common_json(state: ArcomageState) -> dict[str, JSON]:
    last = state.last
    return {
        "battlefield": state.battlefield.id,
        "victory": {
            "tower": state.battlefield.victory_tower,
            "resource": state.battlefield.victory_resource,
        },
        "turn": None if state.result is not None else state.turn,
        "phase": _PHASES[state.phase],
        "last": None if last is None else {"seat": last[0], "kind": last[1], "card": last[2]},
        "result": None if state.result is None else state.result.to_json(),
    }


def state_to_json(state: ArcomageState) -> dict[str, JSON]:
    """The whole state, hands and draw order included (for replays after the reveal)."""
    data = _common_json(state)
    data["players"] = [_player_json(state, seat, True) for seat in (0, 1)]
    data["deck"] = {
        "type": "infinite" if state.infinite else "normal",
        "draw_pile": list(state.draw_pile),
        "discard_pile": list(state.discard_pile),
    }
    return data


def view_json(state: ArcomageState, seat: int | None) -> dict[str, JSON]:
    """What ``seat`` may see: its own hand, the other hand's size only, the draw pile's size
    only. A spectator (None) sees no hand at all."""
    data = _common_json(state)
    data["players"] = [_player_json(state, other, other == seat) for other in (0, 1)]
    data["deck"] = {
        "type": "infinite" if state.infinite else "normal",
        "draw_pile_size": len(state.draw_pile),
        "discard_pile": list(state.discard_pile),
    }
    return data


def _ints(data: Any, where: str) -> tuple[int, ...]:
    if not isinstance(data, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) for x in data
    ):
        raise ValueError(f"{where} must be a list of integers, got {data!r}")
    return tuple(data)


def _cards(data: Any, where: str) -> tuple[int, ...]:
    cards = _ints(data, where)
    unknown = [card for card in cards if card not in CARD_BY_ID]
    if unknown:
        raise ValueError(f"{where} holds ids that are no card: {unknown!r}")
    return cards


def state_from_json(data: JSON) -> ArcomageState:
    """The state ``state_to_json`` wrote; raise ValueError naming the first bad field."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a state is an object, got {data!r}")  # noqa: TRY004 (one error type)
    try:
        battlefield = BATTLEFIELD_BY_ID[data["battlefield"]]
        players = data["players"]
        deck = data["deck"]
        if not isinstance(players, list) or len(players) != 2:
            raise ValueError(f"players must be a list of two, got {players!r}")
        stats = _ints([player[name] for player in players for name in STATS], "players")
        if min(stats) < 0:
            raise ValueError(f"players' numbers are never negative, got {stats!r}")
        hands = [
            _cards(player["hand"], f"players[{seat}].hand") for seat, player in enumerate(players)
        ]
        timeouts = _ints([player["timeouts"] for player in players], "players' timeouts")
        if deck["type"] not in ("normal", "infinite"):
            raise ValueError(f"deck.type must be normal or infinite, got {deck['type']!r}")
        last = data["last"]
        result = None if data["result"] is None else Outcome.from_json(data["result"])
        turn = data["turn"]
        if result is None and turn not in (0, 1):
            raise ValueError(f"turn must be 0 or 1 while the match runs, got {turn!r}")
        if result is not None and last is None:
            raise ValueError("a finished match must say what happened last")
        return ArcomageState(
            battlefield=battlefield,
            infinite=deck["type"] == "infinite",
            turn=turn if result is None else last["seat"],
            phase=_PHASES.index(data["phase"]),
            stats=stats,
            hands=(hands[0], hands[1]),
            draw_pile=_cards(deck["draw_pile"], "deck.draw_pile"),
            discard_pile=_cards(deck["discard_pile"], "deck.discard_pile"),
            timeouts=(timeouts[0], timeouts[1]),
            last=None if last is None else (last["seat"], last["kind"], last["card"]),
            result=result,
        )
    except (KeyError, TypeError, IndexError) as e:
        raise ValueError(f"malformed arcomage state: {e!r}") from None
