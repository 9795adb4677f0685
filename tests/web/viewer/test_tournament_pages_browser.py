"""The tournament pages in real Chromium over a real HTTP server and the real ledger: on a
phone (390 px) the cross-table scrolls sideways inside its own box while the players' names
stay in sight and the page itself never scrolls sideways; on a desktop the verification panel
sits beside the standings; and a live tournament's page follows its log (a round paired while
the page is open appears on it without a reload)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.web.app import create_app

from ...tournament_play import play_round, registered
from .browsing import NEEDS_CHROMIUM, SHOTS, serving

pytestmark = NEEDS_CHROMIUM

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """Ten players of a round-robin, round 1 played, on a real server polled every 300 ms."""
    folder: Path = tmp_path_factory.mktemp("tournament-browser")
    app = create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False,
                      "FAIRDEAL_TOURNAMENT_POLL_MS": 300})
    ledger = app.extensions["fairdeal.ledger"]
    created, players = registered(ledger, 10, name="the long-named autumn club championship")
    ledger.start_tournament(created["id"], created["organiser_token"])
    ledger.pair_next_round(created["id"], created["organiser_token"])
    play_round(ledger, created["id"], players, moves=2)
    with serving(app) as url:
        yield url, ledger, created


def test_the_crosstable_scrolls_inside_its_box_on_a_phone_with_the_names_in_sight(
        browser: Any, served: tuple[str, Any, dict[str, Any]]) -> None:
    url, _, created = served
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    try:
        tab.goto(f"{url}/t/{created['id']}/crosstable")
        sizes = tab.evaluate("""() => {
            const box = document.querySelector('#crosstable-scroll');
            return {page: document.documentElement.scrollWidth, view: window.innerWidth,
                    box: box.scrollWidth, shown: box.clientWidth};
        }""")
        assert sizes["page"] <= sizes["view"], sizes  # the page never scrolls sideways
        assert sizes["box"] > sizes["shown"], sizes  # the table does, inside its box
        before = tab.evaluate("document.querySelector('tbody .ct-name').getBoundingClientRect()"
                              ".left")
        tab.evaluate("document.querySelector('#crosstable-scroll').scrollLeft = 400")
        moved = tab.evaluate("""() => ({
            name: document.querySelector('tbody .ct-name').getBoundingClientRect().left,
            cell: document.querySelector('tbody .ct-cell, tbody .ct-self')
                  .getBoundingClientRect().left,
            scrolled: document.querySelector('#crosstable-scroll').scrollLeft})""")
        assert moved["scrolled"] > 0
        assert abs(moved["name"] - before) < 1  # sticky: the names stay where they were
        assert moved["cell"] < before  # while the results scroll under them
        font = tab.evaluate("parseFloat(getComputedStyle(document.querySelector("
                            "'.ct-game')).fontSize)")
        assert font >= 12
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SHOTS / "tournament-crosstable-phone.png"), full_page=True)
        tab.goto(f"{url}/t/{created['id']}")
        width = tab.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"]
    finally:
        context.close()
    assert not errors, errors


def test_on_a_desktop_the_verification_panel_sits_beside_the_standings_and_the_page_follows_the_log(
        page: Any, served: tuple[str, Any, dict[str, Any]]) -> None:
    url, ledger, created = served
    page.goto(f"{url}/t/{created['id']}")
    boxes = page.evaluate("""() => ({
        main: document.querySelector('#t-live').getBoundingClientRect().toJSON(),
        side: document.querySelector('#verification').getBoundingClientRect().toJSON(),
        page: document.documentElement.scrollWidth, view: window.innerWidth})""")
    assert boxes["side"]["left"] >= boxes["main"]["right"] - 1
    assert abs(boxes["side"]["top"] - boxes["main"]["top"]) < 2
    assert boxes["page"] <= boxes["view"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "tournament-desktop.png"), full_page=True)
    assert page.locator('#t-live [data-round="2"]').count() == 0
    loads: list[str] = []  # a reload would also show round 2, but is not following the log
    page.on("load", lambda _: loads.append("load"))
    ledger.pair_next_round(created["id"], created["organiser_token"])
    page.wait_for_selector('#t-live [data-round="2"]', timeout=30_000)
    assert not loads, f"the page reloaded {len(loads)} time(s) instead of refreshing #t-live"
    assert page.locator("#t-live").get_attribute("data-refreshed")


def test_a_live_page_reloads_into_the_verified_tournament_when_it_finishes(
        page: Any, served: tuple[str, Any, dict[str, Any]]) -> None:
    url, ledger, _ = served
    created, players = registered(ledger, 2, name="a short final")
    ledger.start_tournament(created["id"], created["organiser_token"])
    ledger.pair_next_round(created["id"], created["organiser_token"])
    play_round(ledger, created["id"], players, moves=2)
    page.goto(f"{url}/t/{created['id']}")
    assert page.locator("#tournament-verdict").count() == 0
    ledger.finish_tournament(created["id"], created["organiser_token"])
    page.wait_for_selector("#tournament-verdict", timeout=30_000)
    assert page.locator("#tournament-verdict").inner_text() == "✓ every check passed"
    assert page.locator("#t-live").get_attribute("data-live-url") is None
    assert page.locator("#export-link").get_attribute("href") == (
        f"/api/v1/tournaments/{created['id']}/export")
