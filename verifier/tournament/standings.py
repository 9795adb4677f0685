"""Standings with their tie-breaks, computed from the counted outcomes, never stored
(docs/tournaments.md §5, normative). The ``final`` event's standings are re-computed by the
verifier, so every number here is an integer defined to the unit.

Units: scores in half-points (``Points``); Buchholz and median Buchholz in half-points;
Sonneborn-Berger in quarter-points (``2·Σ beaten + Σ drawn`` over half-point scores, the
classic ``Σ beaten + ½·Σ drawn`` doubled so it stays integral); direct encounter in half-points;
wins a count.

What counts as a game: only ``match`` outcomes were played over the board. Byes, forfeits and
double forfeits give points (or none) but no opponent, so they enter no tie-break.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .model import TIEBREAKS, Field, History, Outcome, Points, Standing
from .primitives import lot

__all__ = ["CrossCell", "CrossRow", "Crosstable", "counted_outcomes", "crosstable", "scores",
           "standings"]


def counted_outcomes(history: History) -> list[Outcome]:
    """The outcomes that count: one per table, the last given for a (round, pair of seats)
    (a replayed match's result replaces the first one), in the order first seen.

    Raises ``ValueError`` for an outcome whose winner is not one of its seats, or whose kind
    is unknown: standings are never computed from a result that cannot be.
    """
    last: dict[tuple[int, frozenset[str]], Outcome] = {}
    for outcome in history.outcomes:
        if outcome.kind not in ("match", "forfeit", "double-forfeit"):
            raise ValueError(f"outcome of round {outcome.round}: unknown kind {outcome.kind!r}")
        if outcome.winner is not None and outcome.winner not in outcome.seats:
            raise ValueError(f"outcome of round {outcome.round}: the winner {outcome.winner!r}"
                             f" is not one of its seats {list(outcome.seats)!r}")
        if outcome.kind == "forfeit" and outcome.winner is None:
            raise ValueError(f"outcome of round {outcome.round}: a forfeit names no winner")
        last[(outcome.round, frozenset(outcome.seats))] = outcome
    return list(last.values())


def _game_points(outcome: Outcome, player: str, points: Points) -> int:
    """What ``player`` scores from one of its outcomes."""
    if outcome.kind == "double-forfeit":
        return 0
    if outcome.kind == "forfeit":
        return points.forfeit_win if outcome.winner == player else 0
    if outcome.winner is None:
        return points.draw
    return points.win if outcome.winner == player else points.loss


def scores(field: Field, history: History, points: Points) -> dict[str, int]:
    """Every player's score in half-points after ``history``: its outcomes' points (a win, a
    draw, a loss, a forfeit win, 0 for a forfeit loss or a double forfeit), ``bye`` for each
    bye of its rounds, minus its penalties. Players outside the field are not scored."""
    total = {player: 0 for player in field.players}
    for outcome in counted_outcomes(history):
        for player in outcome.seats:
            if player in total:
                total[player] += _game_points(outcome, player, points)
    for paired in history.rounds:
        for player in paired.byes:
            if player in total:
                total[player] += points.bye
    for player, deducted in history.penalties.items():
        if player in total:
            total[player] -= deducted
    return total


@dataclass(frozen=True)
class _Game:
    """One game a player played over the board: the opponent and what the player scored."""

    opponent: str
    scored: int
    won: bool
    drawn: bool


def _games(field: Field, history: History, points: Points) -> dict[str, list[_Game]]:
    played: dict[str, list[_Game]] = {player: [] for player in field.players}
    for outcome in counted_outcomes(history):
        if outcome.kind != "match":
            continue
        for player, opponent in (outcome.seats, outcome.seats[::-1]):
            if player in played:
                played[player].append(_Game(opponent, _game_points(outcome, player, points),
                                            outcome.winner == player, outcome.winner is None))
    return played


def _plain_tiebreak(name: str, games: list[_Game], score: Mapping[str, int]) -> int:
    """A tie-break that needs only the player's own games and everyone's score."""
    opponents = sorted(score.get(game.opponent, 0) for game in games)
    if name == "buchholz":
        return sum(opponents)
    if name == "median-buchholz":
        return sum(opponents[1:-1]) if len(opponents) >= 3 else 0
    if name == "sonneborn-berger":
        return (2 * sum(score.get(game.opponent, 0) for game in games if game.won)
                + sum(score.get(game.opponent, 0) for game in games if game.drawn))
    if name == "wins":
        return sum(1 for game in games if game.won)
    raise ValueError(f"unknown tie-break {name!r} (one of {', '.join(TIEBREAKS)})")


def _direct_encounter(tied: Sequence[str], games: Mapping[str, list[_Game]]) -> dict[str, int]:
    """Points each of ``tied`` scored against the others, when every pair of them met (over
    the board); otherwise 0 for all, as for a player tied with nobody."""
    group = set(tied)
    met = {frozenset((player, game.opponent)) for player in tied for game in games[player]
           if game.opponent in group}
    if len(tied) < 2 or len(met) < len(tied) * (len(tied) - 1) // 2:
        return {player: 0 for player in tied}
    return {player: sum(game.scored for game in games[player] if game.opponent in group)
            for player in tied}


def _tiebreak_values(field: Field, history: History, points: Points,
                     tiebreaks: Sequence[str]) -> tuple[dict[str, int], dict[str, list[int]]]:
    score = scores(field, history, points)
    games = _games(field, history, points)
    values: dict[str, list[int]] = {player: [] for player in field.players}
    for position, name in enumerate(tiebreaks):
        if name != "direct-encounter":
            for player in field.players:
                values[player].append(_plain_tiebreak(name, games[player], score))
            continue
        # the players still tied when this tie-break is applied: same score and same values
        # of every tie-break before it (FIDE Handbook C.07, direct encounter)
        groups: dict[tuple[int, ...], list[str]] = {}
        for player in field.players:
            groups.setdefault((score[player], *values[player][:position]), []).append(player)
        encounter: dict[str, int] = {}
        for tied in groups.values():
            encounter.update(_direct_encounter(tied, games))
        for player in field.players:
            values[player].append(encounter[player])
    return score, values


def standings(field: Field, history: History, points: Points,
              tiebreaks: Sequence[str]) -> list[Standing]:
    """The standings, best first: by score, then each tie-break in ``tiebreaks``' order (all
    descending), then by lot ascending, so no two players share a rank. Every player of the
    field has a line, withdrawn ones too.

    >>> from fairdeal.verifier.tournament.model import Outcome, Round, Pairing
    >>> field = Field(("a", "b"), b"lots")
    >>> history = History((Round(1, (Pairing(1, ("a", "b")),)),), (Outcome(1, ("a", "b"), "b"),))
    >>> [(line.rank, line.player, line.score) for line in standings(field, history, Points(), ())]
    [(1, 'b', 2), (2, 'a', 0)]
    """
    for name in tiebreaks:
        if name not in TIEBREAKS:
            raise ValueError(f"unknown tie-break {name!r} (one of {', '.join(TIEBREAKS)})")
    score, values = _tiebreak_values(field, history, points, tiebreaks)

    def order(player: str) -> tuple[int, tuple[int, ...], bytes]:
        return -score[player], tuple(-value for value in values[player]), lot(field.lots, player)

    ranked = sorted(field.players, key=order)
    return [Standing(rank, player, score[player], tuple(values[player]))
            for rank, player in enumerate(ranked, start=1)]


@dataclass(frozen=True)
class CrossCell:
    """What one player did in one round: ``opponent`` (None for a bye), ``seat`` (0, 1, or
    None for a bye), ``result`` (``win``, ``draw``, ``loss``, ``forfeit-win``,
    ``forfeit-loss``, ``double-forfeit``, ``bye`` or ``pending`` while the match is open) and
    the half-points it scored (0 while pending)."""

    round: int
    opponent: str | None
    seat: int | None
    result: str
    scored: int


@dataclass(frozen=True)
class CrossRow:
    """A player's line of the cross-table: its standing and one cell per round it was paired
    in (or had a bye), in round order."""

    standing: Standing
    cells: tuple[CrossCell, ...]

    def against(self, opponent: str) -> tuple[CrossCell, ...]:
        """The cells of the games against ``opponent``: a round-robin cross-table's square."""
        return tuple(cell for cell in self.cells if cell.opponent == opponent)


