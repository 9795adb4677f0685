"""Mergeable counts: what the audit keeps of every match, as sums only.

A Tally is a monoid: ``Tally()`` is empty and ``a.merge(b)`` adds b's counts into a, so the work
splits over processes or a Dask cluster in any order and any grouping and gives the same
totals. Its size depends on the games, decks and players seen, never on the number of matches
(the failures' list aside: every failing bundle is named in the report).

Compiled (setup.py), a Tally and a PlayerTally are native classes that pickle as the pure ones
do (``mypyc_attr(serializable=True)``: their fields as a dict), so the process pool and Dask
hand them back whichever build a worker runs.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from functools import cache
from itertools import permutations
from typing import Any, Final

from fairdeal.games import DealtOrder, GamePlugin, get_plugin
from fairdeal.games.compiled import mypyc_attr

from .facts import MatchFacts

__all__ = ["TRIPLE_ORDERS", "Z_BINS", "PlayerTally", "Tally", "dealt_order", "plugin_of",
           "z_bin"]

def plugin_of(deck_key: str) -> GamePlugin:
    """The game whose deals a deck key groups (``"<game>"`` or ``"<game>/<variant>"``)."""
    return get_plugin(deck_key.split("/")[0])


def dealt_order(deck_key: str, order: str) -> DealtOrder:
    """The dealt order ``order`` of the game behind ``deck_key``: its items in table order (a
    position table has a row per item), their word and the test's title."""
    return plugin_of(deck_key).dealt_orders[order]


@cache
def _order_plan(deck_key: str, order: str
                ) -> tuple[str, dict[Any, int], tuple[tuple[int, Any], ...]]:
    """What counting one dealt order needs, worked out once per deck and order: the key of its
    counts, each item's row in the position table, and the three items whose relative order
    the permutation test follows, each with its row."""
    items = dealt_order(deck_key, order).items
    index = {item: i for i, item in enumerate(items)}
    return f"{deck_key}:{order}", index, tuple((index[item], item) for item in items[:3])


@cache
def _draw_index(deck_key: str) -> dict[Any, int]:
    return {item: i for i, item in enumerate(plugin_of(deck_key).draw_items)}


TRIPLE_ORDERS: Final[tuple[tuple[int, ...], ...]] = tuple(permutations(range(3)))
_TRIPLE_INDEX: Final = {order: i for i, order in enumerate(TRIPLE_ORDERS)}
#: hand-strength z-scores are kept as a histogram of 32 bins of 0.25 from -4 to 4
Z_BINS: Final = 32
_LOW_255: Final = (1 << 255) - 1


def z_bin(z: float) -> int:
    """The histogram bin of a z-score (the outermost bins take the tails)."""
    return min(Z_BINS - 1, max(0, math.floor((z + 4.0) * 4)))


@mypyc_attr(serializable=True)
@dataclass
class PlayerTally:
    """One player's seatings."""

    matches: int = 0
    first: int = 0
    hands: int = 0
    z_sum: float = 0.0
    z_hist: list[int] = field(default_factory=lambda: [0] * Z_BINS)
    #: matches created with this player and never sealed (from the ledger only)
    created: int = 0
    unsealed: int = 0

    def merge(self, other: PlayerTally) -> None:
        self.matches += other.matches
        self.first += other.first
        self.hands += other.hands
        self.z_sum += other.z_sum
        self.created += other.created
        self.unsealed += other.unsealed
        _add_lists(self.z_hist, other.z_hist)


def _first(seen: list[int], order: list[Any], wanted: tuple[int, Any]) -> int:
    """Where the item of ``wanted`` (its row, the item) first comes in ``order``: noted in
    ``seen`` for the first three rows, else found by ``list.index`` (an item the table names
    twice; an item never dealt raises its ValueError)."""
    row, item = wanted
    if row < 3 and seen[row] >= 0:
        return seen[row]
    return order.index(item)


def _add_lists(into: list[Any], other: list[Any]) -> None:
    """Add ``other``'s counts into ``into``, element by element (lists of lists row by row).
    Counts of different shapes cannot be added: that is a ValueError, never a truncated sum."""
    if len(into) != len(other):
        raise ValueError(f"cannot add counts of {len(other)} entries into counts of "
                         f"{len(into)}")
    if other and isinstance(other[0], list):
        for mine, theirs in zip(into, other, strict=True):
            _add_lists(mine, theirs)
    else:
        into[:] = map(operator.add, into, other)


def _merge_keyed(into: dict[str, Any], other: dict[str, Any]) -> None:
    for key, value in other.items():
        mine = into.get(key)
        if mine is None:
            into[key] = _copy(value)
        elif isinstance(value, dict):
            for item, count in value.items():
                mine[item] = mine.get(item, 0) + count
        else:
            _add_lists(mine, value)


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        # a table's rows one by one; a flat list of counts (numbers) in one copy
        return ([_copy(item) for item in value] if value and isinstance(value[0], list)
                else list(value))
    if isinstance(value, dict):
        return dict(value)
    return value


