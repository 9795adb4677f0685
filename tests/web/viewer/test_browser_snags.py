"""The newcomer's web snags (issue 21, part 4), in a real headless Chromium against a real
server: the embed's dispute link and its size, what a missing step answers, the secrecy words
of a live page, a tampered file's claimed result, the rules version, Wyrdstone's tavern effects
and equipment, the server's verdict in the page as served, and event times for people."""

from __future__ import annotations

import copy
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from fairdeal.games import get_plugin
from fairdeal.verifier.forge import reseal
from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app

from .browsing import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, SHOTS, chromium, serving

pytestmark = NEEDS_CHROMIUM

TAVERN = {"A": {"tavern": ["gravediggers-gin", "hermits-tea"]}, "B": {"tavern": ["storm-mead"]}}
#: a raw event time as the verifier's reasons quote it (13 digits of ms since 1970)
RAW_TS = re.compile(r"(?<![\w.,])1\d{12}(?![\w])")
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _id(bundle: dict[str, Any]) -> str:
    return str(bundle["events"][0]["match_id"])


def _clock_backwards(bundle: dict[str, Any], key: Any) -> tuple[dict[str, Any], int]:
    """``bundle`` with one move stamped 5 ms before the event before it, re-sealed."""
    forged = copy.deepcopy(bundle)
    events = forged["events"]
    index = next(n for n, event in enumerate(events) if event["type"] == "move" and n > 6)
    events[index]["ts"] = events[index - 1]["ts"] - 5
    reseal(forged, key)
    return forged, int(events[index]["ts"])


@pytest.fixture(scope="module")
def site(helpers_module: Any) -> Iterator[dict[str, Any]]:
    h = helpers_module
    games = {game: h.simulate(game, 1, seed=f"snags-{game}")[0]
             for game in ("arcomage", "toybattle", "crazy-eights")}
    games["wyrdstone"] = h.simulate("wyrdstone", 1, seed="snags-wyrdstone", **TAVERN)[0]
    live = {game: h.simulate(game, 1, seed=f"snags-live-{game}")[0]
            for game in ("wyrdstone", "arcomage")}
    store = MemoryLedger(server_keys=[h.SERVER_KEY.public_text])
    for bundle in games.values():
        assert store.import_bundle(h.bundle_bytes(bundle))[0]
    for bundle in live.values():
        store.add_live(bundle["events"][:12])
    app = create_viewer_app(store, {"TESTING": True})
    tampered, _ = h.tamper_move(games["arcomage"])
    backwards, stamped = _clock_backwards(games["arcomage"], h.SERVER_KEY)
    uploads = {}
    client = app.test_client()
    for name, bundle in (("tampered", tampered), ("backwards", backwards)):
        answer = client.post("/upload", data={"pasted": h.bundle_bytes(bundle).decode()})
        assert answer.status_code == 303, answer.get_data(as_text=True)[:300]
        uploads[name] = answer.location
    with serving(app) as url:
        yield {"url": url, "games": games, "live": live, "uploads": uploads, "app": app,
               "stamped": stamped, "tampered": tampered}


@pytest.fixture(scope="module")
def helpers_module() -> Any:
    from . import conftest

    class Helpers:
        simulate = staticmethod(conftest.simulate)
        bundle_bytes = staticmethod(conftest.bundle_bytes)
        tamper_move = staticmethod(conftest.tamper_move)
        SERVER_KEY = conftest.SERVER_KEY

    return Helpers


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture()
def tab(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    yield page
    page.close()


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"snags-{name}.png"))


# --- 1. the embed's dispute link ------------------------------------------------------------

def test_the_embeds_dispute_link_opens_the_matchs_report(site: dict[str, Any],
                                                         tab: Any) -> None:
    match_id = _id(site["games"]["arcomage"])
    tab.goto(f"{site['url']}/embed/{match_id}?step=3")
    link = tab.locator("#dispute-link")
    assert link.get_attribute("href") == f"/m/{match_id}/dispute?step=3"
    assert link.get_attribute("target") == "_blank"  # out of the frame, to a page of its own
    tab.keyboard.press("ArrowRight")  # the stepper's script moves the link along
    tab.wait_for_function("document.getElementById('step-number').textContent === '4'")
    assert link.get_attribute("href") == f"/m/{match_id}/dispute?step=4"
    answer = tab.goto(site["url"] + link.get_attribute("href"))
    assert answer.status == 200 and "step 4" in tab.content().lower()
    # a link an older embed handed out lands on the report too
    old = tab.goto(f"{site['url']}/embed/{match_id}/dispute?step=2")
    assert old.status == 200 and tab.url.endswith(f"/m/{match_id}/dispute?step=2")


