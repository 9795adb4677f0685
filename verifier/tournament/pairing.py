"""Pairings, a pure function of the field, the lots and the rounds so far (docs/tournaments.md
§4, normative): the server cannot steer who meets whom, and the verifier re-derives every round.

- Round-robin: the Berger tables of FIDE Handbook C.05, Annex 1.
- Swiss (``fairdeal-swiss/1``): specified in ``pair_swiss``'s docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..canonical import canonical_bytes
from ..hashing import tagged_hash
from .model import Field, History, Pairing, Points, Round
from .primitives import TournamentTag, lot
from .standings import scores

__all__ = ["CHUNK", "SWISS", "PairingImpossible", "berger_table", "check_rounds", "lot_order",
           "pair_round", "pair_swiss", "total_rounds"]


def lot_order(field: Field) -> list[str]:
    """The players in the order of their lots (ascending): the draw of lots."""
    return sorted(field.players, key=lambda player: lot(field.lots, player))


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """The Berger table for ``n`` players (n even): for each of its n-1 rounds, the pairs
    (seat 0, seat 1) by player number 1…n, in the table's order.

    Round r lists player n against the first of a cyclic order of 1…n-1 (player n has seat 1
    in odd rounds, seat 0 in even ones), then the k-th of that order against the (n-1-k)-th,
    the k-th with seat 0. Each round's order starts n/2 places further on than the last's.
    """
    if n < 2 or n % 2:
        raise ValueError(f"a Berger table needs an even number of players, not {n}")
    others = n - 1
    start = 0
    table = []
    for number in range(1, n):
        order = [(start + k) % others + 1 for k in range(others)]
        first = (order[0], n) if number % 2 else (n, order[0])
        table.append([first] + [(order[k], order[others - k]) for k in range(1, n // 2)])
        start = (start + n // 2) % others
    return table


def total_rounds(system: str, players: int, rounds: int) -> int:
    """How many rounds a tournament of ``players`` plays: the header's ``rounds`` for a Swiss;
    for a round-robin, ``rounds`` cycles of the Berger table (n-1 rounds, n when n is odd)."""
    if system == "round-robin":
        return (players - 1 + players % 2) * rounds
    return rounds


def check_rounds(system: str, players: int, rounds: int) -> None:
    """Refuse, at ``start``, a field too small for its header (``ValueError`` saying why): a
    tournament needs two players, and a Swiss of n players at most n-1 rounds — after n-1
    rounds everyone has met everyone, so the next could only be a rematch. (A Swiss can run out
    of pairings before that; ``pair_swiss`` then raises ``PairingImpossible``.)"""
    if players < 2:
        raise ValueError(f"a tournament needs at least 2 players, it has {players}")
    if system == "swiss" and rounds > players - 1:
        raise ValueError(f"a Swiss of {players} players can have at most {players - 1} rounds"
                         f" without a rematch, not {rounds}")


def pair_round(system: str, field: Field, number: int, history: History,
               points: Points) -> Round:
    """Round ``number``'s pairings (1-based) after ``history``."""
    if system == "round-robin":
        return _round_robin(field, number, history)
    return pair_swiss(field, number, history, points)


def _round_robin(field: Field, number: int, history: History) -> Round:
    drawn = lot_order(field)
    n = len(drawn) + len(drawn) % 2
    table = berger_table(n)
    cycle, index = divmod(number - 1, n - 1)
    pairings: list[Pairing] = []
    byes: list[str] = []
    for white, black in table[index]:
        if cycle % 2:
            white, black = black, white
        if max(white, black) > len(drawn):  # the odd field's phantom player: a bye
            byes.append(drawn[min(white, black) - 1])
            continue
        seats = (drawn[white - 1], drawn[black - 1])
        absent = [player for player in seats
                  if history.withdrawn.get(player, number + 1) <= number]
        if absent:
            continue  # a withdrawn player's games are not paired (forfeits are results)
        pairings.append(Pairing(len(pairings) + 1, seats))
    return Round(number, tuple(pairings), tuple(byes))


class PairingImpossible(ValueError):
    """No pairing of the round satisfies the rules (no rematch, one bye a player at most): the
    ledger refuses to start the round (409) and the verifier names it. ``round`` is its
    number."""

    def __init__(self, number: int, reason: str) -> None:
        super().__init__(f"round {number} cannot be paired: {reason}")
        self.round = number


#: the Swiss's name and version, part of what the verifier re-derives
SWISS: Final = "fairdeal-swiss/1"
#: players per half of one matching: a bracket is matched in chunks of at most 2·CHUNK
CHUNK: Final = 8
#: a seat wish's strengths: none, mild (alternation), strong (one game off), absolute
_NONE, _MILD, _STRONG, _ABSOLUTE = 0, 1, 2, 3


