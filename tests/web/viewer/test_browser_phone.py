"""On a phone (390 px wide, Debian's chromium through Playwright) every game's match page is
readable: the drawing scales to the width it is given, seat B's side included, with nothing
scrolled out of sight; the board in words (the game's own text drawing of the same step) is
open below it at the page's font size and follows the stepper; and a card tapped on the
drawing (or reached with Tab and Enter) shows its whole text at that size too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fairdeal.web.viewer.matches import load_bundle
from fairdeal.web.viewer.words import word_lines

from . import conftest as helpers
from .browsing import NEEDS_CHROMIUM, SHOTS, chromium, serving

pytestmark = NEEDS_CHROMIUM

GAMES = ["arcomage", "toybattle", "wyrdstone", "crazy-eights"]
PHONE = {"width": 390, "height": 844}
#: the smallest text a person is asked to read on a phone, in CSS pixels
READABLE_PX = 12


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, dict[str, str], dict[str, bytes]]]:
    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app

    store = MemoryLedger()
    ids, files = {}, {}
    for game in GAMES:
        files[game] = helpers.bundle_bytes(helpers.simulate(game, 1, seed=f"phone-{game}")[0])
        ids[game], _ = store.import_bundle(files[game])
    with serving(create_viewer_app(store)) as url:
        yield url, ids, files


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as running:
        yield running


def _phone(browser: Any, url: str) -> Any:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    return context.new_page()


def _words(game: str, data: bytes, step: int) -> list[str]:
    """The game's own text drawing of ``step``, everything shown (the page's default view)."""
    match = load_bundle(data)
    state = match.step(step)
    assert state is not None and match.game is not None
    return [words for _, words in word_lines(match.game.render_text(state.state, None))]


@pytest.mark.parametrize("game", GAMES)
def test_the_board_fits_a_phone(served: tuple[str, dict[str, str], dict[str, bytes]],
                                browser: Any, game: str) -> None:
    url, ids, _ = served
    tab = _phone(browser, url)
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
    assert tab.evaluate("(b) => b.scrollWidth <= b.clientWidth + 1", board.element_handle())
    # every text of the drawing, the rightmost (seat B's side) included, is on screen
    rightmost = tab.evaluate(
        "(s) => Math.max(...[...s.querySelectorAll('text')]"
        ".map(t => t.getBoundingClientRect().right))", svg.element_handle())
    assert rightmost <= 390, f"text runs off the screen at {rightmost:.0f}px"
    # and the page as a whole never scrolls sideways
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    tab.context.close()


@pytest.mark.parametrize("game", GAMES)
def test_a_phone_reads_the_board_in_words(served: tuple[str, dict[str, str], dict[str, bytes]],
                                          browser: Any, game: str) -> None:
    url, ids, files = served
    tab = _phone(browser, url)
    tab.goto(f"{url}/m/{ids[game]}?step=8")
    box = tab.locator("#board-words-box")
    assert box.evaluate("(b) => b.open"), "the board in words starts open on a phone"
    lines = tab.locator("#board-words li")
    # the same state the drawing shows: the game's own words for step 8, line for line
    assert lines.all_text_contents() == _words(game, files[game], 8)
    sizes = lines.evaluate_all("(ls) => ls.map(l => parseFloat(getComputedStyle(l).fontSize))")
    assert min(sizes) >= READABLE_PX, f"text of {min(sizes)}px in the board in words"
    widest = lines.evaluate_all("(ls) => Math.max(...ls.map(l => "
                                "l.getBoundingClientRect().right))")
    assert widest <= 390
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"phone-{game}.png"), full_page=True)
    # the stepper's next step brings that step's words (fetched, without a reload)
    tab.locator("#next").tap()
    tab.wait_for_selector("#stepper[data-shown='9']")
    assert lines.all_text_contents() == _words(game, files[game], 9)
    tab.context.close()


def _piece_text(tab: Any, index: int) -> str:
    return str(tab.locator("#board g.piece").nth(index).evaluate(
        "(g) => g.querySelector(':scope > title').textContent.trim()"))


@pytest.mark.parametrize("game", GAMES)
def test_tap_a_card_for_its_text(served: tuple[str, dict[str, str], dict[str, bytes]],
                                 browser: Any, game: str) -> None:
    url, ids, _ = served
    tab = _phone(browser, url)
    tab.goto(f"{url}/m/{ids[game]}?step=8")
    pieces = tab.locator("#board g.piece")
    assert pieces.count() >= 1, "the drawing has cards or pieces to tap"
    assert tab.locator("#piece-hint").is_visible()
    detail = tab.locator("#piece-detail")
    assert detail.is_hidden()
    pieces.last.tap()
    assert detail.is_visible()
    assert tab.locator("#piece-text").inner_text() == _piece_text(tab, pieces.count() - 1)
    size = tab.locator("#piece-text").evaluate("(p) => parseFloat(getComputedStyle(p).fontSize)")
    assert size >= READABLE_PX
    shown = detail.bounding_box()
    assert shown and shown["x"] >= 0 and shown["x"] + shown["width"] <= 390
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    detail.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.locator(".board-card").screenshot(path=str(SHOTS / f"phone-{game}-card.png"))
    tab.locator("#piece-close").tap()
    assert detail.is_hidden()
    tab.context.close()


@pytest.mark.parametrize("game", GAMES)
def test_the_cards_are_reached_by_keyboard(served: tuple[str, dict[str, str], dict[str, bytes]],
                                           browser: Any, game: str) -> None:
    url, ids, _ = served
    tab = browser.new_context(viewport=PHONE).new_page()
    tab.goto(f"{url}/m/{ids[game]}?step=8")
    # Tab from the top of the page reaches the first card of the drawing
    for _ in range(40):
        tab.keyboard.press("Tab")
        if tab.evaluate("document.activeElement.matches('#board g.piece')"):
            break
    else:
        raise AssertionError("Tab never reached a card of the drawing")
    first = tab.evaluate("document.activeElement.getAttribute('aria-label')")
    assert first == _piece_text(tab, 0)
    tab.keyboard.press("Enter")
    assert tab.locator("#piece-text").inner_text() == first
    # Space reads a card too, and does not start the autoplay as it does elsewhere
    if tab.locator("#board g.piece").count() > 1:
        tab.keyboard.press("Tab")
        tab.keyboard.press(" ")
        assert tab.locator("#piece-text").inner_text() == _piece_text(tab, 1)
    assert tab.locator("#play").get_attribute("aria-pressed") == "false"
    tab.keyboard.press("Escape")
    assert tab.locator("#piece-detail").is_hidden()
    tab.context.close()