# --- 9. the embed fits its frame, and the suggested size is right ---------------------------

_LAYOUT = """() => {
  const stepper = document.getElementById('stepper').getBoundingClientRect();
  const box = document.querySelector('#board svg').getBoundingClientRect();
  const view = document.querySelector('#board svg').viewBox.baseVal;
  return {stepperBottom: stepper.bottom, boxWidth: box.width, boxHeight: box.height,
          drawn: Math.min(box.width, box.height * view.width / view.height),
          scroll: document.scrollingElement.scrollHeight, height: innerHeight,
          counter: document.querySelector('.step-counter').getBoundingClientRect().bottom};
}"""


@pytest.mark.parametrize("size", [(720, 560), (400, 300), (320, 480), (1000, 700)])
def test_the_embed_keeps_its_stepper_in_any_frame(site: dict[str, Any], browser: Any,
                                                  size: tuple[int, int]) -> None:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        for game, bundle in site["games"].items():
            page.goto(f"{site['url']}/embed/{_id(bundle)}?step=2")
            layout = page.evaluate(_LAYOUT)
            # nothing below the frame's edge, nothing to scroll: the board gives way
            assert layout["stepperBottom"] <= size[1] + 0.5, (game, layout)
            assert layout["scroll"] <= size[1], (game, layout)
            assert layout["boxHeight"] >= 60, (game, layout)
        _shot(page, f"embed-{size[0]}x{size[1]}")
    finally:
        page.close()


def test_the_suggested_embed_shows_the_board_at_full_width(site: dict[str, Any],
                                                           browser: Any, tab: Any) -> None:
    for game, bundle in site["games"].items():
        tab.goto(f"{site['url']}/m/{_id(bundle)}?step=2")
        code = tab.locator("#embed-code").text_content()
        width, height = (int(value) for value in re.search(
            r'width="(\d+)" height="(\d+)"', code).groups())
        assert width == 720 and 'style="border:0;max-width:100%"' in code
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto(f"{site['url']}/embed/{_id(bundle)}?step=2")
            layout = page.evaluate(_LAYOUT)
            assert layout["scroll"] <= height, (game, layout)
            # the drawing spans (nearly) the whole width: the height is not what limits it
            assert layout["drawn"] >= 0.97 * layout["boxWidth"], (game, height, layout)
            # and not much more room than the board needs
            assert height - layout["stepperBottom"] < 40, (game, height, layout)
        finally:
            page.close()


# --- 12. a missing step, the API's root, a step's image --------------------------------------

def test_a_missing_step_is_said_to_be_one(site: dict[str, Any], tab: Any) -> None:
    bundle = site["games"]["toybattle"]
    match_id = _id(bundle)
    answer = tab.goto(f"{site['url']}/m/{match_id}/dispute?step=999")
    assert answer.status == 404
    assert tab.locator("h1").inner_text() == "Step not found"
    message = tab.locator(".error-page p").nth(1).inner_text()
    assert re.fullmatch(r"step 999 does not exist: this match has steps 0 to \d+", message)
    assert tab.locator("#back-link").get_attribute("href") == f"/m/{match_id}"
    _shot(tab, "step-not-found")
    # a match that is not there is still "Match not found"
    tab.goto(f"{site['url']}/m/0000000000000000/dispute?step=1")
    assert tab.locator("h1").inner_text() == "Match not found"
    # a path nothing answers is the viewer's page, not Flask's bare one
    assert tab.goto(f"{site['url']}/no/such/page").status == 404
    assert tab.locator("h1").inner_text() == "Page not found"


