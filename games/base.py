"""The Game interface every rules package implements, and the errors rules raise.

A game is a value. Its states are treated as immutable: ``apply`` returns a new state and never
changes the one it was given, so a replayer can keep snapshots and step back.

Every random choice a rule makes comes from the ``Rng`` handed in (a deterministic stream the
protocol derives from the match seed), never from anywhere else. Rules do no I/O, read no clock
and import nothing from the layers above (verifier, ledger, web, cli).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

JSON = Any
T = TypeVar("T")


class RulesError(ValueError):
    """Base of every error a rules package raises."""


class InvalidParams(RulesError):
    """The match parameters are malformed or name something that does not exist."""


class InvalidAction(RulesError):
    """The action is malformed: it is not an action of this game at all."""


class IllegalAction(RulesError):
    """The action is well formed but the rules do not allow it in this state."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended. ``winner`` is a seat index, or None for a draw.

    ``reason`` is a short stable code such as ``"tower-destroyed"``, ``"timeouts"`` or
    ``"resigned"``; ``detail`` is one sentence for people.
    """

    winner: int | None
    reason: str
    detail: str = ""

    def to_json(self) -> dict[str, JSON]:
        return {"winner": self.winner, "reason": self.reason}

    @classmethod
    def from_json(cls, data: JSON) -> Outcome:
        if not isinstance(data, Mapping):
            raise ValueError(f"result must be an object, got {data!r}")
        winner = data.get("winner")
        reason = data.get("reason")
        if winner is not None and (not isinstance(winner, int) or isinstance(winner, bool)):
            raise ValueError(f"result.winner must be a seat index or null, got {winner!r}")
        if not isinstance(reason, str) or not reason:
            raise ValueError(f"result.reason must be a non-empty string, got {reason!r}")
        return cls(winner=winner, reason=reason)


@dataclass(frozen=True, slots=True)
class TurnTimer:
    """How long a seat may take, as the rules see it (see ``Game.turn_timer``).

    ``limit_ms`` is None for a match without a limit. ``per_turn`` False: the limit runs for
    each action, from the event before it. ``per_turn`` True: it runs for the whole turn, from
    the event that handed the seat the turn (the last event that was not a play of that same
    seat); only a game whose turns always pass to another seat may use it, since the clock
    restarts exactly when the seat to act changes (docs/SPEC.md, "Turns and timers").
    """

    limit_ms: int | None
    per_turn: bool = False


def header_timer(turn_limit_ms: int | None) -> TurnTimer:
    """The timer of a game that takes its limit from the match header, per action (the
    fairdeal/1 default)."""
    return TurnTimer(turn_limit_ms, per_turn=False)


@runtime_checkable
class Rng(Protocol):
    """The deterministic random stream handed to the rules (see verifier.rng.RandomStream)."""

    def randbelow(self, n: int) -> int:
        """An unbiased integer in [0, n)."""
        ...

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates shuffle in place."""
        ...

    def choice(self, items: Sequence[T]) -> T:
        """One item, uniformly."""
        ...

    def substream(self, label: str) -> Rng:
        """An independent stream for one purpose (``"deck"``, ``"first-player"`` ...)."""
        ...


class Bot(Protocol):
    """A simulation player. Bots are not part of the protocol: they may use any ``random.Random``
    they are given (never the match stream), and are only ever asked for legal actions."""

    name: str

    def choose(self, state: Any, rng: random.Random) -> Any:
        """An action for the current seat of ``state``."""
        ...


class RandomBot:
    """The ``random`` bot of every game: uniform over the legal actions it is given."""

    name = "random"

    def __init__(self, legal_actions: Callable[[Any], Sequence[Any]]) -> None:
        self._legal_actions = legal_actions

    def choose(self, state: Any, rng: random.Random) -> Any:
        """A legal action, uniformly at random."""
        return rng.choice(self._legal_actions(state))


