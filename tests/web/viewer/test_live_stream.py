"""The live page in a real Chromium: it follows the match's event stream and refreshes its
live parts in place at each move (no reload), reloads into the verified replay when the match
ends, and falls back to polling when the server refuses the stream."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from fairdeal.games import get_bots, get_game
from fairdeal.web.app import create_app

from .browsing import NEEDS_CHROMIUM, chromium, serving

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


def _site(tmp_path: Any, **config: Any) -> Any:
    return create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                       "FAIRDEAL_STREAM_HEARTBEAT_S": 0.5, **config})


class Bots:
    """A match the ledger's bots play one move at a time, when the test says."""

    def __init__(self, ledger: Any) -> None:
        self.ledger = ledger
        created = ledger.create_match("arcomage", {}, seats=["ann", "bob"], turn_limit_ms=None)
        self.id = created["id"]
        self.tokens = [seat["token"] for seat in created["seats"]]
        for token in self.tokens:
            ledger.add_seed(self.id, token, None)
        self.game, self.bot = get_game("arcomage"), get_bots("arcomage")["greedy"]
        self.rng, self.moves = random.Random(3), 0

    def move(self) -> None:
        state = self.ledger.matches.get(self.id).recorder.state
        seat = self.game.current_seat(state)
        self.ledger.play(self.id, self.tokens[seat],
                         self.game.action_to_json(self.bot.choose(state, self.rng)),
                         expected_seq=self.ledger.view(self.id, None)["next_seq"],
                         action_id=f"m{self.moves}")
        self.moves += 1

    def events(self) -> int:
        return int(self.ledger.view(self.id, None)["next_seq"])


def _open(browser: Any, url: str) -> tuple[Any, Any, list[str], list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url)
    return context, page, errors, requests


def _wait_events(page: Any, count: int, timeout: int = 10_000) -> None:
    page.wait_for_function(
        f"() => document.querySelectorAll('#event-list li').length === {count}",
        timeout=timeout)


def test_the_live_page_follows_the_stream_in_place_then_shows_the_sealed_match(
        browser: Any, tmp_path: Any) -> None:
    app = _site(tmp_path)
    bots = Bots(app.extensions["fairdeal.ledger"])
    bots.move()
    with serving(app) as base:
        context, page, errors, requests = _open(browser, f"{base}/m/{bots.id}")
        try:
            assert page.locator("[data-live-url]").get_attribute("data-live-mode") == "stream"
            assert any(url.endswith(f"/api/v1/matches/{bots.id}/stream?after=3")
                       for url in requests), requests
            _wait_events(page, 4)
            page.evaluate("() => { window.sameDocument = true; }")
            for _ in range(3):
                bots.move()
                _wait_events(page, bots.events(), timeout=5_000)
            # in place: the same document (no reload), its board and counts refreshed
            assert page.evaluate("() => window.sameDocument") is True
            assert not any(url.endswith("/live.json") for url in requests)  # never polled
            caption = page.locator(".live-board .caption").inner_text()
            assert f"{bots.events()} public events so far" in caption
            while app.extensions["fairdeal.ledger"].bundle_bytes(bots.id) is None:
                bots.move()
            page.wait_for_selector("#stepper", timeout=10_000)  # sealed: reloaded to replay
            assert "every check passed" in page.locator("#verification").inner_text()
            assert page.evaluate("() => window.sameDocument") is None
            assert not errors, errors
        finally:
            context.close()


def test_the_live_page_polls_when_the_server_refuses_the_stream(
        browser: Any, tmp_path: Any) -> None:
    app = _site(tmp_path, FAIRDEAL_STREAMS_MAX=0)
    bots = Bots(app.extensions["fairdeal.ledger"])
    bots.move()
    with serving(app) as base:
        context, page, errors, requests = _open(browser, f"{base}/m/{bots.id}")
        try:
            page.wait_for_function(
                "() => document.querySelector('[data-live-url]').dataset.liveMode === 'poll'",
                timeout=5_000)
            bots.move()
            _wait_events(page, 5)  # the poll saw the new event and reloaded the page
            assert any(url.endswith("/live.json") for url in requests)
        finally:
            context.close()
