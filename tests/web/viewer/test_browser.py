"""Real-browser tests: Debian's chromium driven by Playwright against a real server.

Never downloads a browser: it launches /usr/bin/chromium (CI installs it). Screenshots of every
page land in test-output/screenshots/ for a reviewer to look at.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier.report import CHECKS, OPTIONAL_CHECKS

from .browsing import NEEDS_CHROMIUM, SHOTS, serving

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Bot matches written by the real CLI, as a user would have them."""
    folder = tmp_path_factory.mktemp("bundles")
    cli = [sys.executable, "-m", "fairdeal.cli.main"]
    fairdeal = Path(sys.executable).with_name("fairdeal")
    if fairdeal.exists():
        cli = [str(fairdeal)]
    subprocess.run(cli + ["simulate", "arcomage", "--seed", "browser", "-n", "4",
                          "--bots", "random,random", "--out", str(folder / "arcomage")],
                   check=True, capture_output=True)
    subprocess.run(cli + ["simulate", "toybattle", "--seed", "browser-tb", "-n", "1",
                          "--out", str(folder / "toybattle")], check=True, capture_output=True)
    subprocess.run(cli + ["simulate", "arcomage", "--seed", "browser-live", "-n", "1",
                          "--out", str(folder / "live")], check=True, capture_output=True)
    return folder


def _cli() -> list[str]:
    fairdeal = Path(sys.executable).with_name("fairdeal")
    return [str(fairdeal)] if fairdeal.exists() else [sys.executable, "-m", "fairdeal.cli.main"]


def _replay(path: Path) -> list[dict[str, Any]]:
    """Every step's state, as `fairdeal replay --json` prints it."""
    out = subprocess.run(_cli() + ["replay", str(path), "--json"], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def long_match(bundle_dir: Path) -> Path:
    """The longest arcomage match of the run (well over 17 steps)."""
    paths = sorted((bundle_dir / "arcomage").glob("*.json"),
                   key=lambda p: len(json.loads(p.read_bytes())["events"]))
    return paths[-1]


@pytest.fixture(scope="module")
def server(bundle_dir: Path) -> Iterator[str]:
    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app, load_folder

    store = MemoryLedger()
    load_folder(store, bundle_dir / "arcomage")
    load_folder(store, bundle_dir / "toybattle")
    # one match still in play: its first events only
    unfinished = next((bundle_dir / "live").glob("*.json"))
    store.add_live(json.loads(unfinished.read_bytes())["events"][:9])
    with serving(create_viewer_app(store)) as url:
        yield url


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _towers(page: Any) -> list[int]:
    """The tower heights the drawing shows, seat A's first."""
    texts = page.locator("#board svg text").all_text_contents()
    return [int(text.split()[1]) for text in texts if text.startswith("tower ")]


def _expected_towers(state: dict[str, Any]) -> list[int]:
    return [player["tower"] for player in state["players"]]


def _wait_step(page: Any, number: int) -> None:
    page.wait_for_function(
        "n => document.getElementById('stepper').getAttribute('data-shown') === String(n)",
        arg=number)


def test_step_with_the_keyboard(page: Any, server: str, long_match: Path) -> None:
    states = _replay(long_match)
    match_id = long_match.stem
    page.goto(f"{server}/m/{match_id}")
    assert page.locator("#step-number").inner_text() == "0"
    assert _towers(page) == _expected_towers(states[0])
    for number in range(1, 8):
        page.keyboard.press("ArrowRight")
        _wait_step(page, number)
        assert page.locator("#step-number").inner_text() == str(number)
        assert _towers(page) == _expected_towers(states[number]), f"step {number}"
        assert page.evaluate("location.hash") == f"#{number}"
    page.keyboard.press("ArrowLeft")
    _wait_step(page, 6)
    assert _towers(page) == _expected_towers(states[6])
    current = page.locator("#event-list li.is-current")
    assert current.count() == 1 and current.get_attribute("data-step") == "6"
    _shot(page, "match-arcomage")
    page.keyboard.press("End")
    _wait_step(page, len(states) - 1)
    assert page.locator("#step-number").inner_text() == str(len(states) - 1)
    assert _towers(page) == _expected_towers(states[-1])
    assert page.locator("#slider").input_value() == str(len(states) - 1)
    page.keyboard.press("Home")
    _wait_step(page, 0)
    assert page.evaluate("location.search") == "?step=0"


def test_shared_link_at_step_17(page: Any, server: str, long_match: Path) -> None:
    states = _replay(long_match)
    assert len(states) > 17
    match_id = long_match.stem
    page.goto(f"{server}/m/{match_id}?step=17")
    assert page.locator("#step-number").inner_text() == "17"
    assert _towers(page) == _expected_towers(states[17])
    assert page.locator("#event-list li.is-current").get_attribute("data-step") == "17"
    # the hash alone also opens the step (what the page writes while stepping)
    page.goto(f"{server}/m/{match_id}#17")
    _wait_step(page, 17)
    assert _towers(page) == _expected_towers(states[17])
    # the perspective switch keeps the step
    page.locator(".perspective .chip[data-view='a']").click()
    page.wait_for_url("**view=a**")
    assert page.locator("#step-number").inner_text() == "17"
    assert "B's hand: " in page.locator("#board svg").inner_html()
    _shot(page, "match-arcomage-step17-seat-a")


def test_autoplay_and_buttons(page: Any, server: str, long_match: Path) -> None:
    page.goto(f"{server}/m/{long_match.stem}?step=3")
    page.locator("#next").click()
    _wait_step(page, 4)
    page.locator("#prev").click()
    _wait_step(page, 3)
    page.select_option("#speed", "250")
    page.locator("#play").click()
    _wait_step(page, 5)
    page.locator("#play").click()
    assert page.locator("#play").get_attribute("aria-pressed") == "false"
    shown = int(page.locator("#step-number").inner_text())
    assert page.locator("#copy-link").get_attribute("data-url").endswith(f"?step={shown}")


def test_upload_a_tampered_bundle_shows_the_failure(page: Any, server: str, long_match: Path,
                                                    tmp_path: Path) -> None:
    bundle = json.loads(long_match.read_bytes())
    moves = [event for event in bundle["events"] if event["type"] == "move"]
    target = moves[5]
    target["action"] = {**target["action"], "card": 999}  # edited, not re-chained
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(bundle))
    page.goto(f"{server}/upload")
    _shot(page, "upload")
    page.set_input_files("#bundle-file", str(forged))
    page.locator("#verify-button").click()
    page.wait_for_url("**/u/u-*")
    failure = page.locator(".failure").inner_text()
    # editing an event breaks the link the next event holds to it
    assert f"chain check failed at event {target['seq'] + 1}" in failure
    assert f"event {target['seq']} " in failure  # names the edited event
    assert page.locator(".check-row[data-check='chain']").get_attribute("class").endswith(
        "status-fail")
    assert page.locator(f"#event-{target['seq'] + 1}.is-failed").count() == 1
    last = int(page.locator("#step-last").inner_text())
    # the forged card is illegal too, so the replay itself stops before the forged move
    plays = [e for e in bundle["events"] if e["type"] in ("move", "timeout", "resign")]
    assert last == sum(1 for e in plays if e["seq"] < target["seq"])
    assert "replay also stops" in page.locator(".warning").inner_text()
    _shot(page, "upload-tampered")


