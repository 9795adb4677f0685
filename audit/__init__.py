"""The fairness audit across many matches: every bundle verified, its deal re-derived through
the verifier, the counts merged, and the statistics run on the merged counts (docs/audit.md).

Layering: this package imports games/ and verifier/ only (never the ledger, the web or the CLI,
which feed it bundles); it alone uses scipy, matplotlib and Dask.

>>> from fairdeal.audit import audit_bundles, run_tests
>>> tally = audit_bundles([("match.json", data)])  # doctest: +SKIP
>>> [r.verdict for r in run_tests(tally)]  # doctest: +SKIP
"""

from __future__ import annotations

# first: it picks the compiled or the pure modules (FAIRDEAL_PURE) before any below is imported
from fairdeal.games import compiled  # noqa: F401

from .run import Filters, Item, add_ledger_counts, audit_bundles
from .stats import ALPHA, TestResult, key_figures, run_tests
from .tally import Tally

__all__ = ["ALPHA", "Filters", "Item", "Tally", "TestResult", "add_ledger_counts",
           "audit_bundles", "key_figures", "run_tests"]
