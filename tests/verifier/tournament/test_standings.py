"""Standings and tie-breaks (docs/tournaments.md §5), each on a small example worked by hand
in the test's docstring (half-points throughout: a win 2, a draw 1), and the cross-table."""

from __future__ import annotations

import hashlib

import pytest

from fairdeal.verifier.tournament.model import (
    Field,
    History,
    Outcome,
    Pairing,
    Points,
    Round,
)
from fairdeal.verifier.tournament.primitives import lot
from fairdeal.verifier.tournament.standings import crosstable, scores, standings

LOTS = hashlib.sha256(b"standings").digest()
ALL = ("buchholz", "median-buchholz", "sonneborn-berger", "direct-encounter", "wins")


def _history(*rounds: tuple[tuple[str, str, str | None, str], ...],
             byes: tuple[tuple[str, ...], ...] = (), **extra: dict[str, int]) -> History:
    """Rounds given as (seat 0, seat 1, winner or None, kind) tables."""
    paired, outcomes = [], []
    for number, tables in enumerate(rounds, start=1):
        paired.append(Round(number, tuple(Pairing(table, (a, b)) for table, (a, b, _, _)
                                          in enumerate(tables, start=1)),
                            byes[number - 1] if byes else ()))
        outcomes.extend(Outcome(number, (a, b), winner, kind) for a, b, winner, kind in tables)
    return History(tuple(paired), tuple(outcomes), extra.get("withdrawn", {}),
                   extra.get("penalties", {}))


#: a round robin of four: A beats B, draws C, beats D; B beats C and D; C beats D
ROBIN = _history((("A", "B", "A", "match"), ("C", "D", "C", "match")),
                 (("A", "C", None, "match"), ("B", "D", "B", "match")),
                 (("D", "A", "A", "match"), ("B", "C", "B", "match")))
ROBIN_FIELD = Field(("A", "B", "C", "D"), LOTS)


def _line(lines: list, player: str) -> tuple[int, tuple[int, ...]]:
    (found,) = [line for line in lines if line.player == player]
    return found.score, found.tiebreaks


def test_every_tiebreak_of_a_round_robin() -> None:
    """Scores: A 2+1+2 = 5, B 0+2+2 = 4, C 2+1+0 = 3, D 0.
    Buchholz: A 4+3+0 = 7, B 5+3+0 = 8, C 5+4+0 = 9, D 5+4+3 = 12.
    Median Buchholz (drop highest and lowest of three): A [0,3,4] → 3, B [0,3,5] → 3,
    C [0,4,5] → 4, D [3,4,5] → 4.
    Sonneborn-Berger, 2·Σ beaten + Σ drawn: A 2·(4+0) + 3 = 11, B 2·(3+0) = 6, C 2·0 + 5 = 5,
    D 0. Direct encounter: nobody shares a score, 0. Wins: A 2, B 2, C 1, D 0."""
    lines = standings(ROBIN_FIELD, ROBIN, Points(), ALL)
    assert [line.player for line in lines] == ["A", "B", "C", "D"]
    assert [line.rank for line in lines] == [1, 2, 3, 4]
    assert _line(lines, "A") == (5, (7, 3, 11, 0, 2))
    assert _line(lines, "B") == (4, (8, 3, 6, 0, 2))
    assert _line(lines, "C") == (3, (9, 4, 5, 0, 1))
    assert _line(lines, "D") == (0, (12, 4, 0, 0, 0))


def test_sonneborn_berger_is_the_classic_value_doubled() -> None:
    """The classic SB in points (win 1, draw ½): A = B's 2 + D's 0 + ½·C's 1.5 = 2.75; our
    integral form in quarter-points is 4 × 2.75 = 11."""
    (line,) = [line for line in standings(ROBIN_FIELD, ROBIN, Points(), ("sonneborn-berger",))
               if line.player == "A"]
    assert line.tiebreaks == (int(4 * (2 + 0 + 0.5 * 1.5)),)


#: five players: round 1 p beats q, r draws s, t has the bye; round 2 t beats p, q wins by
#: forfeit against r (who withdrew), s has the bye
SWISS = _history((("p", "q", "p", "match"), ("r", "s", None, "match")),
                 (("t", "p", "t", "match"), ("q", "r", "q", "forfeit")),
                 byes=(("t",), ("s",)), withdrawn={"r": 3})