class Game(Protocol):
    """What the protocol, the ledger and the viewer need from a game's rules.

    ``State`` and ``Action`` are the game's own types; the layers above only pass them back
    to the game and use the JSON forms.
    """

    #: short registry name, e.g. ``"arcomage"``
    name: str
    #: human title, e.g. ``"Two-tower duel"``
    title: str
    #: bumped whenever a rule or the rules data changes; old matches replay under theirs
    rules_version: str
    #: the seats' display names, in seat order (``("A", "B")``, ``("blue", "red")``)
    seat_names: tuple[str, ...]

    def rules_data(self) -> JSON:
        """All card/board data as JSON. The protocol hashes its canonical form into the header."""
        ...

    def default_params(self) -> dict[str, JSON]:
        """The parameters used when the creator gives none."""
        ...

    def normalize_params(self, params: Mapping[str, JSON]) -> dict[str, JSON]:
        """Fill in defaults and validate; raise InvalidParams naming the bad key."""
        ...

    def setup(self, params: Mapping[str, JSON], rng: Rng) -> Any:
        """The initial state: the deal, the first player, everything random at the start."""
        ...

    def current_seat(self, state: Any) -> int | None:
        """The seat to act, or None when the match is over."""
        ...

    def legal_actions(self, state: Any) -> list[Any]:
        """Every action the current seat may take (empty when the match is over)."""
        ...

    def apply(self, state: Any, action: Any, rng: Rng) -> Any:
        """Check the action is legal for the current seat and return the next state.

        Raises IllegalAction with the rules' reason. Never mutates ``state``.
        """
        ...

    def timeout(self, state: Any, rng: Rng) -> Any:
        """The current seat let its turn's deadline pass: what the rules do then."""
        ...

    def turn_timer(self, params: Mapping[str, JSON], turn_limit_ms: int | None) -> TurnTimer:
        """The deadline the rules set, given the normalized params and the header's
        ``turn_limit_ms``. A game whose rules fix the limit raises InvalidParams when the header
        names another; most games take the header's, per action (``header_timer``)."""
        ...

    def resign(self, state: Any, seat: int) -> Any:
        """``seat`` resigns: the other seat wins."""
        ...

    def result(self, state: Any) -> Outcome | None:
        """The outcome once the match is over, else None."""
        ...

    def parse_action(self, data: JSON) -> Any:
        """An action from its JSON form; raise InvalidAction naming what is wrong."""
        ...

    def action_to_json(self, action: Any) -> JSON:
        """The JSON form of an action (what a move event stores)."""
        ...

    def state_to_json(self, state: Any) -> JSON:
        """Everything in the state, hidden parts included (for replays after the reveal)."""
        ...

    def view(self, state: Any, seat: int | None) -> JSON:
        """What ``seat`` may see (None: a spectator). Never the opponent's hidden cards."""
        ...

    def describe_action(self, state: Any, action: Any) -> str:
        """One line for people about ``action`` taken in ``state``."""
        ...

    def render_text(self, state: Any, seat: int | None = None) -> str:
        """The state as lines of plain text (what ``fairdeal replay`` prints): the same
        secrecy as ``render_svg`` (``seat=None`` shows everything, after the reveal)."""
        ...

    def render_svg(self, state: Any, seat: int | None = None, *,
                   spectator: bool = False) -> str:
        """The state drawn as an SVG string from ``seat``'s perspective: that seat's own hidden
        information only. ``seat=None`` shows everything (after the reveal), unless
        ``spectator`` is set: then only public information, as during play."""
        ...


class SimpleRng:
    """An ``Rng`` over ``random.Random``, for bots' look-ahead and quick experiments.

    Never used to record or verify a match: the protocol always hands the rules its own
    deterministic stream (fairdeal.verifier.rng.RandomStream).
    """

    __slots__ = ("_random",)

    def __init__(self, source: random.Random) -> None:
        self._random = source

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, got {n}")
        return self._random.randrange(n)

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self._random.shuffle(items)

    def choice(self, items: Sequence[T]) -> T:
        return self._random.choice(items)

    def substream(self, label: str) -> SimpleRng:
        return self
