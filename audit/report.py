"""The audit's report: one line a test for people, JSON for programs, and the exit status.

    PASS  deal-position arcomage/normal deck   chi2 = 738.6  p = 0.199  (300 deals)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .run import Filters
from .stats import ALPHA, TestResult, run_tests
from .tally import Tally

__all__ = ["AuditReport", "build_report"]

#: how the report names the correction, in every output
CORRECTION = (f"Holm's step-down correction over every test run, family-wise level {ALPHA:g}")


@dataclass
class AuditReport:
    """The results of one audit, with the counts they came from."""

    tally: Tally
    results: list[TestResult]
    filters: Filters = field(default_factory=Filters)
    source: str = ""

    @property
    def failed(self) -> list[TestResult]:
        return [result for result in self.results if result.verdict == "FAIL"]

    @property
    def exit_code(self) -> int:
        """0 when every test that ran passed, 1 when any failed."""
        return 1 if self.failed else 0

    def summary(self) -> str:
        """One sentence: how many matches, how many tests, which failed."""
        ran = [r for r in self.results if r.verdict != "SKIP"]
        words = (f"{self.tally.matches:,} verified matches audited"
                 f"{' (' + self.filters.words() + ')' if self.filters.words() else ''}; "
                 f"{len(ran)} tests run, {len(self.failed)} failed")
        if self.tally.undealt:
            words += (f"; {self.tally.undealt:,} verified matches ended before any deal (a "
                      "seat's committed seed was never revealed) and have nothing to count")
        if self.tally.failures:
            words += f"; {len(self.tally.failures):,} bundles failed verification and were left out"
        return words

    def text_lines(self, verbose: bool = False) -> list[str]:
        """The text report: a line a test, then the failing bundles with their reasons."""
        lines = [self.summary() + ".", f"Verdicts: {CORRECTION}."]
        width = max((len(r.name) for r in self.results), default=10)
        for result in self.results:
            if result.verdict == "SKIP":
                lines.append(f"SKIP  {result.name:<{width}}  not run: {result.detail}")
                continue
            stat = f"{result.statistic_name} = {result.statistic:.4g}"
            if result.df is not None:
                stat += f" (df {result.df})"
            line = (f"{result.verdict}  {result.name:<{width}}  {stat}  p = "
                    f"{result.p_value:.3g}  adjusted p = {result.adjusted_p:.3g}  "
                    f"({result.counted})")
            lines.append(line)
            if result.verdict == "FAIL" or verbose:
                lines.append(f"      {result.title}: {result.detail}" if result.detail
                             else f"      {result.title}")
        if self.tally.failures:
            lines.append("Bundles that failed verification (not counted):")
            lines += [f"  FAIL: {where}: {reason}" for where, reason in self.tally.failures]
        return lines

    def to_json(self) -> dict[str, Any]:
        """Everything in the text report, and the counts behind the plots."""
        return {
            "ok": not self.failed,
            "summary": self.summary(),
            "source": self.source,
            "filters": self.filters.words(),
            "alpha": ALPHA,
            "correction": CORRECTION,
            "matches": self.tally.matches,
            "skipped_by_filters": self.tally.skipped,
            "ended_without_deal": self.tally.undealt,
            "span_ms": self.tally.span or None,
            "tests": [result.to_json() for result in self.results],
            "failing_bundles": [{"where": where, "reason": reason}
                                for where, reason in self.tally.failures],
            "players": {
                name: {"matches": p.matches, "first": p.first, "hands": p.hands,
                       "mean_hand_z": p.z_sum / p.hands if p.hands else None,
                       "created": p.created, "unsealed": p.unsealed}
                for name, p in sorted(self.tally.players.items())
            },
        }


def build_report(tally: Tally, filters: Filters | None = None, source: str = "") -> AuditReport:
    """Run every test on the merged counts."""
    results = run_tests(tally)
    assert all(r.verdict == "SKIP" or math.isfinite(r.p_value) for r in results)
    return AuditReport(tally, results, filters or Filters(), source)
