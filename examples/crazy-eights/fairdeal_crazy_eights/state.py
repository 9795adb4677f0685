"""The state of a Crazy Eights match and its actions, with their JSON forms.

States are never changed after they are built; the rules (rules.py) build new ones.

>>> Action.from_json({"kind": "play", "card": "8h", "suit": "spades"})
Action(kind='play', card='8h', suit='spades')
>>> Action.from_json({"kind": "draw"}).to_json()
{'kind': 'draw'}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fairdeal.games import JSON, InvalidAction, Outcome

from .cards import CARDS, EIGHT, SUITS, rank_of

__all__ = ["SEAT_NAMES", "Action", "CrazyEightsState", "Last", "state_from_json",
           "state_to_json", "view_json"]

SEAT_NAMES: tuple[str, str] = ("A", "B")
_KINDS = ("play", "draw", "pass")
_CARD_SET = frozenset(CARDS)
#: what happened last: (seat, "play" | "draw" | "pass" | "timeout" | "resign", the card
#: played or None, the suit an eight named or None). A drawn card is never named here.
Last = tuple[int, str, str | None, str | None]


@dataclass(frozen=True, slots=True)
class Action:
    """Play a card (an eight names the next suit), draw one from the stock, or pass:
    ``{"kind": "play", "card": "7c"}``, ``{"kind": "play", "card": "8h", "suit": "spades"}``,
    ``{"kind": "draw"}``, ``{"kind": "pass"}``."""

    kind: Literal["play", "draw", "pass"]
    card: str | None = None
    suit: str | None = None

    def to_json(self) -> dict[str, JSON]:
        """The JSON form a move event stores (only the keys the kind has)."""
        data: dict[str, JSON] = {"kind": self.kind}
        if self.card is not None:
            data["card"] = self.card
        if self.suit is not None:
            data["suit"] = self.suit
        return data

    @classmethod
    def from_json(cls, data: JSON) -> Action:
        """Parse the JSON form; raise InvalidAction saying what is wrong (with the input)."""
        if not isinstance(data, Mapping):
            raise InvalidAction(f"an action is an object with a kind, got {data!r}")
        kind = data.get("kind")
        if kind not in _KINDS:
            raise InvalidAction(f"action kind must be 'play', 'draw' or 'pass', got {data!r}")
        if kind != "play":
            if set(data) != {"kind"}:
                raise InvalidAction(f"a {kind} action has only the key kind, got {data!r}")
            return DRAW if kind == "draw" else PASS
        card = data.get("card")
        if not isinstance(card, str) or card not in _CARD_SET:
            raise InvalidAction(f"action card must be a card code such as '7c' or '10h', "
                                f"got {data!r}")
        if rank_of(card) == EIGHT:
            if set(data) != {"kind", "card", "suit"} or data["suit"] not in SUITS:
                raise InvalidAction(f"an eight names the next suit (clubs, diamonds, hearts "
                                    f"or spades), got {data!r}")
            return cls("play", card, data["suit"])
        if set(data) != {"kind", "card"}:
            raise InvalidAction(f"a play of a card other than an eight has exactly the keys "
                                f"kind and card, got {data!r}")
        return cls("play", card)


DRAW = Action("draw")
PASS = Action("pass")


@dataclass(frozen=True, slots=True)
class CrazyEightsState:
    """Everything about a match at one moment. Treated as immutable: rules return new states.

    ``stock`` is in draw order (the next card first); ``discard`` has its top card last.
    ``suit`` is the suit to follow (the top card's, or the one an eight named). ``drawn`` is the
    card the seat to act drew this turn (it may then play only that card, or pass). ``buried``
    are the eights turned up as the starter and put under the stock (everyone saw them).
    ``turns`` counts finished turns, ``stuck`` passes in a row made with nothing to draw.
    ``reshuffle`` False: an empty stock is not rebuilt (the ``stock=pass`` parameter).
    ``turn`` is the seat to act (once the match is over, the seat that acted last)."""

    reshuffle: bool
    turn: int
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    stock: tuple[str, ...]
    discard: tuple[str, ...]
    suit: str
    drawn: str | None
    buried: tuple[str, ...]
    turns: int
    stuck: int
    timeouts: tuple[int, int]
    last: Last | None
    result: Outcome | None


def _last_json(last: Last | None) -> JSON:
    if last is None:
        return None
    return {"seat": last[0], "kind": last[1], "card": last[2], "suit": last[3]}


def _public_json(state: CrazyEightsState) -> dict[str, JSON]:
    """What everyone sees: the discard pile, the suit to follow, the counts, the last move."""
    return {
        "stock_rule": "reshuffle" if state.reshuffle else "pass",
        "turn": None if state.result is not None else state.turn,
        "discard": list(state.discard),
        "suit": state.suit,
        "buried": list(state.buried),
        "turns": state.turns,
        "stuck": state.stuck,
        "timeouts": list(state.timeouts),
        "last": _last_json(state.last),
        "result": None if state.result is None else state.result.to_json(),
    }


def state_to_json(state: CrazyEightsState) -> dict[str, JSON]:
    """The whole state, hands and stock order included (for replays after the reveal)."""
    data = _public_json(state)
    data["hands"] = [list(hand) for hand in state.hands]
    data["stock"] = list(state.stock)
    data["drawn"] = state.drawn
    return data


def view_json(state: CrazyEightsState, seat: int | None) -> dict[str, JSON]:
    """What ``seat`` may see: its own hand (and the card it just drew), the other hand's size
    only, the stock's size only. A spectator (None) sees no hand at all."""
    data = _public_json(state)
    data["hands"] = [list(hand) if side == seat else len(hand)
                     for side, hand in enumerate(state.hands)]
    data["stock"] = len(state.stock)
    data["drawn"] = state.drawn if seat == state.turn else state.drawn is not None
    return data


def _cards(data: Any, where: str) -> tuple[str, ...]:
    if not isinstance(data, list) or not all(isinstance(card, str) and card in _CARD_SET
                                             for card in data):
        raise ValueError(f"{where} must be a list of card codes, got {data!r}")
    return tuple(data)


def _last(data: Any) -> Last | None:
    if data is None:
        return None
    return (data["seat"], data["kind"], data["card"], data["suit"])


def state_from_json(data: JSON) -> CrazyEightsState:
    """The state ``state_to_json`` wrote; raise ValueError naming the first bad field."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a state is an object, got {data!r}")  # noqa: TRY004 (one error type)
    try:
        hands = [_cards(hand, f"hands[{seat}]") for seat, hand in enumerate(data["hands"])]
        result = None if data["result"] is None else Outcome.from_json(data["result"])
        last = _last(data["last"])
        turn = data["turn"] if result is None else (last[0] if last is not None else 0)
        if turn not in (0, 1) or len(hands) != 2:
            raise ValueError(f"turn must be 0 or 1 and hands two, got {data!r}")
        return CrazyEightsState(
            reshuffle=data["stock_rule"] == "reshuffle", turn=turn, hands=(hands[0], hands[1]),
            stock=_cards(data["stock"], "stock"), discard=_cards(data["discard"], "discard"),
            suit=data["suit"], drawn=data["drawn"], buried=_cards(data["buried"], "buried"),
            turns=data["turns"], stuck=data["stuck"],
            timeouts=(data["timeouts"][0], data["timeouts"][1]), last=last, result=result)
    except (KeyError, TypeError, IndexError) as e:
        raise ValueError(f"malformed crazy-eights state: {e!r}") from None