def test_bad_json_upload_shows_the_parser_message(page: Any, server: str) -> None:
    page.goto(f"{server}/upload")
    page.fill("#pasted", '{"format": "fairdeal.bundle/1", "events": [')
    page.locator("#verify-button").click()
    assert "not valid JSON at line 1" in page.locator("#format-failure").inner_text()
    _shot(page, "upload-bad-json")


def test_other_pages_render(page: Any, browser: Any, server: str, bundle_dir: Path,
                            long_match: Path) -> None:
    page.goto(server + "/")
    assert page.locator(".match-card").count() == 6
    assert page.locator(".verdict.live").count() == 1
    _shot(page, "home")
    toy = min((bundle_dir / "toybattle").glob("*.json")).stem
    page.goto(f"{server}/m/{toy}?step=6")
    assert page.locator("#board svg").count() == 1
    _shot(page, "match-toybattle")
    page.goto(f"{server}/embed/{long_match.stem}?step=10")
    _shot(page, "embed")
    live = next((bundle_dir / "live").glob("*.json")).stem
    page.goto(f"{server}/m/{live}")
    panel = page.locator("#verification").inner_text()
    assert "not yet verifiable" in panel and "every check passed" not in panel
    assert page.locator(".check-row.status-pass").count() == 2  # format, chain so far
    # the rest wait for the reveal; the receipts are a player's check to run (skipped)
    pending = len(CHECKS) - 2 - len(OPTIONAL_CHECKS)
    assert page.locator(".check-row.status-pending").count() == pending
    assert page.locator(".check-row.status-skipped").count() == len(OPTIONAL_CHECKS)
    _shot(page, "match-live")
    page.goto(f"{server}/m/nothing-here")
    _shot(page, "not-found")
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    tab = phone.new_page()
    tab.goto(f"{server}/m/{long_match.stem}?step=12")
    width = tab.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    _shot(tab, "match-phone")
    tab.goto(server + "/")
    _shot(tab, "home-phone")
    phone.close()


@pytest.fixture(scope="module")
def ledger_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """The project's app over a real ledger (SQLite), served on a free port."""
    from werkzeug.serving import make_server

    from fairdeal.web.app import create_app

    app = create_app({"FAIRDEAL_DATA_DIR": str(tmp_path_factory.mktemp("ledger")),
                      "FAIRDEAL_SWEEPER": False})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", app.extensions["fairdeal.ledger"]
    httpd.shutdown()
    thread.join(5)


