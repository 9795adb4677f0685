"""What the browser tests share: where Chromium is and how it starts, the mark that skips them
without it, where screenshots go, and a real HTTP server for an app."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("FAIRDEAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(__file__).resolve().parents[3] / "test-output" / "screenshots"

#: a browser test's marks: ``pytestmark = NEEDS_CHROMIUM``
NEEDS_CHROMIUM = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"no Chromium at {CHROMIUM} (CI installs Debian's chromium; "
                              "set FAIRDEAL_CHROMIUM to another path)"),
]


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium through Playwright, closed afterwards."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` on a real threaded HTTP server on a free local port; yields its base URL."""
    from werkzeug.serving import make_server

    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        thread.join(5)
