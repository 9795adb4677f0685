"""The /audit page in a real Chromium, over a real SQLite ledger: it is one of the site's pages
(its bar, navigation and style), a test the audit did not run draws no figure (a sentence says
why instead), and on a 390 px phone its table scrolls inside its own box while the page does
not."""

from __future__ import annotations

import random
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from fairdeal.ledger import creating

from .browsing import NEEDS_CHROMIUM, SHOTS, serving
from .test_audit_pages import play_resigned

pytestmark = NEEDS_CHROMIUM

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from fairdeal.web.app import create_app

    folder: Path = tmp_path_factory.mktemp("audit-browser")
    app = create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False})
    ledger = app.extensions["fairdeal.ledger"]
    with pytest.MonkeyPatch.context() as patch:  # seeds from a fixed source: the verdicts below
        patch.setattr(creating.secrets, "token_bytes", random.Random(30).randbytes)  # repeat
        for index in range(30):  # 30 deals: too few for the card × position test, enough else
            play_resigned(ledger, ("ann", "bob", "cy")[index % 3],
                          ("bob", "cy", "ann")[index % 3])
    with serving(app) as url:
        yield url


@contextmanager
def _open(browser: Any, url: str, viewport: dict[str, int], **options: Any) -> Iterator[Any]:
    """A tab on /audit once the report is computed, in a context of its own in the module's
    Chromium, closed afterwards. Until then the page reloads itself, and a tab opening it then
    can see its navigation aborted by that reload (net::ERR_ABORTED on a loaded machine), so
    the wait is over HTTP and the tab opens the finished page."""
    for _ in range(300):
        with urllib.request.urlopen(f"{url}/audit", timeout=30) as answer:
            if b'class="audited"' in answer.read():
                break
        time.sleep(0.2)
    else:
        raise AssertionError("the audit report never finished")
    context = browser.new_context(viewport=viewport, **options)
    try:
        tab = context.new_page()
        tab.goto(f"{url}/audit")
        assert tab.locator(".audit-report .audited").count()
        yield tab
    finally:
        context.close()


def test_the_audit_is_a_page_of_the_site(served: str, browser: Any) -> None:
    with _open(browser, served, {"width": 1280, "height": 900}) as tab:
        # the site's bar, with its navigation (the audit among it), and the site's style
        assert tab.locator("header.topbar nav a[href='/audit']").inner_text() == "Audit"
        assert tab.locator("header.topbar nav a[href='/']").count() == 1
        assert tab.evaluate("getComputedStyle(document.body).backgroundColor") == \
            "rgb(246, 244, 239)"
        assert tab.locator("footer.footer").count() == 1
        assert tab.locator("h1").inner_text() == "Fairness audit of this server"
        assert "30 verified matches audited" in tab.locator(".audit-verdict").inner_text()
        # the time the report was computed, in UTC ISO 8601
        assert tab.locator(".computed").inner_text().startswith("Computed 20")
        assert "Z" in tab.locator(".computed").inner_text().split()[1]
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SHOTS / "audit-desktop.png"), full_page=True)


def _sections(tab: Any) -> list[dict[str, Any]]:
    """Each figure's heading, whether a drawing follows it, and the sentence when none does."""
    return list(tab.evaluate("""() => [...document.querySelectorAll('.audit-report h2')]
        .map(h => { const next = h.nextElementSibling;
                    return {heading: h.textContent,
                            drawn: !!(next && next.matches('figure') && next.querySelector('svg')),
                            words: next && next.matches('p.not-drawn') ? next.textContent : ''};
        })"""))


def test_a_test_not_run_draws_no_figure_and_says_why(served: str, browser: Any) -> None:
    with _open(browser, served, {"width": 1280, "height": 900}) as tab:
        verdicts = dict(tab.evaluate("""() => [...document.querySelectorAll(
            '.audit-tests tbody tr')].map(r => [r.cells[1].firstChild.textContent,
                                              r.cells[0].textContent])"""))
        assert verdicts["deal-position arcomage/normal deck"] == "SKIP"
        assert verdicts["seat-hands arcomage/normal"] == "PASS"
        sections = {s["heading"]: s for s in _sections(tab)}
        heat = sections["arcomage/normal deck: card × position over 30 deals"]
        assert not heat["drawn"]
        assert heat["words"].startswith("Not drawn: the test deal-position arcomage/normal "
                                        "deck was not run with 30 deals")
        # no heat map anywhere on the page: its red cells would only show chance
        assert "seen more often" not in tab.locator(".audit-report").inner_text()
        # the tests that ran keep their figures
        assert sections["arcomage/normal: opening-hand strength by seat"]["drawn"]
        assert sections["p-value overview"]["drawn"]
        # the overview names every test, the one not run included
        overview = tab.locator("figure.audit-figure svg").first.text_content() or ""
        for name in verdicts:
            assert name in overview, name
        assert "not run" in overview


def test_on_a_phone_the_table_scrolls_and_the_page_does_not(served: str, browser: Any) -> None:
    with _open(browser, served, PHONE, is_mobile=True, has_touch=True) as tab:
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        box = tab.locator(".table-scroll")
        frame = box.bounding_box()
        assert frame and frame["x"] >= 0 and frame["x"] + frame["width"] <= PHONE["width"]
        # the table is wider than the phone: it scrolls inside its box
        assert tab.evaluate("(b) => b.scrollWidth > b.clientWidth + 50", box.element_handle())
        assert tab.evaluate("(b) => getComputedStyle(b).overflowX", box.element_handle()) == \
            "auto"
        sizes = tab.evaluate("""() => [...document.querySelectorAll('.audit-tests td')]
            .map(c => parseFloat(getComputedStyle(c).fontSize))""")
        assert min(sizes) >= 12
        # by keyboard too: the box takes the focus and the arrow keys scroll it
        box.focus()
        tab.keyboard.press("ArrowRight")
        tab.keyboard.press("ArrowRight")
        tab.wait_for_timeout(300)  # the keys' scroll is smooth: let it move
        assert tab.evaluate("(b) => b.scrollLeft", box.element_handle()) > 0
        tab.evaluate("(b) => { b.scrollLeft = 0; b.blur(); }", box.element_handle())
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SHOTS / "audit-phone.png"), full_page=True)