@dataclass(frozen=True)
class _Wish:
    """The seat a player wants next (0, 1, or -1 for none) and how much."""

    seat: int
    strength: int
    balance: int  # seat-0 games minus seat-1 games
    seats: tuple[int, ...]  # its seats so far, round order


def _wish(seats: tuple[int, ...]) -> _Wish:
    balance = seats.count(0) - seats.count(1)
    if not seats:
        return _Wish(-1, _NONE, 0, seats)
    if abs(balance) >= 2:
        return _Wish(1 if balance > 0 else 0, _ABSOLUTE, balance, seats)
    if len(seats) >= 2 and seats[-1] == seats[-2]:
        return _Wish(1 - seats[-1], _ABSOLUTE, balance, seats)
    if balance:
        return _Wish(1 if balance > 0 else 0, _STRONG, balance, seats)
    return _Wish(1 - seats[-1], _MILD, balance, seats)


def _first_gets_wish(first: _Wish, second: _Wish, number: int) -> bool:
    """Both want the same seat: does ``first`` (the higher-ranked) get it? The stronger wish,
    then the larger imbalance, then the one who had the other seat in the latest round where
    their seats differ (counting back from each one's last game), then the higher-ranked in odd
    rounds and the lower-ranked in even ones."""
    if first.strength != second.strength:
        return first.strength > second.strength
    if abs(first.balance) != abs(second.balance):
        return abs(first.balance) > abs(second.balance)
    for mine, theirs in zip(reversed(first.seats), reversed(second.seats), strict=False):
        if mine != theirs:
            return mine != first.seat
    return number % 2 == 1


def _assign_seats(first: str, second: str, wishes: dict[str, _Wish],
                 number: int) -> tuple[tuple[str, str], int]:
    """The seats of a pair (``first`` the higher-ranked) and the strength of the wish it
    denies (0 when both get the seat they want, or want none)."""
    one, two = wishes[first], wishes[second]
    if one.seat < 0 and two.seat < 0:
        seat = 0 if number % 2 == 1 else 1  # first's seat
        denied = 0
    elif two.seat < 0 or (one.seat >= 0 and one.seat != two.seat):
        seat, denied = one.seat, 0
    elif one.seat < 0:
        seat, denied = 1 - two.seat, 0
    elif _first_gets_wish(one, two, number):
        seat, denied = one.seat, two.strength
    else:
        seat, denied = 1 - two.seat, one.strength
    return ((first, second) if seat == 0 else (second, first)), denied


@dataclass(frozen=True)
class _Swiss:
    """What a round's pairing reads: ranks, scores, who met whom, seat wishes."""

    number: int
    lots: bytes
    rank: dict[str, int]
    score: dict[str, int]
    met: frozenset[frozenset[str]]
    wishes: dict[str, _Wish]

    def tie(self, first: str, second: str) -> int:
        """The 64-bit tie term of a pair: ``H("tournament-pairing", lots ‖ canonical([round,
        smaller key id, larger key id]))``'s first 8 bytes, big-endian."""
        low, high = sorted((first, second))
        digest = tagged_hash(TournamentTag.PAIRING,
                             self.lots + canonical_bytes([self.number, low, high]))
        return int.from_bytes(digest[:8], "big")