def test_watch_a_live_match(page: Any, ledger_server: tuple[str, Any]) -> None:
    import random

    from fairdeal.games import get_bots, get_game

    base, ledger = ledger_server
    created = ledger.create_match("arcomage", {}, seats=["ann", "bob"], turn_limit_ms=None)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    ledger.add_seed(match_id, tokens[0], None)
    ledger.add_seed(match_id, tokens[1], None)
    game, bot, rng = get_game("arcomage"), get_bots("arcomage")["greedy"], random.Random(3)

    def move(index: int) -> None:
        state = ledger.matches.get(match_id).recorder.state
        seat = game.current_seat(state)
        ledger.play(match_id, tokens[seat], game.action_to_json(bot.choose(state, rng)),
                    expected_seq=ledger.view(match_id, None)["next_seq"],
                    action_id=f"m{index}")

    move(0)
    page.goto(f"{base}/m/{match_id}")
    assert "not yet verifiable" in page.locator("#verification").inner_text()
    assert page.locator("#event-list li").count() == 4
    assert page.locator("#public-state table").count() == 1
    assert len(_towers(page)) == 2  # the castles drawn from the public view
    assert "this server's key" not in page.locator("#key-fact").inner_text()  # nothing signed
    _shot(page, "match-live-ledger")
    move(1)
    # the page polls the public events and refreshes itself
    page.wait_for_function("() => document.querySelectorAll('#event-list li').length === 5",
                           timeout=10_000)
    for index in range(2, 200):
        if ledger.bundle_bytes(match_id) is not None:
            break
        move(index)
    page.wait_for_selector("#stepper", timeout=10_000)  # sealed: the stepper replaces it
    assert "every check passed" in page.locator("#verification").inner_text()
    assert "this server's key" in page.locator("#key-fact").inner_text()


def test_home_badges_say_who_signed(page: Any, ledger_server: tuple[str, Any]) -> None:
    """A bundle re-forged under another key, posted to the API without authentication, reads
    "signed by another server" and its key id in the browser, never "verified"."""
    import urllib.request

    from fairdeal.client.simulate import SimulationSettings, simulate_matches

    base, ledger = ledger_server
    fixtures = Path(__file__).resolve().parents[3] / "fixtures" / "bundles" / "tampered"
    forged = (fixtures / "reforged-under-new-key.json").read_bytes()
    settings = SimulationSettings(game="arcomage", params={}, bots=("random", "greedy"))
    ours = next(simulate_matches(settings, 1, seed="browser-own", server_key=ledger.server_key))
    answers = []
    for data in (forged, json.dumps(ours).encode()):
        request = urllib.request.Request(f"{base}/api/v1/bundles", data=data, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            answers.append(json.loads(response.read()))
    forged_id, own_id = answers[0]["id"], answers[1]["id"]
    signer = answers[0]["signed_by"]["key_id"]
    page.goto(base + "/")
    forged_card = page.locator(f".match-card:has(a[href='/m/{forged_id}'])")
    badge = forged_card.locator(".verdict")
    assert badge.inner_text() == f"signed by another server · key {signer}"
    assert "verified" not in forged_card.inner_text()
    assert badge.evaluate("e => getComputedStyle(e).display") != "none"
    own_badge = page.locator(f".match-card:has(a[href='/m/{own_id}']) .verdict")
    assert own_badge.inner_text() == "✓ verified"
    _shot(page, "home-signers")
    page.locator(".signer-filter a", has_text="Signed by another server").click()
    page.wait_for_url("**signer=other**")
    assert page.locator(f"a[href='/m/{forged_id}']").count() == 1
    assert page.locator(f"a[href='/m/{own_id}']").count() == 0
    assert page.locator(".verdict.ok").count() == 0
    page.goto(f"{base}/m/{forged_id}")
    panel = page.locator("#verification").inner_text()
    assert f"signed by another server · key {signer}" in panel
    assert "every check passed" not in panel
    assert "Who could have influenced this deal:" in page.locator("#deal-influence").inner_text()
    _shot(page, "match-signed-by-another-server")


def test_stepping_works_without_javascript(browser: Any, server: str, long_match: Path) -> None:
    states = _replay(long_match)
    context = browser.new_context(java_script_enabled=False)
    tab = context.new_page()
    tab.goto(f"{server}/m/{long_match.stem}?step=2")
    tab.locator("#next").click()
    tab.wait_for_url("**step=3**")
    assert tab.locator("#step-number").inner_text() == "3"
    assert _towers(tab) == _expected_towers(states[3])
    tab.locator("#event-list li[data-step='9'] a").click()
    tab.wait_for_url("**step=9**")
    assert _towers(tab) == _expected_towers(states[9])
    assert not tab.locator("#play").is_visible()  # the JavaScript-only controls are hidden
    _shot(tab, "match-no-javascript")
    context.close()


def test_the_dispute_link_follows_the_step(page: Any, server: str, long_match: Path) -> None:
    match_id = long_match.stem
    page.goto(f"{server}/m/{match_id}?step=2")
    link = page.locator("#dispute-link")
    assert link.get_attribute("href") == f"/m/{match_id}/dispute?step=2"
    page.keyboard.press("ArrowRight")
    _wait_step(page, 3)
    assert link.get_attribute("href") == f"/m/{match_id}/dispute?step=3"
    link.click()
    page.wait_for_url(f"**/m/{match_id}/dispute?step=3")
    assert page.locator("h1").inner_text() == f"Dispute report: match {match_id}, step 3"
