"""One line for people about an action, in the game's own words."""

from __future__ import annotations

from .actions import (
    Action,
    Castle,
    Cemetery,
    Clouds,
    Draw,
    Jumbo,
    Place,
    Skip,
    Skully,
    Star,
    Volcano,
    Xb42,
)
from .boards import SEAT_NAMES
from .rules import draw_count, effect_draw_count
from .state import State
from .troops import TROOP_BY_ID

__all__ = ["describe_action"]

_EFFECT_NAMES = {
    "skully": "Skully's draw",
    "capn": "Capn's extra placement",
    "jumbo": "Jumbo's discard",
    "xb42": "XB-42's raid",
    "star": "Star's draw",
    "castle": "the Castle Field",
    "clouds": "the City of Clouds",
    "volcano": "the Volcanic Jungle",
    "cemetery": "the Cursed Cemetery",
}


def _troop(owner: int, troop: str) -> str:
    kind = TROOP_BY_ID[troop]
    value = "X" if kind.strength is None else str(kind.strength)
    return f"{SEAT_NAMES[owner]}'s {kind.name} ({value})"


def describe_action(state: State, action: Action) -> str:
    """One line about ``action`` by the seat to move in ``state``.

    >>> from fairdeal.games.toybattle.state import State
    >>> s = State("castle-field", 0, 1, 0, ((),) * 26, (("hook",), ()), (("kwak",) * 5, ()),
    ...           ((), ()), ((), ()), ((), ()), (0, 0), (None,) * 8)
    >>> describe_action(s, Place("hook", 11))
    "blue places blue's Hook (4) on base 11"
    """
    seat = state.seat
    me, enemy = SEAT_NAMES[seat], 1 - seat
    rack, reserve = len(state.racks[seat]), len(state.reserves[seat])
    match action:
        case Draw():
            count = draw_count(rack, reserve)
            return f"{me} draws {count} troop{'s' if count != 1 else ''}"
        case Place(troop=troop, base=base):
            node = state.board.node_by_id.get(base)
            extra = " (Capn's extra troop)" if state.pending else ""
            if node is not None and node.hq is not None:
                return f"{me} places {_troop(seat, troop)} on the enemy HQ {base}{extra}"
            top = state.top(base) if node is not None else None
            covering = f", covering {_troop(*top)}" if top else ""
            return f"{me} places {_troop(seat, troop)} on base {base}{covering}{extra}"
        case Skip():
            if state.pending:
                return f"{me} declines {_EFFECT_NAMES.get(state.pending[0].effect, 'the effect')}"
            return f"{me} skips"
        case Skully():
            count = effect_draw_count(2, rack, reserve)
            return f"{me} uses Skully to draw {count} troop{'s' if count != 1 else ''}"
        case Star():
            return f"{me} uses Star to draw 1 troop"
        case Clouds():
            return f"{me} uses the City of Clouds to draw 1 troop"
        case Xb42():
            return f"{me}'s XB-42 discards a random troop from {SEAT_NAMES[enemy]}'s rack"
        case Jumbo(target=target):
            top = state.top(target)
            what = _troop(*top) if top else "nothing"
            return f"{me}'s Jumbo discards {what} from base {target}"
        case Castle(target=target):
            top = state.top(target)
            what = _troop(*top) if top else "nothing"
            return f"{me} takes {what} back from base {target} to the rack (Castle Field)"
        case Volcano(target=target, to=to):
            top = state.top(target)
            what = _troop(*top) if top else "nothing"
            return f"{me} moves {what} from base {target} to base {to} (Volcanic Jungle)"
        case Cemetery(troop=troop):
            return f"{me} takes {_troop(seat, troop)} back from the discard (Cursed Cemetery)"
    return f"{me}: {action!r}"
