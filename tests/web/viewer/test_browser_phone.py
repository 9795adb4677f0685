"""On a phone (390 px wide, Debian's chromium through Playwright) every game's board is drawn
whole: the drawing scales to the width it is given, seat B's side included, with nothing
scrolled out of sight."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import conftest as helpers
from .browsing import NEEDS_CHROMIUM, SHOTS, chromium, serving

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, dict[str, str]]]:
    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app

    store = MemoryLedger()
    ids = {}
    for game in ("arcomage", "toybattle", "wyrdstone"):
        bundle = helpers.simulate(game, 1, seed=f"phone-{game}")[0]
        ids[game], _ = store.import_bundle(helpers.bundle_bytes(bundle))
    with serving(create_viewer_app(store)) as url:
        yield url, ids


@pytest.mark.parametrize("game", ["arcomage", "toybattle", "wyrdstone"])
def test_the_board_fits_a_phone(served: tuple[str, dict[str, str]], game: str) -> None:
    url, ids = served
    with chromium() as browser:
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        tab = phone.new_page()
        tab.goto(f"{url}/m/{ids[game]}?step=8")
        board = tab.locator("#board")
        svg = tab.locator("#board svg")
        frame = board.bounding_box()
        drawing = svg.bounding_box()
        assert frame and drawing
        # the drawing is as wide as its frame, not wider: nothing to scroll sideways to
        assert drawing["x"] >= frame["x"] - 1
        assert drawing["x"] + drawing["width"] <= frame["x"] + frame["width"] + 1
        assert drawing["x"] + drawing["width"] <= 390
        assert tab.evaluate("(b) => b.scrollWidth <= b.clientWidth + 1",
                            board.element_handle())
        # every text of the drawing, the rightmost (seat B's side) included, is on screen
        rightmost = tab.evaluate(
            "(s) => Math.max(...[...s.querySelectorAll('text')]"
            ".map(t => t.getBoundingClientRect().right))", svg.element_handle())
        assert rightmost <= 390, f"text runs off the screen at {rightmost:.0f}px"
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SHOTS / f"phone-{game}.png"), full_page=True)
        phone.close()
