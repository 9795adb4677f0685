"""On a phone (390 px wide, Debian's chromium through Playwright) every game's board is drawn
whole: the drawing scales to the width it is given, seat B's side included, with nothing
scrolled out of sight."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("FAIRDEAL_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(__file__).resolve().parents[3] / "test-output" / "screenshots"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"no Chromium at {CHROMIUM} (CI installs Debian's chromium; "
                              "set FAIRDEAL_CHROMIUM to another path)"),
]


@pytest.fixture(scope="module")
def served(helpers_module: Any) -> Iterator[tuple[str, dict[str, str]]]:
    from werkzeug.serving import make_server

    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app

    store = MemoryLedger()
    ids = {}
    for game in ("arcomage", "toybattle", "wyrdstone"):
        bundle = helpers_module.simulate(game, 1, seed=f"phone-{game}")[0]
        ids[game], _ = store.import_bundle(helpers_module.bundle_bytes(bundle))
    httpd = make_server("127.0.0.1", 0, create_viewer_app(store), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", ids
    httpd.shutdown()
    thread.join(5)


@pytest.fixture(scope="module")
def helpers_module() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("viewer_conftest",
                                                  Path(__file__).with_name("conftest.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", ["arcomage", "toybattle", "wyrdstone"])
def test_the_board_fits_a_phone(served: tuple[str, dict[str, str]], game: str) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api")
    url, ids = served
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
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
        finally:
            browser.close()
