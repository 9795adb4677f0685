"""The viewer's newcomer snags (issue 13): game titles, the "simulated" label, no date in the
future, results in a player's words. Through Flask's test client."""

from __future__ import annotations

import re
import time
from typing import Any

from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app


def _client(helpers: Any, *bundles: dict[str, Any]) -> Any:
    store = MemoryLedger()
    for bundle in bundles:
        assert store.import_bundle(helpers.bundle_bytes(bundle))[0]
    return create_viewer_app(store, {"TESTING": True}).test_client()


def test_every_game_has_its_title_on_the_home_page(helpers: Any) -> None:
    bundles = [helpers.simulate(game, 1, seed=f"title-{game}")[0]
               for game in ("arcomage", "toybattle", "wyrdstone")]
    page = _client(helpers, *bundles).get("/").get_data(as_text=True)
    titles = re.findall(r'<span class="game">([^<]*)</span>', page)
    assert sorted(titles) == ["Toy Battle", "Two-tower duel", "Wyrdstone mage duel"]


def test_simulated_matches_are_labelled_and_named_matches_are_not(helpers: Any) -> None:
    simulated = helpers.simulate("toybattle", 1, seed="label")[0]
    named = helpers.simulate("toybattle", 1, seed="label-named", seats=("ann", "bo"))[0]
    client = _client(helpers, simulated, named)
    home = client.get("/").get_data(as_text=True)
    assert home.count('class="simulated"') == 1
    page = client.get(f"/m/{simulated['events'][0]['match_id']}").get_data(as_text=True)
    assert 'class="simulated"' in page
    other = client.get(f"/m/{named['events'][0]['match_id']}").get_data(as_text=True)
    assert 'class="simulated"' not in other


def test_no_date_on_the_home_page_lies_in_the_future(helpers: Any) -> None:
    from fairdeal.client.simulate import SimulationSettings, simulate_matches
    from fairdeal.web.viewer.present import date_words

    settings = SimulationSettings(game="arcomage", params={}, bots=("random", "greedy"))
    bundles = list(simulate_matches(settings, 3, seed=None, server_key=helpers.SERVER_KEY))
    page = _client(helpers, *bundles).get("/").get_data(as_text=True)
    shown = re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", page)
    assert len(shown) == 3
    assert max(shown) <= date_words(int(time.time() * 1000))


def test_toy_battle_results_are_words_not_codes(helpers: Any) -> None:
    bundles = helpers.simulate("toybattle", 4, seed="words")
    page = _client(helpers, *bundles).get("/").get_data(as_text=True)
    results = re.findall(r'<span class="result">([^<]*)</span>', page)
    assert len(results) == 4
    for result in results:
        assert "·" not in result and "(player" not in result
        assert re.match(r"(blue|red) \([a-z]+-bot\) won: |draw: ", result), result
