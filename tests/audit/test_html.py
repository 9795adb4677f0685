"""The HTML report's figures: the p-value overview names every test on a real axis even when
every adjusted p is 1, and a test that was not run draws no figure (a sentence says why)."""

from __future__ import annotations

import math
import re

from fairdeal.audit import stats
from fairdeal.audit.html import render_body, render_html
from fairdeal.audit.report import AuditReport
from fairdeal.audit.tally import Tally


def _ran(name: str, p: float) -> stats.TestResult:
    return stats.TestResult(name, f"the {name} test", "chi2", 1.5, p, 3, "40 deals",
                      adjusted_p=1.0, verdict="PASS")


def _skipped(name: str) -> stats.TestResult:
    return stats.TestResult(name, f"the {name} test", "", math.nan, math.nan, None, "3 deals",
                      "needs more deals")


def _overview(body: str) -> str:
    start = body.index("<h2>p-value overview</h2>")
    return body[start:body.index("</svg>", start)]


def _texts(svg: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", text).strip()
            for text in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)]


def test_every_adjusted_p_of_one_still_gets_a_real_axis_and_every_test() -> None:
    results = [_ran("first-mover", 0.7), _ran("seed-bits", 0.4), _skipped("deal-position x")]
    svg = _overview(render_body(AuditReport(Tally(), results)))
    texts = _texts(svg)
    for result in results:
        assert result.name in texts
    assert "not run (too few data)" in texts
    # the axis is named in p-values, from 1 out past the 0.01 level a FAIL needs
    for tick in ("1", "0.1", "0.01", "0.001"):
        assert tick in texts, texts
    assert any("Holm-adjusted p" in text for text in texts)


def test_a_test_not_run_draws_no_figure() -> None:
    tally = Tally(matches=3, positions={"arcomage/normal:deck": [[1, 2, 0]] * 3})
    report = AuditReport(tally, [_skipped("deal-position arcomage/normal deck")])
    body = render_body(report)
    heading = "<h2>arcomage/normal deck: card × position over 3 deals</h2>"
    after = body[body.index(heading) + len(heading):]
    assert after.startswith('<p class="not-drawn">Not drawn: the test deal-position '
                            "arcomage/normal deck was not run with 3 deals: it needs more "
                            "deals.")
    assert body.count("<svg") == 1  # the overview alone
    # the same report as a file of its own: its own style, the same figures
    page = render_html(report, "an audit")
    assert page.startswith("<!doctype html>") and "<style>" in page
    assert page.count("<svg") == 1
