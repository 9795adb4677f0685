"""The audit's tests, run on merged counts. Each returns its statistic and p-value; the verdict
comes last, from the family-wise significance level with Holm's correction (docs/audit.md).

>>> results = run_tests(tally)  # doctest: +SKIP
>>> [(r.name, r.verdict) for r in results][:1]
[('deal-position <game>/normal deck', 'PASS')]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from fairdeal.games import get_game
from fairdeal.verifier.report import counted as plural

from .tally import PlayerTally, Tally, dealt_order

__all__ = ["ALPHA", "MIN_EXPECTED", "MIN_PLAYER_MATCHES", "TestResult", "holm", "key_figures",
           "run_tests"]

#: the family-wise significance level: the chance that an honest service fails any test at all
ALPHA = 0.01
#: a chi-square cell needs this many expected counts; a test short of them is not run
MIN_EXPECTED = 5.0
#: a player is tested once they have this many matches
MIN_PLAYER_MATCHES = 20


@dataclass(frozen=True)
class TestResult:
    """One test: what it counted, its statistic and p-value, and (after Holm) its verdict."""

    name: str
    title: str
    statistic_name: str
    statistic: float
    p_value: float
    df: int | None
    counted: str
    detail: str = ""
    #: Holm-adjusted p-value (the one the verdict compares with ALPHA)
    adjusted_p: float | None = None
    #: "PASS", "FAIL", or "SKIP" when the data are too few to run it
    verdict: str = "SKIP"

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "title": self.title, "statistic_name": self.statistic_name,
                "statistic": _finite(self.statistic), "p_value": _finite(self.p_value),
                "df": self.df, "counted": self.counted, "detail": self.detail,
                "adjusted_p": _finite(self.adjusted_p), "verdict": self.verdict}


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


@cache
def _scipy_stats() -> Any:
    """scipy.stats, imported the first time a test needs a distribution: the import is over a
    second of a command's start-up, and an audit with nothing to test (no bundle passed the
    filters, or too few matches for any test) never needs it."""
    import scipy.stats

    return scipy.stats


def _chi2_sf(statistic: float, df: int) -> float:
    return float(_scipy_stats().chi2.sf(statistic, df))


def _binomial_p(successes: int, trials: int, p: float) -> float:
    return float(_scipy_stats().binomtest(successes, trials, p).pvalue)


def _skip(name: str, title: str, counted: str, why: str) -> TestResult:
    return TestResult(name, title, "", math.nan, math.nan, None, counted, why)


def _chi_square(name: str, title: str, observed: Sequence[float], expected: Sequence[float],
                df: int, counted: str, detail: str = "") -> TestResult:
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)
    return TestResult(name, title, "chi2", statistic, _chi2_sf(statistic, df), df,
                      counted, detail)


def _two_sided(z: float) -> float:
    return float(2 * _scipy_stats().norm.sf(abs(z)))


def _seat_names(game: str) -> tuple[str, ...]:
    return get_game(game.split("/")[0]).seat_names


# --- the tests ---------------------------------------------------------------------------

def _deal_positions(tally: Tally) -> Iterator[TestResult]:
    for key, table in sorted(tally.positions.items()):
        deck, order = key.split(":")
        n = sum(row[0] for row in table)  # every deal puts one item at position 1
        dealt = dealt_order(deck, order)  # the game says how its positions are binned
        title = dealt.title.format(deck=deck, order=order)
        name = f"deal-position {deck} {order}"
        bins = dealt.bins or tuple((p, p + 1) for p in range(len(table[0])))
        size = len(table[0])
        observed, expected = [], []
        for row in table:
            copies = sum(row) / n if n else 0
            for start, end in bins:
                observed.append(sum(row[start:end]))
                expected.append(n * copies * (end - start) / size)
        counted = f"{n:,} deals"
        if not expected or min(expected) < MIN_EXPECTED:
            yield _skip(name, title, counted, f"needs more deals ({MIN_EXPECTED:g} expected "
                        "per cell)")
            continue
        cells = [(o - e) / math.sqrt(e) for o, e in zip(observed, expected, strict=True)]
        worst = max(range(len(cells)), key=lambda i: abs(cells[i]))
        item, where = divmod(worst, len(bins))
        start, end = bins[where]
        what = f"{dealt.item_word} {dealt.items[item]}"
        span = f"position {start + 1}" if end == start + 1 else f"positions {start + 1}-{end}"
        detail = (f"largest deviation: {what} at {span} "
                  f"({observed[worst]:g} seen, {expected[worst]:.1f} expected)")
        yield _chi_square(name, title, observed, expected, (len(table) - 1) * (len(bins) - 1),
                          counted, detail)


def _deal_orders(tally: Tally) -> Iterator[TestResult]:
    for key, counts in sorted(tally.triples.items()):
        deck, order = key.split(":")
        n = sum(counts)
        name = f"deal-order {deck} {order}"
        title = f"relative order of three fixed items ({deck} {order}): all six equally likely"
        if n / 6 < MIN_EXPECTED:
            yield _skip(name, title, f"{n:,} deals", "needs more deals")
            continue
        yield _chi_square(name, title, counts, [n / 6] * 6, 5, f"{n:,} deals")


def _draws(tally: Tally) -> Iterator[TestResult]:
    for deck, counts in sorted(tally.draws.items()):
        total = sum(counts)
        name = f"draws {deck}"
        title = f"cards drawn from the infinite deck ({deck}), dealt and during play"
        expected = total / len(counts)
        if expected < MIN_EXPECTED:
            yield _skip(name, title, f"{total:,} draws", "needs more draws")
            continue
        yield _chi_square(name, title, counts, [expected] * len(counts), len(counts) - 1,
                          f"{total:,} draws")


def _picks(tally: Tally) -> Iterator[TestResult]:
    games = sorted({key.split(":")[0] for key in tally.picks})
    for game in games:
        statistic, df, used, total, worst = 0.0, 0, 0, 0, ("", 1.0)
        for key, counts in sorted(tally.picks.items()):
            if not key.startswith(game + ":"):
                continue
            picks = sum(counts)
            total += picks
            expected = picks / len(counts)
            if len(counts) < 2 or expected < MIN_EXPECTED:
                continue
            part = sum((c - expected) ** 2 / expected for c in counts)
            p = _chi2_sf(part, len(counts) - 1)
            if p < worst[1]:
                worst = (key.split(":", 1)[1], p)
            statistic += part
            df += len(counts) - 1
            used += picks
        name = f"picks {game}"
        title = f"random picks during play ({game}): each value of each range equally likely"
        counted = f"{used:,} of {total:,} picks (ranges with enough picks)"
        if df == 0:
            yield _skip(name, title, counted, "needs more picks")
            continue
        detail = f"least uniform range: {worst[0]} (p = {worst[1]:.3g})" if worst[0] else ""
        yield TestResult(name, title, "chi2", statistic, _chi2_sf(statistic, df),
                         df, counted, detail)


def _seat_hands(tally: Tally) -> Iterator[TestResult]:
    """The paired difference of the two seats' z-scores in each match, against 0 (a t-like
    z with the variance estimated from the differences: the seats' hands are drawn from one
    deck, so they are not independent)."""
    for deck, (n_float, total, squares) in sorted(tally.seat_diff.items()):
        n = int(n_float)
        name = f"seat-hands {deck}"
        title = f"opening-hand strength by seat ({deck}): seat A's minus seat B's"
        if n < MIN_PLAYER_MATCHES:
            yield _skip(name, title, f"{n:,} deals", "needs more deals")
            continue
        mean = total / n
        variance = max((squares - n * mean * mean) / (n - 1), 1e-12)
        z = mean / math.sqrt(variance / n)
        names = _seat_names(deck)
        better = names[0] if z > 0 else names[1]
        per_seat = ", ".join(f"{names[s]} z = {t / math.sqrt(c):+.2f}"
                             for s, (c, t, _) in enumerate(tally.seat_z[deck]))
        yield TestResult(name, title, "z", z, _two_sided(z), None, f"{n:,} deals",
                         f"seat {better}'s opening hands are stronger on average "
                         f"(mean difference {mean:+.3f} in z; per seat {per_seat})")


def _first_mover(tally: Tally) -> Iterator[TestResult]:
    for game, counts in sorted(tally.first.items()):
        n = sum(counts)
        name = f"first-mover {game}"
        title = f"who moves first, by seat ({game})"
        if n < MIN_PLAYER_MATCHES:
            yield _skip(name, title, f"{n:,} matches", "needs more matches")
            continue
        p = _binomial_p(counts[0], n, 1 / len(counts))
        seat_names = _seat_names(game)
        detail = ", ".join(f"seat {seat_names[s]} first {c:,} times" for s, c in
                           enumerate(counts))
        yield TestResult(name, title, "binomial", counts[0] / n, p, None, f"{n:,} matches",
                         detail)


#: how the per-player tests name a player: by seat key, by name where a seat signed with none
_PLAYER_WORDS = "by player (seat key; the name where a seat signed with no key)"


def _per_player(tally: Tally, name: str, title: str, size: Callable[[PlayerTally], int],
                p_of: Callable[[PlayerTally], tuple[float, float, str]]) -> TestResult:
    everyone = tally.identities()
    tested = sorted(player for player, record in everyone.items()
                    if size(record) >= MIN_PLAYER_MATCHES)
    counted = f"{plural(len(tested), 'player')} with {MIN_PLAYER_MATCHES}+ matches"
    if not tested:
        return _skip(name, title, counted, "no player has enough matches yet")
    results = {player: p_of(everyone[player]) for player in tested}
    worst = min(tested, key=lambda player: results[player][1])
    statistic, p, words = results[worst]
    k = len(tested)
    flagged = [player for player in tested if k * results[player][1] < ALPHA]
    detail = f"most extreme: {worst} ({words})"
    if flagged:
        detail += "; beyond chance: " + ", ".join(
            f"{player} ({results[player][2]})" for player in flagged[:10])
    return TestResult(name, title, "z" if "z" in words else "binomial", statistic,
                      min(1.0, k * p), None, counted,
                      detail + f" (Bonferroni over {plural(k, 'player')})")


def _hands_z(record: PlayerTally) -> tuple[float, float, str]:
    z = record.z_sum / math.sqrt(record.hands)
    return z, _two_sided(z), f"z = {z:+.2f} over {record.hands} hands"


def _first_share(record: PlayerTally) -> tuple[float, float, str]:
    p = _binomial_p(record.first, record.matches, 0.5)
    return record.first / record.matches, p, f"first in {record.first} of {record.matches}"


def _player_hands(tally: Tally) -> TestResult:
    return _per_player(tally, "player-hands", f"opening-hand strength {_PLAYER_WORDS}",
                       lambda record: record.hands, _hands_z)


def _player_first(tally: Tally) -> TestResult:
    return _per_player(tally, "player-first", f"who moves first, {_PLAYER_WORDS}",
                       lambda record: record.matches, _first_share)


def _seed_tests(tally: Tally) -> Iterator[TestResult]:
    n, ones, transitions = tally.seeds
    counted = f"{n:,} server seeds"
    if n == 0:
        yield _skip("seed-bits", "server seeds: bit balance", counted, "no seeds")
        yield _skip("seed-runs", "server seeds: runs of equal bits", counted, "no seeds")
        return
    z = (ones - 128 * n) / math.sqrt(64 * n)
    yield TestResult("seed-bits", "server seeds: bit balance (half the bits set)", "z", z,
                     _two_sided(z), None, counted, f"{ones:,} of {256 * n:,} bits set")
    z = (transitions - 127.5 * n) / math.sqrt(63.75 * n)
    yield TestResult("seed-runs", "server seeds: runs (neighbouring bits differ half the time)",
                     "z", z, _two_sided(z), None, counted,
                     f"{transitions:,} changes between {255 * n:,} neighbouring bits")


def _unsealed(tally: Tally) -> TestResult:
    name, title = "unsealed", f"matches created and never sealed, {_PLAYER_WORDS}"
    everyone = tally.identities()
    players = sorted(p for p, r in everyone.items() if r.created >= MIN_PLAYER_MATCHES)
    counted = f"{plural(len(players), 'player')} with {MIN_PLAYER_MATCHES}+ created matches"
    if not any(r.created for r in everyone.values()):
        return _skip(name, title, "no ledger counts", "only the ledger knows unsealed matches")
    if len(players) < 2:
        return _skip(name, title, counted, "needs two players with enough matches")
    created = sum(everyone[p].created for p in players)
    unsealed = sum(everyone[p].unsealed for p in players)
    if unsealed in (0, created):
        return TestResult(name, title, "chi2", 0.0, 1.0, len(players) - 1, counted,
                          f"{unsealed:,} of {created:,} unsealed: the same rate for everyone")
    rate = unsealed / created
    observed, expected, residual = [], [], {}
    for player in players:
        record = everyone[player]
        e = record.created * rate
        observed += [record.unsealed, record.created - record.unsealed]
        expected += [e, record.created - e]
        residual[player] = (record.unsealed - e) / math.sqrt(e)
    worst = max(players, key=lambda p: residual[p])
    record = everyone[worst]
    return _chi_square(name, title, observed, expected, len(players) - 1, counted,
                       f"overall {rate:.1%} unsealed; highest: {worst} with {record.unsealed} "
                       f"of {record.created}")


def key_figures(record: PlayerTally, unsealed_rate: float | None) -> list[TestResult]:
    """One seat key's own figures, as its page shows them: its opening hands' strength (z),
    how often it moved first (binomial, half), and its matches never sealed against
    ``unsealed_rate``, the rate over everyone (binomial; None: no ledger counts). Each test
    is at the family-wise ALPHA with Bonferroni over the three; fewer than
    MIN_PLAYER_MATCHES matches is a SKIP, as in the per-player tests."""
    few = f"fewer than {MIN_PLAYER_MATCHES} matches"
    tests: list[TestResult] = []
    if record.hands >= MIN_PLAYER_MATCHES:
        z, p, words = _hands_z(record)
        tests.append(TestResult("key-hands", "opening-hand strength", "z", z, p, None,
                                f"{record.hands} hands", words))
    else:
        tests.append(_skip("key-hands", "opening-hand strength", f"{record.hands} hands", few))
    if record.matches >= MIN_PLAYER_MATCHES:
        share, p, words = _first_share(record)
        tests.append(TestResult("key-first", "who moves first", "binomial", share, p, None,
                                f"{record.matches} matches", words))
    else:
        tests.append(_skip("key-first", "who moves first", f"{record.matches} matches", few))
    counted = f"{record.created} created here"
    if unsealed_rate is None or record.created < MIN_PLAYER_MATCHES:
        tests.append(_skip("key-unsealed", "matches created and never sealed", counted,
                           few if unsealed_rate is not None else "no ledger counts"))
    else:
        p = _binomial_p(record.unsealed, record.created, unsealed_rate)
        tests.append(TestResult("key-unsealed", "matches created and never sealed",
                                "binomial", record.unsealed / record.created, p, None, counted,
                                f"{record.unsealed} of {record.created} never sealed; "
                                f"{unsealed_rate:.1%} over everyone"))
    return _bonferroni(tests)


def _bonferroni(tests: list[TestResult]) -> list[TestResult]:
    ran = [t for t in tests if math.isfinite(t.p_value)]
    out = []
    for test in tests:
        if math.isfinite(test.p_value):
            p = min(1.0, len(ran) * test.p_value)
            test = replace(test, adjusted_p=p, verdict="FAIL" if p < ALPHA else "PASS")
        out.append(test)
    return out


def holm(results: list[TestResult], alpha: float = ALPHA) -> list[TestResult]:
    """Holm's step-down correction over every test that ran; SKIPs stay as they are."""
    ran = sorted((r for r in results if math.isfinite(r.p_value)), key=lambda r: r.p_value)
    adjusted: dict[str, float] = {}
    running = 0.0
    for rank, result in enumerate(ran):
        running = max(running, min(1.0, (len(ran) - rank) * result.p_value))
        adjusted[result.name] = running
    out = []
    for result in results:
        if result.name in adjusted:
            p = adjusted[result.name]
            result = replace(result, adjusted_p=p, verdict="FAIL" if p < alpha else "PASS")
        out.append(result)
    return out


def run_tests(tally: Tally, alpha: float = ALPHA) -> list[TestResult]:
    """Every test that applies to the counts, with Holm-corrected verdicts."""
    results = [*_deal_positions(tally), *_deal_orders(tally), *_draws(tally), *_picks(tally),
               *_seat_hands(tally), *_first_mover(tally), _player_hands(tally),
               _player_first(tally), *_seed_tests(tally), _unsealed(tally)]
    return holm(results, alpha)