@mypyc_attr(serializable=True)
@dataclass
class Tally:
    """Every count the statistics need (see the module doc)."""

    matches: int = 0
    #: (where the bundle came from, why it failed), in the order met
    failures: list[tuple[str, str]] = field(default_factory=list)
    #: bundles that passed no filter
    skipped: int = 0
    #: verified matches that ended before any deal (a seed committed and never revealed)
    undealt: int = 0
    #: per game: how often each seat moved first
    first: dict[str, list[int]] = field(default_factory=dict)
    #: per "deck_key:order": item × position counts
    positions: dict[str, list[list[int]]] = field(default_factory=dict)
    #: per "deck_key:order": how often each relative order of the first three items came
    triples: dict[str, list[int]] = field(default_factory=dict)
    #: per deck_key: card counts of the infinite deck's draws
    draws: dict[str, list[int]] = field(default_factory=dict)
    #: per "game:purpose:n": how often each value in [0, n) was picked
    picks: dict[str, list[int]] = field(default_factory=dict)
    #: per deck_key and seat: [hands, sum of z, sum of z²]
    seat_z: dict[str, list[list[float]]] = field(default_factory=dict)
    #: per deck_key: [hands, sum, sum of squares] of seat A's z minus seat B's (paired)
    seat_diff: dict[str, list[float]] = field(default_factory=dict)
    #: per deck_key and seat: raw hand strength -> count (for the plots)
    seat_raw: dict[str, list[dict[int, int]]] = field(default_factory=dict)
    #: by player name: the seats that signed with no key (a name is only a label)
    players: dict[str, PlayerTally] = field(default_factory=dict)
    #: by seat key id: the seats that signed with a key (the identity nobody else can use)
    keys: dict[str, PlayerTally] = field(default_factory=dict)
    #: by seat key id: the names it sat under, with how many seats each (labels)
    key_names: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the revealed server seeds: [seeds, one bits, transitions between neighbouring bits]
    seeds: list[int] = field(default_factory=lambda: [0, 0, 0])
    #: first and last genesis time (ms) among the counted matches
    span: list[int] = field(default_factory=list)
    #: bundles sealed under a key the audit does not count as its own (``Filters.signers``),
    #: by public key: listed apart, never mixed into these counts
    apart: dict[str, int] = field(default_factory=dict)
    #: with ``Filters.each_key``: those other keys' matches, each key tallied on its own
    by_key: dict[str, Tally] = field(default_factory=dict)

    # --- adding one match ------------------------------------------------------------------

    def add(self, facts: MatchFacts, ts: int) -> None:
        """Count one verified match whose genesis is stamped ``ts``."""
        self.matches += 1
        self.span = [min(self.span[0], ts), max(self.span[1], ts)] if self.span else [ts, ts]
        seats = len(facts.players)
        # each table is made the first time its key is met (get, not setdefault: no table is
        # built per match only to be thrown away)
        first = self.first.get(facts.game)
        if first is None:
            first = self.first[facts.game] = [0] * seats
        first[facts.first_seat] += 1
        for name, order in facts.orders.items():
            self._add_order(facts.deck_key, name, order)
        if facts.draws:
            index = _draw_index(facts.deck_key)
            drawn = self.draws.get(facts.deck_key)
            if drawn is None:
                drawn = self.draws[facts.deck_key] = [0] * len(index)
            for item in facts.draws:
                drawn[index[item]] += 1
        for purpose, n, value in facts.picks:
            key = f"{facts.game}:{purpose}:{n}"
            counts = self.picks.get(key)
            if counts is None:
                counts = self.picks[key] = [0] * n
            counts[value] += 1
        if facts.hand_z is not None and facts.hand_raw is not None:
            sums = self.seat_z.get(facts.deck_key)
            if sums is None:
                sums = self.seat_z[facts.deck_key] = [[0, 0.0, 0.0] for _ in range(seats)]
            raws = self.seat_raw.get(facts.deck_key)
            if raws is None:
                raws = self.seat_raw[facts.deck_key] = [{} for _ in range(seats)]
            for seat, (z, raw) in enumerate(zip(facts.hand_z, facts.hand_raw, strict=True)):
                sums[seat][0] += 1
                sums[seat][1] += z
                sums[seat][2] += z * z
                raws[seat][raw] = raws[seat].get(raw, 0) + 1
            diff = facts.hand_z[0] - facts.hand_z[1]
            paired = self.seat_diff.get(facts.deck_key)
            if paired is None:
                paired = self.seat_diff[facts.deck_key] = [0, 0.0, 0.0]
            paired[0] += 1
            paired[1] += diff
            paired[2] += diff * diff
        for seat, name in enumerate(facts.players):
            player = self._player(name, facts.seat_keys[seat] if seat < len(facts.seat_keys)
                                  else None)
            player.matches += 1
            player.first += seat == facts.first_seat
            if facts.hand_z is not None:
                z = facts.hand_z[seat]
                player.hands += 1
                player.z_sum += z
                player.z_hist[z_bin(z)] += 1
        seed = int.from_bytes(facts.server_seed, "big")
        self.seeds[0] += 1
        self.seeds[1] += seed.bit_count()
        self.seeds[2] += ((seed ^ (seed >> 1)) & _LOW_255).bit_count()

    def _add_order(self, deck_key: str, name: str, order: list[Any]) -> None:
        key, index, wanted = _order_plan(deck_key, name)
        table = self.positions.get(key)
        if table is None:
            table = self.positions[key] = [[0] * len(order) for _ in index]
        # one pass over the whole dealt order per match (102 cards), which also notes where
        # each of the first three rows' items first comes (a plain loop: compiled, it runs in
        # C; interpreted, no slower than looking the rows up in bulk and scanning thrice)
        seen = [-1, -1, -1]
        for position, item in enumerate(order):
            row = index[item]
            counts = table[row]
            counts[position] += 1
            if row < 3 and seen[row] < 0:
                seen[row] = position
        # the permutation test follows the relative order of the first three items, ties (an
        # item named twice) in item order
        firsts = (_first(seen, order, wanted[0]), _first(seen, order, wanted[1]),
                  _first(seen, order, wanted[2]))
        ranked = tuple(sorted(range(3), key=firsts.__getitem__))
        triples = self.triples.get(key)
        if triples is None:
            triples = self.triples[key] = [0] * len(TRIPLE_ORDERS)
        triples[_TRIPLE_INDEX[ranked]] += 1

    def fail(self, where: str, reason: str) -> None:
        """A bundle that failed verification: named in the report, left out of the counts."""
        self.failures.append((where, reason))

    def _player(self, name: str, kid: str | None) -> PlayerTally:
        """Whom a seat counts for: its key when it signed with one (its name then a label of
        the key), else its name."""
        if kid is None:
            player = self.players.get(name)
            if player is None:
                player = self.players[name] = PlayerTally()
            return player
        labels = self.key_names.setdefault(kid, {})
        labels[name] = labels.get(name, 0) + 1
        player = self.keys.get(kid)
        if player is None:
            player = self.keys[kid] = PlayerTally()
        return player

    def count_unsealed(self, name: str, created: int, unsealed: int) -> None:
        """The ledger's count of matches created with ``name`` at a seat that signed with no
        key, and of those never sealed."""
        player = self.players.setdefault(name, PlayerTally())
        player.created += created
        player.unsealed += unsealed

    def count_unsealed_key(self, kid: str, created: int, unsealed: int) -> None:
        """The ledger's count of matches a seat key signed a seat of, and of those never
        sealed."""
        player = self.keys.setdefault(kid, PlayerTally())
        player.created += created
        player.unsealed += unsealed

    def identities(self) -> dict[str, PlayerTally]:
        """Every player, by how the report names it: ``key <key id> (as ann, annie)`` for a
        seat key (its names as labels), the name for seats that signed with none."""
        named = {f"key {kid} (as {', '.join(sorted(self.key_names.get(kid, {}))) or '?'})":
                 record for kid, record in self.keys.items()}
        # a name written like a key's label is still only a name: it is quoted as one
        return {**named, **{(name if name not in named else f"name {name!r}"): record
                            for name, record in self.players.items()}}

    # --- merging ---------------------------------------------------------------------------

    def merge(self, other: Tally) -> Tally:
        """Add ``other``'s counts into this tally and return it."""
        self.matches += other.matches
        self.skipped += other.skipped
        self.undealt += other.undealt
        self.failures.extend(other.failures)
        if other.span:
            self.span = ([min(self.span[0], other.span[0]), max(self.span[1], other.span[1])]
                         if self.span else list(other.span))
        for mine, theirs in ((self.first, other.first), (self.positions, other.positions),
                             (self.triples, other.triples), (self.draws, other.draws),
                             (self.picks, other.picks), (self.seat_z, other.seat_z),
                             (self.seat_diff, other.seat_diff)):
            _merge_keyed(mine, theirs)
        for key, seats in other.seat_raw.items():
            mine_seats = self.seat_raw.setdefault(key, [{} for _ in seats])
            for into, counts in zip(mine_seats, seats, strict=True):
                for raw, count in counts.items():
                    into[raw] = into.get(raw, 0) + count
        for name, player in other.players.items():
            self.players.setdefault(name, PlayerTally()).merge(player)
        for kid, player in other.keys.items():
            self.keys.setdefault(kid, PlayerTally()).merge(player)
        for kid, labels in other.key_names.items():
            mine_labels = self.key_names.setdefault(kid, {})
            for name, count in labels.items():
                mine_labels[name] = mine_labels.get(name, 0) + count
        _add_lists(self.seeds, other.seeds)
        for key, count in other.apart.items():
            self.apart[key] = self.apart.get(key, 0) + count
        for key, tally in other.by_key.items():
            self.by_key.setdefault(key, Tally()).merge(tally)
        return self
