"""What a game package gives fairdeal besides its rules: the plug-in seam (docs/architecture.md).

A game is found through the ``fairdeal.games`` entry-point group: each entry point names a
``GamePlugin`` (``arcomage = "fairdeal.games.arcomage.plugin:PLUGIN"``). The plug-in carries the
game's rules (``game``, every replayable version in ``versions``, the bots) and every per-game
fact the layers above need, so that none of them names a game:

- the audit: what is dealt and in which positions (``deck_key``, ``dealt_orders``,
  ``read_deal``), how strong an opening hand is (``hand_values``), which random picks to record
  (``replays_play``, ``setup_picks``, ``draws_from_picks``);
- the dispute report: the rule or card text it quotes beside a move (``quote``);
- ``fairdeal simulate``: the options it offers (``simulate_options``, ``turn_limit_note``);
- the viewer: how its result reasons are said to players (``reason_words``, ``draw_words``),
  what a spectator of a match in play is told stays hidden (``live_secrecy``), and the facts of
  a match's parameters its page lists (``match_facts``);
- the secrecy tests: a state whose hidden parts differ (``hidden_changed``).

Every hook has a default that suits a game which deals nothing, so a new game overrides only
what it has. Plug-ins are pure, like the rules: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .base import JSON, Bot, Game

__all__ = ["DealFacts", "DealtOrder", "GamePlugin", "SimulateOption"]


@dataclass(frozen=True)
class DealtOrder:
    """One order the setup deals items in (a shuffled deck, one colour's army), for the audit's
    item × position test.

    ``items`` are the distinct items, in the table's row order; ``item_word`` names one in a
    report (``"card"``); ``title`` is the test's title, with ``{deck}`` and ``{order}`` filled
    in; ``bins`` groups positions into the test's columns (None: one column per position).
    The report's heat map labels its rows ``axis_label`` (default: ``item_word``), one tick per
    item if ``labelled_rows``, and is ``plot_height`` inches tall."""

    items: tuple[Any, ...]
    item_word: str
    title: str
    bins: tuple[tuple[int, int], ...] | None = None
    axis_label: str = ""
    labelled_rows: bool = True
    plot_height: float = 2.8


@dataclass
class DealFacts:
    """What a game's first state says about its deal (``GamePlugin.read_deal``).

    ``orders``: each dealt order by name, every item in deal order. ``draws``: items drawn with
    replacement (counted by ``GamePlugin.draw_items``). ``hand_totals`` and ``hand_sizes``: each
    seat's opening-hand strength and how many values it sums, drawn from ``hand_values`` with
    or without ``replacement`` (None: the game deals no hands)."""

    orders: dict[str, list[Any]] = field(default_factory=dict)
    draws: list[Any] = field(default_factory=list)
    hand_totals: tuple[int, ...] | None = None
    hand_sizes: tuple[int, ...] | None = None
    replacement: bool = False


@dataclass(frozen=True)
class SimulateOption:
    """A ``fairdeal simulate`` option that sets one game parameter (``--board``).

    ``help`` is the option's help text; ``choices`` limits its values; ``for_whom`` ends the
    error when it is given for another game (``"--board is for Toy Battle"``)."""

    name: str
    help: str
    for_whom: str
    choices: tuple[str, ...] | None = None


class GamePlugin:
    """A game as fairdeal loads it: its rules and its per-game hooks (see the module doc).

    A game package subclasses this (or makes one with the rules and bots) and names the
    instance in its ``fairdeal.games`` entry point."""

    def __init__(self, game: Game, bots: Callable[[], Mapping[str, Bot]], *,
                 versions: Mapping[str, Game] | None = None) -> None:
        self.game = game
        #: every rules version this code replays, oldest first; the newest is ``game``
        self.versions: dict[str, Game] = dict(versions or {})
        self.versions.setdefault(game.rules_version, game)
        self._bots = bots

    @property
    def name(self) -> str:
        """The registry name (the entry point's name must be the same)."""
        return self.game.name

    @property
    def title(self) -> str:
        """The game's human title."""
        return self.game.title

    def bots(self) -> dict[str, Bot]:
        """The simulation bots, by bot name (``random``, ``greedy`` ...)."""
        return dict(self._bots())

    # --- simulate ------------------------------------------------------------------------

    #: the options ``fairdeal simulate`` offers for this game's parameters
    simulate_options: tuple[SimulateOption, ...] = ()
    #: a few words for ``--turn-limit``'s help when the rules fix the limit themselves
    turn_limit_note: str = ""

    # --- the audit -----------------------------------------------------------------------

    #: the orders ``read_deal`` fills, by name
    dealt_orders: Mapping[str, DealtOrder] = {}
    #: the items ``DealFacts.draws`` are drawn from, in the draw test's order
    draw_items: tuple[Any, ...] = ()
    #: the setup may pick at random (record its picks as ``"setup"``)
    setup_picks: bool = False

    def deck_key(self, params: Mapping[str, JSON]) -> str:
        """The group a match's deals are compared within: the game's name, or its name and a
        variant after a ``/`` (``"<game>/infinite"``)."""
        return self.name

    def read_deal(self, state: Any) -> DealFacts:
        """The deal, read off the match's first state (default: nothing dealt)."""
        return DealFacts()

    def hand_values(self) -> Sequence[float]:
        """The values an opening hand's strength sums, one per item of the full population."""
        return ()

    def replays_play(self, deck_key: str) -> bool:
        """Whether the audit replays the plays to record the rules' random picks."""
        return True

    def draws_from_picks(self, deck_key: str, picks: Sequence[tuple[str, int, int]]
                         ) -> list[Any]:
        """Items drawn during play, read off the recorded picks (purpose, n, value)."""
        return []

    # --- the viewer ----------------------------------------------------------------------

    #: how each of the game's own result reasons is said to players (the viewer): {winner}
    #: and {loser} are seat labels (timeouts and resigning are said by fairdeal itself)
    reason_words: Mapping[str, str] = {}
    #: the same for a draw's reasons
    draw_words: Mapping[str, str] = {}
    #: what the page of a match in play tells a spectator about what stays hidden until the
    #: seed is revealed: what is secret is the game's business (a game that hides nothing
    #: says so; the default promises nothing either way)
    live_secrecy: str = ("A spectator sees what the game shows everyone; the whole match is "
                         "replayed and checked once the seed is revealed at the end.")

    def match_facts(self, game: Game, params: Mapping[str, JSON]) -> list[tuple[str, str]]:
        """The facts of a match's parameters its page lists beside the badges, as
        (label, words) pairs in the order shown (default: none): ``game`` is the rules version
        the match is played under, ``params`` the genesis event's. Words for people, not ids.
        Never raises: parameters it cannot read give no facts."""
        return []

    # --- secrecy ------------------------------------------------------------------------

    def hidden_changed(self, state: Any, seen_by: int | None) -> Any | None:
        """``state`` with every part hidden from seat ``seen_by`` (None: a spectator) changed,
        the rest as it is: what a secrecy test compares against (a view, a drawing or a caption
        from ``seen_by`` must not change). None: the game offers no such state (default)."""
        return None

    # --- the dispute report --------------------------------------------------------------

    def quote(self, action: Any) -> str:
        """Text the dispute report adds after a move's description (`` — <effect>``), when
        the description does not quote its rule already."""
        return ""
