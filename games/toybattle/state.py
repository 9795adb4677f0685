"""The Toy Battle state: an immutable value, and its full JSON form.

Per-colour collections are pairs indexed by seat (0 blue, 1 red). ``stacks[base]`` is the
stack on a base, bottom to top, each troop an ``(owner seat, troop id)`` pair; HQs never hold
troops (a troop placed on the enemy HQ ends the match).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NoReturn, TypeVar

from ..base import JSON, Outcome
from .actions import Action, parse_action
from .boards import BOARD_BY_ID, SEAT_NAMES, Board
from .troops import TROOP_BY_ID

__all__ = [
    "NODE_SLOTS",
    "LastEvent",
    "Pending",
    "Stack",
    "State",
    "state_from_json",
    "state_to_json",
]

#: ``stacks`` is indexed by base id; ids run below this
NODE_SLOTS = 26

Troop = tuple[int, str]
Stack = tuple[Troop, ...]
T = TypeVar("T")
Pair = tuple[T, T]


@dataclass(frozen=True, slots=True)
class Pending:
    """An optional effect waiting for the acting seat's answer.

    ``effect`` is a troop id (skully, capn, jumbo, xb42, star) or a special base kind
    (castle, clouds, volcano, cemetery); ``base`` is where the troop that triggered it was placed.
    """

    effect: str
    base: int

    def to_json(self) -> dict[str, JSON]:
        """``{"effect": ..., "base": ...}``"""
        return {"effect": self.effect, "base": self.base}


@dataclass(frozen=True, slots=True)
class LastEvent:
    """What happened last: a seat's action, or a timeout or resignation written by the server."""

    seat: int
    kind: str  # "action", "timeout" or "resign"
    action: Action | None = None

    def to_json(self) -> dict[str, JSON]:
        """``{"seat": 0, "kind": "action", "action": {...}}``"""
        return {
            "seat": self.seat,
            "kind": self.kind,
            "action": None if self.action is None else self.action.to_json(),
        }


@dataclass(frozen=True, slots=True)
class State:
    """Everything about a Toy Battle match at one moment, hidden parts included."""

    board_id: str
    first: int
    turn: int
    seat: int
    stacks: tuple[Stack, ...]
    racks: Pair[tuple[str, ...]]
    reserves: Pair[tuple[str, ...]]
    set_aside: Pair[tuple[str, ...]]
    discards: Pair[tuple[str, ...]]
    frozen: Pair[tuple[int, ...]]
    medals: Pair[int]
    regions: tuple[int | None, ...]
    pending: tuple[Pending, ...] = ()
    timeouts: Pair[int] = (0, 0)
    last: LastEvent | None = None
    outcome: Outcome | None = None
    #: the troop that took an HQ, as (HQ node, owner seat, troop id): it ends the match there
    captor: tuple[int, int, str] | None = None

    @property
    def board(self) -> Board:
        """The board this match is played on."""
        return BOARD_BY_ID[self.board_id]

    def top(self, base: int) -> Troop | None:
        """The visible troop on ``base`` (None when the base is empty or not a base)."""
        if not 0 <= base < NODE_SLOTS:
            return None
        stack = self.stacks[base]
        return stack[-1] if stack else None


def _pair_json(values: Pair[Sequence[str]]) -> dict[str, JSON]:
    return {SEAT_NAMES[seat]: list(values[seat]) for seat in (0, 1)}


def state_to_json(state: State) -> dict[str, JSON]:
    """Everything in ``state`` as JSON (for replays after the reveal; never shown during play)."""
    board = state.board
    return {
        "board": state.board_id,
        "first": state.first,
        "turn": state.turn,
        "seat": state.seat,
        "stacks": [
            {
                "base": base,
                "stack": [
                    {"owner": SEAT_NAMES[owner], "troop": troop}
                    for owner, troop in state.stacks[base]
                ],
            }
            for base in board.bases
        ],
        "racks": _pair_json(state.racks),
        "reserves": _pair_json(state.reserves),
        "set_aside": _pair_json(state.set_aside),
        "discards": _pair_json(state.discards),
        "frozen": {SEAT_NAMES[seat]: list(state.frozen[seat]) for seat in (0, 1)},
        "medals": {SEAT_NAMES[seat]: state.medals[seat] for seat in (0, 1)},
        "regions": [None if taker is None else SEAT_NAMES[taker] for taker in state.regions],
        "pending": [pending.to_json() for pending in state.pending],
        "timeouts": {SEAT_NAMES[seat]: state.timeouts[seat] for seat in (0, 1)},
        "last": None if state.last is None else state.last.to_json(),
        "captor": None
        if state.captor is None
        else {
            "hq": state.captor[0],
            "owner": SEAT_NAMES[state.captor[1]],
            "troop": state.captor[2],
        },
        "result": None
        if state.outcome is None
        else {**state.outcome.to_json(), "detail": state.outcome.detail},
    }


def _fail(where: str, expected: str, value: JSON) -> NoReturn:
    raise ValueError(f"state field {where} must be {expected}, got {value!r}")


def _field(data: Mapping[str, JSON], key: str, where: str = "") -> JSON:
    if key not in data:
        raise ValueError(f"state field {where or key!r} is missing")
    return data[key]