def _weights(group: list[str], swiss: _Swiss, strict: bool) -> list[tuple[int, int, int]]:
    """The edges (i, j, weight) of a group's matching, i < j positions in rank order.

    The weight is lexicographic, highest first: cover (2^(m-1-i) + 2^(m-1-j): the set of
    players paired, read as a binary number with the best-ranked first, is as high as it can
    be, so the lowest-ranked float), score (the largest squared score difference in the group
    minus this pair's), seat (3 minus the strength of the wish the pair denies), order (m minus
    |j - i - m//2|: S1 against S2) and the tie term. Each level is scaled past the sum any
    matching can reach on the levels below. A rematch is no edge; with ``strict`` a pair that
    would deny an absolute wish is none either.
    """
    size = len(group)
    if size < 2:
        return []
    points = [swiss.score[player] for player in group]
    spread = (max(points) - min(points)) ** 2
    pairs = size // 2 + 1  # more than a matching's edges
    levels = (1 << 64, size + 1, 4, spread + 1)  # the ranges of tie, order, seat, score
    # the seat each wants absolutely (-1: none): a pair denies an absolute wish exactly when
    # both want the same seat absolutely, refused here before the dearer checks
    absolute = [swiss.wishes[player].seat if swiss.wishes[player].strength == _ABSOLUTE
                else -1 for player in group] if strict else [-1] * size
    edges = []
    for i, first in enumerate(group):
        for j in range(i + 1, size):
            if absolute[i] >= 0 and absolute[i] == absolute[j]:
                continue
            second = group[j]
            if frozenset((first, second)) in swiss.met:
                continue
            _, denied = _assign_seats(first, second, swiss.wishes, swiss.number)
            terms = (swiss.tie(first, second), size - abs(j - i - size // 2), 3 - denied,
                     spread - (points[i] - points[j]) ** 2)
            weight, scale = 0, 1
            for term, level in zip(terms, levels, strict=True):
                weight += term * scale
                scale *= level * pairs
            cover = (1 << (size - 1 - i)) + (1 << (size - 1 - j))
            edges.append((i, j, weight + cover * scale))
    return edges


def _match(group: list[str], swiss: _Swiss, strict: bool) -> tuple[list[tuple[str, str]],
                                                                  list[str]]:
    """A maximum-weight matching of maximum cardinality over ``group`` (in rank order): its
    pairs (higher-ranked first) and the players left unpaired, in rank order."""
    # imported here, not above: every process that stores a match imports this module (the
    # ledger's tournaments), and networkx costs each a fifth of a second it rarely needs
    import networkx  # type: ignore[import-untyped]

    graph = networkx.Graph()
    graph.add_nodes_from(range(len(group)))
    graph.add_weighted_edges_from(_weights(group, swiss, strict))
    matched: set[tuple[int, int]] = networkx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matched)
    paired = {i for pair in pairs for i in pair}
    return ([(group[i], group[j]) for i, j in pairs],
            [player for i, player in enumerate(group) if i not in paired])