SWISS_FIELD = Field(("p", "q", "r", "s", "t"), LOTS)


def test_byes_and_forfeits_score_but_are_no_games() -> None:
    """Scores: p 2+0 = 2, q 0+2 (forfeit) = 2, r 1+0 = 1, s 1+2 (bye) = 3, t 2 (bye)+2 = 4.
    Games over the board: p v q, r v s, t v p. Buchholz: p q+t = 2+4 = 6, q p = 2, r s = 3,
    s r = 1, t p = 2. Wins: p 1, q 0 (a forfeit is not a win over the board), t 1.
    Sonneborn-Berger: p 2·2 = 4, q 0, r s's 3 = 3, s r's 1 = 1, t 2·2 = 4.
    Median Buchholz: nobody has three opponents, so 0."""
    assert scores(SWISS_FIELD, SWISS, Points()) == {"p": 2, "q": 2, "r": 1, "s": 3, "t": 4}
    lines = standings(SWISS_FIELD, SWISS, Points(), ("buchholz", "wins", "sonneborn-berger",
                                                     "median-buchholz"))
    assert [line.player for line in lines] == ["t", "s", "p", "q", "r"]
    assert {line.player: line.tiebreaks for line in lines} == {
        "p": (6, 1, 4, 0), "q": (2, 0, 0, 0), "r": (3, 0, 3, 0), "s": (1, 0, 1, 0),
        "t": (2, 1, 4, 0)}


def test_points_follow_the_header() -> None:
    """Three points a win, one a draw, a bye worth a draw, a forfeit win worth 1:
    p 3, q 1, r 1, s 1+1 = 2, t 1+3 = 4."""
    points = Points(win=3, draw=1, loss=0, bye=1, forfeit_win=1)
    assert scores(SWISS_FIELD, SWISS, points) == {"p": 3, "q": 1, "r": 1, "s": 2, "t": 4}


def test_penalties_are_deducted_and_reorder() -> None:
    """t loses 3 half-points: 4 - 3 = 1, level with r; Buchholz r 3 > t 2, so r ranks above."""
    history = History(SWISS.rounds, SWISS.outcomes, SWISS.withdrawn, {"t": 3})
    lines = standings(SWISS_FIELD, history, Points(), ("buchholz",))
    assert [(line.player, line.score) for line in lines] == [
        ("s", 3), ("p", 2), ("q", 2), ("r", 1), ("t", 1)]


def test_double_forfeit_scores_nothing() -> None:
    history = _history((("a", "b", None, "double-forfeit"),))
    assert scores(Field(("a", "b"), LOTS), history, Points()) == {"a": 0, "b": 0}


#: four players all play all: X beats Y and W, loses to Z; Y beats Z and W; W beats Z
ENCOUNTER = _history((("X", "Y", "X", "match"), ("Z", "W", "W", "match")),
                     (("Z", "X", "Z", "match"), ("Y", "W", "Y", "match")),
                     (("X", "W", "X", "match"), ("Y", "Z", "Y", "match")))
ENCOUNTER_FIELD = Field(("W", "X", "Y", "Z"), LOTS)


def test_direct_encounter_among_the_players_still_tied() -> None:
    """Scores X 4, Y 4, Z 2, W 2. Buchholz X Y+Z+W = 4+2+2 = 8 = Y's, Z X+Y+W = 4+4+2 = 10 =
    W's: still tied, so direct encounter decides inside each pair: X beat Y (X 2, Y 0), W beat
    Z (W 2, Z 0). Order X, Y, W, Z (lots alone would not give it for every seed)."""
    lines = standings(ENCOUNTER_FIELD, ENCOUNTER, Points(), ("buchholz", "direct-encounter"))
    assert [(line.player, line.tiebreaks) for line in lines] == [
        ("X", (8, 2)), ("Y", (8, 0)), ("W", (10, 2)), ("Z", (10, 0))]


