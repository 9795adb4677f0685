"""The audit's report: one line a test for people, JSON for programs, and the exit status.

    PASS  deal-position <game>/normal deck   chi2 = 738.6  p = 0.199  (300 deals)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fairdeal.verifier.keys import key_id, parse_public_key
from fairdeal.verifier.report import counted

from .run import Filters
from .stats import ALPHA, TestResult, run_tests
from .tally import Tally

__all__ = ["AuditReport", "build_report", "signer_words"]

#: how the report names the correction, in every output
CORRECTION = (f"Holm's step-down correction over every test run, family-wise level {ALPHA:g}")


@dataclass
class AuditReport:
    """The results of one audit, with the counts they came from."""

    tally: Tally
    results: list[TestResult]
    filters: Filters = field(default_factory=Filters)
    source: str = ""
    #: whose matches were audited, the report's first line ("matches sealed by this server,
    #: key …"); "" when the caller did not say (every key pooled)
    whose: str = ""
    #: the reports of other signers' matches, each key tallied on its own (``Tally.by_key``)
    others: list[AuditReport] = field(default_factory=list)
    #: one line after the list of other keys: how to have them audited too ("" for none)
    apart_hint: str = ""

    def result(self, name: str) -> TestResult | None:
        """The test named ``name`` ("deal-position <deck> <order>"), if it was in the run."""
        return next((r for r in self.results if r.name == name), None)

    @property
    def failed(self) -> list[TestResult]:
        return [result for result in self.results if result.verdict == "FAIL"]

    @property
    def exit_code(self) -> int:
        """0 when every test that ran passed, 1 when any failed (in this report or in any other
        signer's report it holds)."""
        return 1 if self.failed or any(other.exit_code for other in self.others) else 0

    @property
    def bundle_failures(self) -> int:
        """Bundles that failed verification, here and in the other signers' reports."""
        return len(self.tally.failures) + sum(other.bundle_failures for other in self.others)

    def first_line(self) -> str:
        """Whose matches this report audited, in words (the first line of every output)."""
        return f"Audited: {self.whose or 'every bundle given, whatever key sealed it'}."

    def summary(self) -> str:
        """One sentence: how many matches, how many tests, which failed."""
        ran = [r for r in self.results if r.verdict != "SKIP"]
        words = (f"{counted(self.tally.matches, 'verified match', 'verified matches')} audited"
                 f"{' (' + self.filters.words() + ')' if self.filters.words() else ''}; "
                 f"{counted(len(ran), 'test')} run, {len(self.failed)} failed")
        if self.tally.undealt:
            words += (f"; {counted(self.tally.undealt, 'verified match', 'verified matches')} "
                      "ended before any deal (a seat's committed seed was never revealed) and "
                      f"{'has' if self.tally.undealt == 1 else 'have'} nothing to count")
        if self.tally.failures:
            failed = len(self.tally.failures)
            words += (f"; {counted(failed, 'bundle')} failed verification and "
                      f"{'was' if failed == 1 else 'were'} left out")
        return words

    def text_lines(self, verbose: bool = False) -> list[str]:
        """The text report: a line a test, then the failing bundles with their reasons."""
        lines = [self.first_line()]
        if self.tally.matches or not self.others:
            lines += self._own_lines(verbose)
        elif self.tally.failures:
            lines.append("Bundles that failed verification (not counted):")
            lines += [f"  FAIL: {where}: {reason}" for where, reason in self.tally.failures]
        if self.tally.apart:
            apart = counted(sum(self.tally.apart.values()), "bundle")
            lines.append(f"Not counted above: {apart} sealed "
                         "under other keys (anyone can seal a bundle under a key of their "
                         "own), by key:")
            lines += [f"  key {_key_id(key)}  {key}: {counted(count, 'bundle')}"
                      for key, count in sorted(self.tally.apart.items())]
            if self.apart_hint and not self.others:
                lines.append(f"  {self.apart_hint}")
        for other in self.others:
            lines += ["", *other.text_lines(verbose)]
        return lines

    def _own_lines(self, verbose: bool) -> list[str]:
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
            "audited": self.first_line(),
            "ok": not self.exit_code,
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
            # the seats that signed with a key, by key id: the identity; names are labels
            "seat_keys": {
                kid: {"names": dict(sorted(self.tally.key_names.get(kid, {}).items())),
                      "matches": p.matches, "first": p.first, "hands": p.hands,
                      "mean_hand_z": p.z_sum / p.hands if p.hands else None,
                      "created": p.created, "unsealed": p.unsealed}
                for kid, p in sorted(self.tally.keys.items())
            },
            "other_keys": [{"key": key, "key_id": _key_id(key), "bundles": count}
                           for key, count in sorted(self.tally.apart.items())],
            "by_key": [other.to_json() for other in self.others],
        }


def _key_id(key: str) -> str:
    return key_id(parse_public_key(key))


def signer_words(key: str, this_server: bool = False, note: str = "") -> str:
    """Whose matches, in words: "matches sealed by this server, key ed25519:… (key id …)" or
    "matches sealed by key … (key id …)", then ``note`` (e.g. " (trusted)")."""
    who = "matches sealed by this server, key" if this_server else "matches sealed by key"
    return f"{who} {key} (key id {_key_id(key)}){note}"


def build_report(tally: Tally, filters: Filters | None = None, source: str = "",
                 whose: str = "", other_words: Callable[[str], str] | None = None,
                 apart_hint: str = "") -> AuditReport:
    """Run every test on the merged counts. ``whose`` says whose matches they are; the other
    keys' tallies (``tally.by_key``) get a report each, headed ``other_words(key)``."""
    results = run_tests(tally)
    assert all(r.verdict == "SKIP" or math.isfinite(r.p_value) for r in results)
    words = other_words or (lambda key: signer_words(key, note=", tallied on its own"))
    others = [build_report(sub, filters, source, words(key))
              for key, sub in sorted(tally.by_key.items())]
    return AuditReport(tally, results, filters or Filters(), source, whose, others, apart_hint)