@dataclass(frozen=True)
class Crosstable:
    """The cross-table a page renders: one row per player in standings order."""

    rounds: int
    rows: tuple[CrossRow, ...]


def _result_word(outcome: Outcome | None, player: str) -> str:
    if outcome is None:
        return "pending"
    if outcome.kind == "double-forfeit":
        return "double-forfeit"
    if outcome.kind == "forfeit":
        return "forfeit-win" if outcome.winner == player else "forfeit-loss"
    if outcome.winner is None:
        return "draw"
    return "win" if outcome.winner == player else "loss"


def _cells(history: History, points: Points) -> dict[str, list[CrossCell]]:
    counted = {(outcome.round, frozenset(outcome.seats)): outcome
               for outcome in counted_outcomes(history)}
    cells: dict[str, list[CrossCell]] = {}
    for paired in sorted(history.rounds, key=lambda paired: paired.number):
        for pairing in paired.pairings:
            outcome = counted.get((paired.number, frozenset(pairing.seats)))
            for seat, (player, opponent) in enumerate((pairing.seats, pairing.seats[::-1])):
                scored = 0 if outcome is None else _game_points(outcome, player, points)
                cells.setdefault(player, []).append(CrossCell(
                    paired.number, opponent, seat, _result_word(outcome, player), scored))
        for player in paired.byes:
            cells.setdefault(player, []).append(
                CrossCell(paired.number, None, None, "bye", points.bye))
    return cells


def crosstable(field: Field, history: History, points: Points | None = None,
               tiebreaks: Iterable[str] = ()) -> Crosstable:
    """The cross-table: the standings (as ``standings`` computes them) with, for each player,
    what it did in every round — the opponent, the seat, the result and its points."""
    points = points or Points()
    lines = standings(field, history, points, tuple(tiebreaks))
    cells = _cells(history, points)
    rounds = max((paired.number for paired in history.rounds), default=0)
    return Crosstable(rounds, tuple(CrossRow(line, tuple(cells.get(line.player, ())))
                                    for line in lines))
