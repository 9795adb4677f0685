"""Players by the key they sign with, in a real Chromium over a real ledger (issue 21): a match
page's seat links to its key's page; the key page lists every match the key signed, newest
first, with its record, its names as labels and its audit, and pages on; the search box finds
matches by name (keys beside the names), by match-id prefix and by key id; a page past the end
says so. The key page's screenshot lands in test-output/screenshots/key-page.png."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey
from fairdeal.web.app import create_app

from ...keyed import ANN, BOB, EVE, keyed_match
from .browsing import NEEDS_CHROMIUM, SHOTS, serving

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Ledger, list[str]]]:
    """A ledger where ann's key played 23 matches (more than one page), under two names."""
    folder: Path = tmp_path_factory.mktemp("keys")
    engine = open_engine(f"sqlite:///{folder / 'ledger.db'}")
    clock = itertools.count(1_800_000_000_000, 1000)
    ledger = Ledger(EventStore(engine), SigningKey.from_seed(b"\x0a" * 32),
                    clock=lambda: next(clock))
    ids = [keyed_match(ledger, ("ann" if n % 4 else "annie", "bob"), (ANN, BOB),
                       loser=n % 3 if n % 3 < 2 else None) for n in range(22)]
    ids.append(keyed_match(ledger, ("ann", "eve"), (ANN, EVE), loser=1))
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False})
    with serving(app) as url:
        yield url, ledger, ids
    engine.dispose()


def test_a_seat_links_to_its_keys_page(page: Any, site: tuple[str, Ledger, list[str]]) -> None:
    base, _, ids = site
    page.goto(f"{base}/m/{ids[-1]}")
    links = page.locator(".match-title a.seat-key")
    assert links.count() == 2
    assert links.nth(0).inner_text() == f"key {ANN.key_id}"
    assert links.nth(1).inner_text() == f"key {EVE.key_id}"
    links.nth(0).click()
    page.wait_for_url(f"{base}/k/{ANN.key_id}")
    assert page.locator("#key-id").inner_text() == ANN.key_id


def test_the_key_page(page: Any, site: tuple[str, Ledger, list[str]]) -> None:
    base, ledger, ids = site
    page.goto(f"{base}/k/{ANN.key_id[:5]}")  # a prefix goes to the full id's page
    page.wait_for_url(f"{base}/k/{ANN.key_id}")
    assert ANN.public_text in page.locator(".public-key").inner_text()
    names = page.locator("#key-names").inner_text()
    assert "ann (17 matches)" in names and "annie (6 matches)" in names
    assert page.locator("#key-total").inner_text() == "23"
    expected = ledger.key_matches(ANN.key_id)["record"]["arcomage"]
    row = page.locator('#key-record tr[data-game="arcomage"] td').all_inner_texts()
    assert row == [str(expected[k]) for k in ("wins", "losses", "draws", "unfinished")]
    cards = page.locator(".match-list .match-card")
    assert cards.count() == 20
    newest = cards.nth(0)
    assert ids[-1] in newest.inner_text() and "as ann: won" in newest.inner_text()
    assert page.locator("#key-audit").count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "key-page.png"), full_page=True)
    page.locator("#older").click()
    older = page.locator(".match-list .match-card")
    assert older.count() == 3
    assert ids[0] in older.nth(2).inner_text()
    assert page.locator("#older").count() == 0


def test_unknown_and_malformed_key_ids(page: Any, site: tuple[str, Ledger, list[str]]) -> None:
    base, _, _ = site
    unknown = "ffff" if not ANN.key_id.startswith("ffff") else "0000"
    answer = page.goto(f"{base}/k/{unknown}")
    assert answer.status == 404 and "Seat key not found" in page.inner_text("h1")
    answer = page.goto(f"{base}/k/not-a-key")
    assert answer.status == 400 and "Not a key id" in page.inner_text("h1")
    assert "4 to 16 hex digits" in page.inner_text("main")
    answer = page.goto(f"{base}/k/{ANN.key_id}?cursor=yesterday")
    assert answer.status == 400 and "Not a page of this list" in page.inner_text("h1")


def test_search_by_name_prefix_and_key(page: Any, site: tuple[str, Ledger, list[str]]) -> None:
    base, _, ids = site
    page.goto(base + "/")
    page.fill("#q", "eve")
    page.press("#q", "Enter")
    page.wait_for_selector("#searched-for")
    assert "named eve" in page.inner_text("#searched-for")
    card = page.locator(".match-list .match-card")
    assert card.count() == 1 and ids[-1] in card.inner_text()
    keys = card.locator(".seat-key").all_inner_texts()
    assert keys == [f"key {ANN.key_id}", f"key {EVE.key_id}"]  # beside the names
    page.fill("#q", ids[3][:6])
    page.press("#q", "Enter")
    page.wait_for_selector("#searched-for")
    assert f"starts with {ids[3][:6]}" in page.inner_text("#searched-for")
    assert ids[3] in page.locator(".match-list").inner_text()
    page.fill("#q", BOB.key_id[:8])
    page.press("#q", "Enter")
    page.wait_for_url(f"{base}/k/{BOB.key_id}")  # one key, no match: its page
    page.goto(f"{base}/?q=annie&page=9")
    assert "past the end" in page.inner_text("#past-the-end")


def test_home_page_past_the_end(page: Any, site: tuple[str, Ledger, list[str]]) -> None:
    base, _, _ = site
    page.goto(f"{base}/?page=40")
    assert "Page 41 is past the end" in page.inner_text("#past-the-end")
    assert "No matches yet" not in page.inner_text("main")
    page.click("#past-the-end a")
    assert page.locator(".match-list .match-card").count() == 20
