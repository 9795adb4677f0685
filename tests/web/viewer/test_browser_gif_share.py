"""Issue 21 (15): the share box shows how far the first GIF of a match is drawn, in a real
browser (Debian's chromium through Playwright) against a real server, and saves the GIF when
it is there. The real drawing is held after a few frames, so the progress can be looked at."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from fairdeal.web.viewer import replay_gif
from fairdeal.web.viewer.matches import load_bundle

from . import conftest as helpers
from .browsing import NEEDS_CHROMIUM, SHOTS, chromium, serving

pytestmark = NEEDS_CHROMIUM

HELD_AT = 3


@pytest.fixture()
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """The server's real drawing, stopped after HELD_AT frames until told to go on."""
    reached, go_on = threading.Event(), threading.Event()
    real = replay_gif.match_gif

    def drawing(match: Any, first: int, last: int, seat: int | None = None,
                progress: Any = None, **options: Any) -> bytes:
        def told(drawn: int, frames: int) -> None:
            progress(drawn, frames)
            if drawn == HELD_AT:
                reached.set()
                assert go_on.wait(60)
        return real(match, first, last, seat, progress=told, **options)
    monkeypatch.setattr(replay_gif, "match_gif", drawing)
    yield reached, go_on
    go_on.set()


def test_the_share_box_shows_the_gifs_progress_and_saves_it(
        held: tuple[threading.Event, threading.Event], tmp_path: Path) -> None:
    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app

    reached, go_on = held
    store = MemoryLedger()
    bundle = helpers.bundle_bytes(helpers.simulate("arcomage", 1, seed="gif-share")[0])
    match_id, _ = store.import_bundle(bundle)
    steps = load_bundle(bundle).last_step + 1  # the whole match: one GIF
    with serving(create_viewer_app(store)) as url, chromium() as browser:
        tab = browser.new_page(viewport={"width": 1100, "height": 900})
        tab.goto(f"{url}/m/{match_id}")
        tab.click(".gif-share summary")
        status = tab.locator("#gif-progress")
        assert status.is_hidden()
        tab.click("#gif-download")
        assert reached.wait(60), "the server never started drawing"
        tab.wait_for_function(
            "() => /Drawing the GIF: 3 of \\d+ frames/.test("
            "document.getElementById('gif-progress-text').textContent)", timeout=30_000)
        bar = tab.evaluate("() => { const b = document.getElementById('gif-progress-bar');"
                           " return [b.value, b.max]; }")
        assert bar == [HELD_AT, steps]
        assert status.is_visible()
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.locator(".gif-share").screenshot(path=str(SHOTS / "gif-share-progress.png"))
        with tab.expect_download(timeout=60_000) as saving:
            go_on.set()
        saved = saving.value
        assert saved.suggested_filename == f"{match_id}.gif"
        path = tmp_path / "saved.gif"
        saved.save_as(str(path))
        with Image.open(path) as gif:
            assert gif.format == "GIF" and gif.n_frames == bar[1]
        tab.wait_for_function("() => document.getElementById('gif-progress-text')"
                              ".textContent.startsWith('GIF ready')", timeout=30_000)
        tab.locator(".gif-share").screenshot(path=str(SHOTS / "gif-share-ready.png"))
