"""The tally of the adversary property's campaign (tests/adversary/test_property.py): how many
forged bundles were tried, and how the verifier answered. conftest.py prints it at the end of
the run, so that ``make adversary`` says how many cases ran and how many verdicts were OK."""

from __future__ import annotations

import os
import time
from collections import Counter

from hypothesis import HealthCheck, settings

#: how many cases the long campaign runs (``make adversary`` sets it; unset: the suite's short
#: campaign)
CASES_VARIABLE = "FAIRDEAL_ADVERSARY_CASES"
#: the Hypothesis profiles conftest.py registers: the suite's (derandomized, a few hundred
#: cases) and the long campaign's
SUITE_PROFILE = "fairdeal-adversary-suite"
CAMPAIGN_PROFILE = "fairdeal-adversary-campaign"
SUITE_CASES = 300

#: "cases", "OK", "FAIL", "FAIL <check>" for each check that refused a forgery, and
#: "violations" (OK verdicts that broke the oracle)
TALLY: Counter[str] = Counter()
#: when the first and the latest case were counted (time.monotonic), for the rate the summary
#: reports (from the first case to the last, not to the end of a suite that runs on after it)
_span: list[float] = []


def tally(key: str) -> None:
    """Count one outcome of one case."""
    now = time.monotonic()
    if not _span:
        _span.extend((now, now))
    _span[1] = now
    TALLY[key] += 1


def profile_name() -> str:
    """The profile of this run: the campaign's when its case count is set."""
    return CAMPAIGN_PROFILE if os.environ.get(CASES_VARIABLE) else SUITE_PROFILE


def campaign_cases() -> int:
    """The long campaign's case count (``ADVERSARY_CASES`` of the Makefile)."""
    text = os.environ.get(CASES_VARIABLE, "")
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else SUITE_CASES


_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# the suite's short campaign: the same few hundred forgeries on every machine and every run
settings.register_profile(SUITE_PROFILE, max_examples=SUITE_CASES, derandomize=True,
                          database=None, deadline=None, suppress_health_check=_QUIET,
                          print_blob=True)
# the long campaign (make adversary): fresh random forgeries each run; a failure prints the
# @reproduce_failure blob that replays it
settings.register_profile(CAMPAIGN_PROFILE, max_examples=campaign_cases(), derandomize=False,
                          database=None, deadline=None, suppress_health_check=_QUIET,
                          print_blob=True)


def summary() -> str | None:
    """One line for the end of the run, or None when the property did not run."""
    if not TALLY["cases"]:
        return None
    refused = sorted(((count, key.removeprefix("FAIL ")) for key, count in TALLY.items()
                      if key.startswith("FAIL ")), reverse=True)
    checks = ", ".join(f"{check} {count}" for count, check in refused)
    seconds = _span[1] - _span[0]
    rate = TALLY["cases"] / seconds if seconds > 0 else 0.0
    return (f"adversary property: {TALLY['cases']} cases ran in {seconds:.1f} s "
            f"({rate:.1f} cases/s, shrinking included); verdicts OK {TALLY['OK']}, "
            f"FAIL {TALLY['FAIL']}" + (f" (refused by {checks})" if checks else "")
            + f"; oracle violations {TALLY['violations']}")