def _int(value: JSON, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    _fail(where, "an integer", value)


def _seat(value: JSON, where: str) -> int:
    if value in SEAT_NAMES:
        return SEAT_NAMES.index(value)
    _fail(where, "'blue' or 'red'", value)


def _object(value: JSON, where: str) -> Mapping[str, JSON]:
    if isinstance(value, Mapping):
        return value
    _fail(where, "an object", value)


def _list(value: JSON, where: str) -> list[JSON]:
    if isinstance(value, list):
        return value
    _fail(where, "a list", value)


def _troops(value: JSON, where: str) -> tuple[str, ...]:
    items = _list(value, where)
    if all(isinstance(item, str) and item in TROOP_BY_ID for item in items):
        return tuple(items)
    _fail(where, "a list of troop ids", value)


def _per_seat(data: Mapping[str, JSON], key: str) -> tuple[JSON, JSON]:
    value = _object(_field(data, key), key)
    if set(value) != set(SEAT_NAMES):
        _fail(key, "an object with exactly 'blue' and 'red'", value)
    return value["blue"], value["red"]


def _troop_pair(data: Mapping[str, JSON], key: str) -> Pair[tuple[str, ...]]:
    blue, red = _per_seat(data, key)
    return _troops(blue, f"{key}.blue"), _troops(red, f"{key}.red")


def _int_pair(data: Mapping[str, JSON], key: str) -> Pair[int]:
    blue, red = _per_seat(data, key)
    return _int(blue, f"{key}.blue"), _int(red, f"{key}.red")


def _stacks(board: Board, value: JSON) -> tuple[Stack, ...]:
    stacks: list[Stack] = [()] * NODE_SLOTS
    for entry in _list(value, "stacks"):
        record = _object(entry, "stacks[]")
        base = _int(_field(record, "base", "stacks[].base"), "stacks[].base")
        if base not in board.bases:
            _fail("stacks[].base", f"a base of {board.name}", base)
        troops: list[Troop] = []
        for item in _list(_field(record, "stack", f"stacks[{base}]"), f"stacks[{base}]"):
            troop = _object(item, f"stacks[{base}][]")
            kind = _field(troop, "troop", f"stacks[{base}][].troop")
            if kind not in TROOP_BY_ID:
                _fail(f"stacks[{base}][].troop", "a troop id", kind)
            owner = _seat(_field(troop, "owner", f"stacks[{base}][].owner"), f"stacks[{base}]")
            troops.append((owner, str(kind)))
        stacks[base] = tuple(troops)
    return tuple(stacks)


def _last(value: JSON) -> LastEvent | None:
    if value is None:
        return None
    record = _object(value, "last")
    kind = _field(record, "kind", "last.kind")
    if kind not in ("action", "timeout", "resign"):
        _fail("last.kind", "'action', 'timeout' or 'resign'", kind)
    action = _field(record, "action", "last.action")
    return LastEvent(
        _int(_field(record, "seat", "last.seat"), "last.seat"),
        str(kind),
        None if action is None else parse_action(action),
    )


def _result(value: JSON) -> Outcome | None:
    if value is None:
        return None
    record = _object(value, "result")
    outcome = Outcome.from_json(record)
    detail = record.get("detail", "")
    return Outcome(outcome.winner, outcome.reason, detail if isinstance(detail, str) else "")


def state_from_json(data: JSON) -> State:
    """The state whose JSON form (``state_to_json``) is ``data``; raise ValueError if malformed."""
    record = _object(data, "(the state)")
    board_id = _field(record, "board")
    if board_id not in BOARD_BY_ID:
        _fail("'board'", "a board id", board_id)
    board = BOARD_BY_ID[str(board_id)]
    frozen = _per_seat(record, "frozen")
    regions = _list(_field(record, "regions"), "regions")
    if len(regions) != len(board.regions):
        _fail("regions", f"a list of {len(board.regions)} takers", regions)
    pending = []
    for item in _list(_field(record, "pending"), "pending"):
        entry = _object(item, "pending[]")
        effect = _field(entry, "effect", "pending[].effect")
        if not isinstance(effect, str):
            _fail("pending[].effect", "a string", effect)
        pending.append(Pending(effect, _int(_field(entry, "base", "pending[].base"), "base")))
    return State(
        board_id=board.id,
        first=_seat_index(_field(record, "first"), "first"),
        turn=_int(_field(record, "turn"), "turn"),
        seat=_seat_index(_field(record, "seat"), "seat"),
        stacks=_stacks(board, _field(record, "stacks")),
        racks=_troop_pair(record, "racks"),
        reserves=_troop_pair(record, "reserves"),
        set_aside=_troop_pair(record, "set_aside"),
        discards=_troop_pair(record, "discards"),
        frozen=(
            tuple(_int(i, "frozen.blue") for i in _list(frozen[0], "frozen.blue")),
            tuple(_int(i, "frozen.red") for i in _list(frozen[1], "frozen.red")),
        ),
        medals=_int_pair(record, "medals"),
        regions=tuple(None if r is None else _seat(r, "regions[]") for r in regions),
        pending=tuple(pending),
        timeouts=_int_pair(record, "timeouts"),
        last=_last(_field(record, "last")),
        outcome=_result(_field(record, "result")),
        captor=_captor(board, _field(record, "captor")),
    )


def _captor(board: Board, value: JSON) -> tuple[int, int, str] | None:
    if value is None:
        return None
    record = _object(value, "captor")
    hq = _int(_field(record, "hq", "captor.hq"), "captor.hq")
    if hq not in board.hqs(0) + board.hqs(1):
        _fail("captor.hq", f"an HQ of {board.name}", hq)
    troop = _field(record, "troop", "captor.troop")
    if troop not in TROOP_BY_ID:
        _fail("captor.troop", "a troop id", troop)
    return hq, _seat(_field(record, "owner", "captor.owner"), "captor.owner"), str(troop)


def _seat_index(value: JSON, where: str) -> int:
    if _int(value, where) in (0, 1):
        return int(value)
    _fail(where, "0 or 1", value)