def test_direct_encounter_is_only_among_those_tied_so_far() -> None:
    """In the five-player example p and q share 2 points and p beat q: first, direct encounter
    gives p 2, q 0; after Buchholz (p 6, q 2) they are no longer tied, so 0 for both."""
    first = standings(SWISS_FIELD, SWISS, Points(), ("direct-encounter",))
    assert {line.player: line.tiebreaks[0] for line in first}["p"] == 2
    assert {line.player: line.tiebreaks[0] for line in first}["q"] == 0
    after = standings(SWISS_FIELD, SWISS, Points(), ("buchholz", "direct-encounter"))
    assert all(line.tiebreaks[1] == 0 for line in after)


def test_direct_encounter_needs_every_pair_to_have_met() -> None:
    """a draws b, c draws d: all four on 1 point, a-b and c-d met but a-c never did, so
    direct encounter is 0 for all. Then round 2 has a beat c and b beat d: a and b on 3, c and
    d on 1, each pair met (a draw: 1 each)."""
    field = Field(("a", "b", "c", "d"), LOTS)
    one = _history((("a", "b", None, "match"), ("c", "d", None, "match")))
    lines = standings(field, one, Points(), ("direct-encounter",))
    assert {line.player: line.tiebreaks[0] for line in lines} == {"a": 0, "b": 0, "c": 0,
                                                                 "d": 0}
    two = _history((("a", "b", None, "match"), ("c", "d", None, "match")),
                   (("a", "c", "a", "match"), ("b", "d", "b", "match")))
    lines = standings(field, two, Points(), ("direct-encounter",))
    assert {line.player: line.tiebreaks[0] for line in lines} == {"a": 1, "b": 1, "c": 1,
                                                                 "d": 1}


def test_ties_all_the_way_fall_to_the_lot() -> None:
    field = Field(("a", "b", "c", "d"), LOTS)
    lines = standings(field, History(), Points(), ALL)
    assert [line.player for line in lines] == sorted("abcd", key=lambda p: lot(LOTS, p))
    assert all(line.score == 0 and line.tiebreaks == (0,) * 5 for line in lines)


def test_a_replayed_table_counts_its_last_result() -> None:
    """A replay-ordered ruling: the same round and seats get a second result, which counts."""
    history = History(ROBIN.rounds, (*ROBIN.outcomes, Outcome(1, ("A", "B"), "B")))
    assert scores(ROBIN_FIELD, history, Points())["A"] == 3
    assert scores(ROBIN_FIELD, history, Points())["B"] == 6


@pytest.mark.parametrize(("outcome", "message"), [
    (Outcome(1, ("a", "b"), "c"), "winner 'c' is not one of its seats"),
    (Outcome(1, ("a", "b"), None, "resigned"), "unknown kind 'resigned'"),
    (Outcome(1, ("a", "b"), None, "forfeit"), "a forfeit names no winner"),
])
def test_an_impossible_outcome_is_refused(outcome: Outcome, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        scores(Field(("a", "b"), LOTS), History(outcomes=(outcome,)), Points())


def test_an_unknown_tiebreak_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tie-break 'progressive'"):
        standings(ROBIN_FIELD, ROBIN, Points(), ("progressive",))


def test_crosstable_rows_follow_the_standings_with_every_round() -> None:
    """The five-player example with a round 3 paired but not played yet."""
    history = History((*SWISS.rounds, Round(3, (Pairing(1, ("s", "t")),))), SWISS.outcomes,
                      SWISS.withdrawn)
    table = crosstable(SWISS_FIELD, history, Points(), ("buchholz",))
    assert table.rounds == 3
    assert [row.standing.player for row in table.rows] == ["t", "s", "p", "q", "r"]
    rows = {row.standing.player: row for row in table.rows}
    assert [(cell.round, cell.opponent, cell.seat, cell.result, cell.scored)
            for cell in rows["t"].cells] == [
        (1, None, None, "bye", 2), (2, "p", 0, "win", 2), (3, "s", 1, "pending", 0)]
    assert [(cell.round, cell.opponent, cell.seat, cell.result, cell.scored)
            for cell in rows["q"].cells] == [(1, "p", 1, "loss", 0),
                                             (2, "r", 0, "forfeit-win", 2)]
    assert [cell.result for cell in rows["r"].cells] == ["draw", "forfeit-loss"]
    assert [cell.round for cell in rows["p"].against("t")] == [2]
    assert rows["p"].against("r") == ()
    assert table.rows[0].standing.tiebreaks == (2,)