def test_a_steps_image_exists_only_for_a_step_there_is(site: dict[str, Any], tab: Any) -> None:
    match_id = _id(site["games"]["toybattle"])
    client = site["app"].test_client()
    last = client.get(f"/m/{match_id}/step/0.json").get_json()["last"]
    image = client.get(f"/m/{match_id}/step/{last}.png")
    assert image.status_code == 200 and image.mimetype == "image/png"
    missing = tab.goto(f"{site['url']}/m/{match_id}/step/{last + 1}.png")
    assert missing.status == 404 and tab.locator("h1").inner_text() == "Step not found"
    assert client.get(f"/m/{match_id}/step/999.png").status_code == 404


@pytest.fixture(scope="module")
def project_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The project's app: the API and the viewer over a real ledger in a temporary folder."""
    from fairdeal.web.app import create_app

    folder = tmp_path_factory.mktemp("project")
    return create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False,
                       "TESTING": True})


@pytest.mark.parametrize("path", ["/api/v1", "/api/v1/", "/api", "/api/v2/matches"])
def test_the_apis_root_answers_json_like_every_other_api_error(project_app: Any,
                                                               path: str) -> None:
    client = project_app.test_client()
    answer = client.get(path, headers={"Accept": "text/html"})
    assert answer.status_code == 404 and answer.is_json, answer.get_data(as_text=True)[:200]
    error = answer.get_json()["error"]
    assert error["code"] == "not-found" and f"no API endpoint {path}" in error["message"]
    assert "/api/v1/openapi.json" in error["message"]
    # the API's own 404s keep their words (its handler comes before the app's)
    inner = client.get("/api/v1/matches/zz").get_json()["error"]
    assert inner == {"code": "not-found", "message": "no match 'zz'"}
    assert client.get("/api/v1/nope").get_json()["error"]["message"] == \
        "no API endpoint /api/v1/nope"
    # and outside /api, the viewer's page
    page = client.get("/no/such/page")
    assert page.status_code == 404 and "Page not found" in page.get_data(as_text=True)


# --- 16. a live page's secrecy words; a tampered file's claimed result ------------------------

@pytest.mark.parametrize("game", ["wyrdstone", "arcomage"])
def test_a_live_page_says_what_its_game_hides(site: dict[str, Any], tab: Any,
                                              game: str) -> None:
    tab.goto(f"{site['url']}/m/{_id(site['live'][game])}")
    words = tab.locator("#live-secrecy").inner_text()
    assert words == get_plugin(game).live_secrecy
    if game == "wyrdstone":  # everything is public there: no talk of hidden hands
        assert "Hands and the deck" not in tab.content()
        _shot(tab, "live-wyrdstone")


def test_a_tampered_files_header_states_no_winner(site: dict[str, Any], tab: Any) -> None:
    tab.goto(site["url"] + site["uploads"]["tampered"])
    head = tab.locator(".match-head").inner_text()
    assert "result not verified" in head and " won" not in head
    warning = tab.locator(".warning").inner_text()
    declared = site["tampered"]["events"][-1]["result"]
    assert "This match does not verify" in warning
    assert re.search(r"The file declares “.+ won: .+”: nothing here confirms it", warning), \
        (warning, declared)
    # the page's own description (what a link preview shows) claims no winner either
    assert " won" not in (tab.locator('meta[name="description"]').get_attribute("content")
                          or "")
    _shot(tab, "tampered-upload")


# --- 17. the rules version, the tavern effects, the equipment --------------------------------

def test_the_rules_version_is_in_the_header_and_the_embed(site: dict[str, Any],
                                                         tab: Any) -> None:
    for bundle in site["games"].values():
        version = bundle["events"][0]["rules_version"]
        for path in (f"/m/{_id(bundle)}", f"/embed/{_id(bundle)}"):
            tab.goto(site["url"] + path)
            assert tab.locator("#rules-version").text_content() == f"rules {version}", path