def _chunks(group: list[str]) -> list[list[str]]:
    """A bracket cut into S1/S2-aligned chunks of at most 2·CHUNK (+1) players: the k-th
    CHUNK of its top half with the k-th CHUNK of its bottom half (the last takes the rest)."""
    half = len(group) // 2
    if len(group) <= 2 * CHUNK:
        return [group]
    count = -(-half // CHUNK)
    top, bottom = group[:half], group[half:]
    return [top[k * CHUNK:(k + 1) * CHUNK]
            + (bottom[k * CHUNK:(k + 1) * CHUNK] if k < count - 1 else bottom[k * CHUNK:])
            for k in range(count)]


def _by_brackets(players: list[str], swiss: _Swiss) -> tuple[list[tuple[str, str]], list[str]]:
    """Stage 1: score brackets top-down, each with the players floated into it, chunk by
    chunk; who is left of a chunk joins the next chunk, or floats to the next bracket. The
    floaters are cut into the chunks with the bracket (they head its S1), not all added to
    its first chunk: a whole bracket floating down (say, everyone in it wants seat 1
    absolutely) then meets the next bracket 8 by 8, not as one matching of hundreds."""
    pairs: list[tuple[str, str]] = []
    carried: list[str] = []
    brackets: dict[int, list[str]] = {}
    for player in players:
        brackets.setdefault(swiss.score[player], []).append(player)
    for bracket in brackets.values():  # in rank order, so best score first
        floated, carried = carried, []
        for chunk in _chunks(floated + bracket):
            # the chunk's leftovers join the next chunk; the last chunk's float down
            members = sorted({*carried, *chunk}, key=swiss.rank.__getitem__)
            got, carried = _match(members, swiss, strict=True)
            pairs.extend(got)
    return pairs, carried


def _floated_up(pairs: list[tuple[str, str]], left: list[str],
                swiss: _Swiss) -> list[tuple[str, str]] | None:
    """Stage 2a, when stage 1 left players unpaired (typically a bottom bracket whose players
    all want the same seat absolutely, as when one seat wins most games): partners float up to
    them, a few at a time, so no matching spans the field. The unpaired, in rank order, are
    taken CHUNK at a time, with those the try before left unpaired; each try undoes the last k
    pairs not undone yet and matches their players with these as one group (stage 1's
    weights, absolute wishes refused), k starting at half the players it has to pair (rounded
    up: enough partners if all fit) and doubling while someone is left unpaired, k < CHUNK
    and pairs remain. Who is still unpaired joins the next try. None when players are still
    unpaired once every pair was undone: stage 2b (``_repaired``) then decides."""
    kept = list(pairs)
    made: list[tuple[str, str]] = []
    waiting = list(left)
    carried: list[str] = []
    while waiting or carried:
        if not kept:
            return None
        needing = carried + waiting[:CHUNK]
        waiting = waiting[CHUNK:]
        undone = (len(needing) + 1) // 2
        while True:
            cut = max(len(kept) - undone, 0)
            freed = (player for pair in kept[cut:] for player in pair)
            group = sorted({*needing, *freed}, key=swiss.rank.__getitem__)
            got, carried = _match(group, swiss, strict=True)
            if not carried or not cut or undone >= CHUNK:
                break
            undone *= 2
        kept = kept[:cut]
        made.extend(got)
    return kept + made


def _repaired(pairs: list[tuple[str, str]], left: list[str], swiss: _Swiss,
              strict: bool) -> list[tuple[str, str]] | None:
    """Stage 2b, when stage 2a could not pair everyone: undo the last k pairs stage 1 made
    (k = 1, 2, 4, …; the lowest brackets') and match their players with the unpaired ones as
    one group, until everyone is paired; the last try is the whole field. None when even that
    leaves someone unpaired."""
    undone = 1
    while True:
        kept = pairs[:max(len(pairs) - undone, 0)]
        group = sorted({*left, *(player for pair in pairs[len(kept):] for player in pair)},
                       key=swiss.rank.__getitem__)
        got, unpaired = _match(group, swiss, strict)
        if not unpaired:
            return kept + got
        if not kept:
            return None
        undone *= 2


def _pair_without(players: list[str], swiss: _Swiss) -> list[tuple[str, str]] | None:
    """Stages 1 and 2 for the players but the bye; stage 2b first refuses pairs that deny an
    absolute seat wish, as stage 1 does, and only when no such pairing of the whole field
    exists weighs them instead."""
    pairs, left = _by_brackets(players, swiss)
    if not left:
        return pairs
    return (_floated_up(pairs, left, swiss) or _repaired(pairs, left, swiss, strict=True)
            or _repaired(pairs, left, swiss, strict=False))


def _history_before(history: History, number: int) -> History:
    return History(tuple(paired for paired in history.rounds if paired.number < number),
                   tuple(outcome for outcome in history.outcomes if outcome.round < number),
                   history.withdrawn, history.penalties)


def _swiss_state(field: Field, number: int, history: History,
                 points: Points) -> tuple[_Swiss, list[str], set[str]]:
    """The round's inputs: the context, the active players in rank order, and the players who
    won by forfeit (last in line for the bye, as a point without a game already)."""
    score = scores(field, history, points)
    active = [player for player in field.players
              if history.withdrawn.get(player, number + 1) > number]
    ranked = sorted(active, key=lambda player: (-score[player], lot(field.lots, player)))
    seats: dict[str, list[int]] = {player: [] for player in field.players}
    met = set()
    for paired in sorted(history.rounds, key=lambda paired: paired.number):
        for pairing in paired.pairings:
            met.add(frozenset(pairing.seats))
            for seat, player in enumerate(pairing.seats):
                seats.setdefault(player, []).append(seat)
    wishes = {player: _wish(tuple(seats.get(player, ()))) for player in active}
    swiss = _Swiss(number, field.lots, {player: i for i, player in enumerate(ranked)}, score,
                   frozenset(met), wishes)
    forfeit_won = {outcome.winner for outcome in history.outcomes
                   if outcome.kind == "forfeit" and outcome.winner is not None}
    return swiss, ranked, forfeit_won


def pair_swiss(field: Field, number: int, history: History, points: Points) -> Round:
    """The Swiss pairing ``fairdeal-swiss/1`` of round ``number`` (normative: the verifier
    re-derives every round with this function; docs/tournaments.md §4 is its summary).

    Inputs: the rounds, outcomes, withdrawals and penalties of ``history`` before round
    ``number`` (later ones are ignored; every penalty counts).

    1. Active players: the field minus those withdrawn from this round or earlier
       (``withdrawn[p] <= number``). Rank order: score (``standings.scores``, penalties
       deducted) descending, then lot (``primitives.lot``) ascending. Round 1: all score 0.
    2. Met: two players met if any earlier round paired them, whatever the outcome (a forfeit
       or double forfeit means a withdrawal, and a withdrawn player is never paired again).
       No pair ever meets twice.
    3. Seat wishes, from each player's seats in its earlier pairings (byes have no seat):
       none before its first game; absolute when seat-0 games minus seat-1 games is ±2 or
       beyond (it wants the seat that evens it) or its last two seats were the same (it wants
       the other); else strong when the difference is ±1; else mild: the seat it did not have
       last. A pair's seats (``_assign_seats``): each gets its wish when they differ; when both
       want the same seat the stronger wish gets it, then the larger imbalance, then the one
       who had the other seat in the latest game where their seats differ, then the
       higher-ranked in odd rounds, the lower in even ones; with no wish on either side, the
       higher-ranked has seat 0 in odd rounds, seat 1 in even ones.
    4. The bye, when the active field is odd: candidates are the active players who have had
       no bye, those without a forfeit win first, each group lowest-ranked first. The first
       candidate whose removal leaves the rest pairable (steps 5-6) gets it; none: raise
       ``PairingImpossible``. A player never has two byes.
    5. Stage 1, brackets: the players in rank order are cut into score brackets; from the top,
       a bracket together with the players floated into it (they rank above it) is cut into
       chunks (``_chunks``: the k-th 8 of its top half S1 with the k-th 8 of its bottom half
       S2; the floaters are among them, heading S1) and each chunk, with the players the
       bracket's chunk before left over, is paired by one maximum-weight matching of maximum
       cardinality (``_weights`` defines the weights: the highest-ranked paired first, then the
       smallest squared score differences, then the seat wishes, then S1 against S2, then a
       64-bit tie term from the lots). Rematches are no edges, nor pairs that would deny an
       absolute seat wish. The players left unpaired float: into the next chunk, or the next
       bracket (where they are cut into its chunks, not all added to its first).
    6. Stage 2, when players are left after the last bracket. 2a (``_floated_up``): partners
       float up to them — the unpaired, in rank order, are taken 8 at a time with those the try
       before left unpaired, and each try undoes the last k pairs not yet undone and matches
       their players with these in one matching (stage 1's weights, absolute wishes refused),
       k starting at half the players it has to pair (rounded up) and doubling while someone
       is left unpaired, k < 8 and pairs remain; who is still unpaired joins the next try. It
       succeeds when no one is left unpaired before the pairs run out. Else 2b
       (``_repaired``), from stage 1's pairs: the lowest k pairs re-paired with the unpaired
       in one matching, doubling k up to the whole field, refusing pairs that deny an absolute
       wish; if even the whole field cannot be paired so, again from k = 1 with such pairs
       weighed (the seat level) instead of refused. Whenever a pairing of the players without
       rematches exists, that last whole-field matching finds one (it is of maximum
       cardinality), so the procedure ends, and pairs everyone whenever that is possible.
    7. Tables: the pairs ordered by their higher-ranked player's rank, numbered from 1; the
       seats as in step 3.

    Determinism: nothing depends on the order of ``field.players``, dicts or sets; networkx
    is handed nodes and edges in rank order, and two different matchings have equal weight
    only if their tie terms' sums are equal, which the 64-bit terms make a chance of the
    order of 2^-64 for any two candidates (the residual: then networkx's own, deterministic
    but unspecified, choice decides).
    """
    return _paired_swiss(field, number, history, points)


def _paired_swiss(field: Field, number: int, history: History, points: Points) -> Round:
    """``pair_swiss``'s steps: the bye's candidates in order, the first that pairs wins."""
    swiss, ranked, forfeit_won = _swiss_state(field, number, _history_before(history, number),
                                              points)
    byes = {player for paired in history.rounds if paired.number < number
            for player in paired.byes}
    if len(ranked) % 2 == 0:
        candidates: list[str | None] = [None]
    else:
        lowest_first = [player for player in reversed(ranked) if player not in byes]
        candidates = [*(player for player in lowest_first if player not in forfeit_won),
                      *(player for player in lowest_first if player in forfeit_won)]
    for bye in candidates:
        pairs = _pair_without([player for player in ranked if player != bye], swiss)
        if pairs is not None:
            return _tables(number, pairs, bye, swiss)
    if not candidates:
        raise PairingImpossible(number, f"all {len(ranked)} active players have had a bye")
    raise PairingImpossible(number, f"no pairing of the {len(ranked)} active players avoids a"
                            " rematch (a Swiss of n players has at most n-1 rounds, and can"
                            " run out of pairings sooner)")


def _tables(number: int, pairs: list[tuple[str, str]], bye: str | None,
            swiss: _Swiss) -> Round:
    ordered = sorted(pairs, key=lambda pair: min(swiss.rank[pair[0]], swiss.rank[pair[1]]))
    pairings = []
    for table, (first, second) in enumerate(ordered, start=1):
        if swiss.rank[second] < swiss.rank[first]:
            first, second = second, first
        seats, _ = _assign_seats(first, second, swiss.wishes, number)
        pairings.append(Pairing(table, seats))
    return Round(number, tuple(pairings), (bye,) if bye is not None else ())
