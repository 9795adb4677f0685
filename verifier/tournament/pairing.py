"""Pairings, a pure function of the field, the lots and the rounds so far (docs/tournaments.md
§4, normative): the server cannot steer who meets whom, and the verifier re-derives every round.

- Round-robin: the Berger tables of FIDE Handbook C.05, Annex 1.
- Swiss (``fairdeal-swiss/1``): specified in ``pair_swiss``'s docstring.
"""

from __future__ import annotations

from .model import Field, History, Pairing, Points, Round
from .primitives import lot

__all__ = ["berger_table", "lot_order", "pair_round", "total_rounds"]


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


def pair_swiss(field: Field, number: int, history: History, points: Points) -> Round:
    """The Swiss pairing ``fairdeal-swiss/1`` (to be written: issue 22)."""
    raise NotImplementedError("the Swiss pairing is not written yet")