def test_wyrdstone_lists_its_tavern_effects_and_draws_the_equipment(site: dict[str, Any],
                                                                   tab: Any) -> None:
    tab.goto(f"{site['url']}/m/{_id(site['games']['wyrdstone'])}?step=1")
    facts = tab.locator("#match-facts")
    labels = facts.locator("dt").all_inner_texts()
    values = facts.locator("dd").all_inner_texts()
    assert labels == ["Tavern effects, mage A", "Tavern effects, mage B"]
    assert values[0].startswith("Gravedigger's Gin (at the start of the duel: you gain 2 ")
    assert "; Hermit's Tea (" in values[0] and values[1].startswith("Storm Mead (")
    board = tab.locator("#board svg")
    assert board.locator("g.equipment").count() == 2
    tavern = board.locator('g.equipment[data-seat="B"] g.equipment-tavern text')
    assert tavern.all_text_contents() == ["tavern: Storm Mead"]
    assert board.locator("g.equipment-rune-belt").count() == 2
    _shot(tab, "wyrdstone-equipment")
    # a game whose plug-in lists no facts has no facts list
    tab.goto(f"{site['url']}/m/{_id(site['games']['arcomage'])}")
    assert tab.locator("#match-facts").count() == 0


# --- 18. the server's verdict, in the page as served -----------------------------------------

def _dump_dom(url: str) -> str:
    """The DOM as `chromium --headless --dump-dom` prints it: what a crawler sees."""
    done = subprocess.run([CHROMIUM, *CHROMIUM_ARGS, "--dump-dom", url], capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout


def test_a_crawler_reads_the_servers_verdict(site: dict[str, Any]) -> None:
    honest = _dump_dom(f"{site['url']}/m/{_id(site['games']['crazy-eights'])}")
    said = re.search(r'<p class="server-said" id="server-said">(.*?)</p>', honest, re.DOTALL)
    assert said is not None, honest[:2000]
    assert re.search(r'Checked by the server: <strong id="server-verdict">every check '
                     r"passed</strong>", said.group(1))
    tampered = _dump_dom(site["url"] + site["uploads"]["tampered"])
    said = re.search(r'<p class="server-said" id="server-said">(.*?)</p>', tampered, re.DOTALL)
    assert said is not None
    assert ">does not verify</strong> — the moves check failed at event " in said.group(1)


# --- 10. event times for people --------------------------------------------------------------

def test_event_times_on_pages_are_utc_iso_not_raw_milliseconds(site: dict[str, Any],
                                                               tab: Any) -> None:
    stamped = site["stamped"]
    tab.goto(site["url"] + site["uploads"]["backwards"])
    reason = tab.locator(".failure-reason").inner_text()
    assert reason.startswith("the clock runs backwards: this event is stamped ")
    assert ISO.search(reason) and str(stamped) not in reason, reason
    assert str(stamped) not in tab.locator("#server-said").inner_text()
    # the dispute report of a step says when its event was stamped in the same words; the
    # events it quotes stay as the file has them
    match_id = _id(site["games"]["arcomage"])
    tab.goto(f"{site['url']}/m/{match_id}/dispute?step=3")
    body = tab.content()
    words = re.sub(r"<pre>.*?</pre>", "", body, flags=re.DOTALL)
    assert "event stamped " in words and not RAW_TS.search(words), RAW_TS.findall(words)
    assert re.search(r"event stamped \d{4}-\d\d-\d\dT", words)
    assert RAW_TS.search(" ".join(tab.locator("pre").all_inner_texts()))


def test_the_browsers_own_verdict_writes_event_times_for_people_too(site: dict[str, Any],
                                                                    tab: Any) -> None:
    # the verifier under Pyodide quotes the same raw time; the page's script writes it as the
    # server's side does (browser-verify.js utcTimes)
    stamped = site["stamped"]
    tab.goto(site["url"] + site["uploads"]["backwards"])
    tab.wait_for_function("() => ['agree', 'disagree', 'error'].includes("
                          "document.getElementById('browser-verify').dataset.state)",
                          timeout=180_000)
    assert tab.evaluate("document.getElementById('browser-verify').dataset.state") == "agree"
    failure = tab.locator("#browser-failure").inner_text()
    assert "the clock runs backwards: this event is stamped " in failure
    assert ISO.search(failure) and str(stamped) not in failure, failure
    # the same moment as the server's side names
    assert ISO.search(failure).group() == ISO.search(
        tab.locator(".failure-reason").inner_text()).group()
    # once the browser's verdict is in, the server's line no longer says it is coming
    assert tab.locator("#server-said-wait").is_hidden()
