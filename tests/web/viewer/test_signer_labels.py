"""The labels of issue 8: "verified" only for matches sealed under this server's own key.

A bundle re-forged under another key (fixtures/bundles/tampered/reforged-under-new-key.json:
the whole history re-signed by a key that is not the server's) passes every check under its
own key. Posted to POST /api/v1/bundles — no authentication asked — it must show "signed by
another server" and its key id on the home list, the match page, the embed and the API,
never "verified"; the home list and the API filter by signer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey, key_id, parse_public_key
from fairdeal.verifier.report import CHECKS, OPTIONAL_CHECKS
from fairdeal.web.app import create_app
from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "bundles"
FORGED = (FIXTURES / "tampered" / "reforged-under-new-key.json").read_bytes()
FORGED_ID = json.loads(FORGED)["events"][0]["match_id"]
FORGED_KEY_ID = key_id(parse_public_key(json.loads(FORGED)["signature"]["key"]))
VERIFIED_WORDS = ("✓ verified", "✓ every check passed", "Verified:", "every check passed")

#: a bundle that verifies passes every check but the optional ones (skipped without input)
REQUIRED_CHECKS = len(CHECKS) - len(OPTIONAL_CHECKS)


@pytest.fixture()
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    yield Ledger(EventStore(engine), SigningKey.from_seed(b"\x09" * 32))
    engine.dispose()


@pytest.fixture()
def client(ledger: Ledger) -> Any:
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False, "TESTING": True})
    return app.test_client()


@pytest.fixture()
def posted(client: Any, ledger: Ledger) -> dict[str, Any]:
    """A bundle sealed under this server's key and the re-forged one, both posted to the API."""
    settings = SimulationSettings(game="arcomage", params={}, bots=("random", "greedy"))
    ours = next(simulate_matches(settings, 1, seed="labels", server_key=ledger.server_key))
    answers = {}
    for name, data in (("ours", json.dumps(ours).encode()), ("forged", FORGED)):
        response = client.post("/api/v1/bundles", data=data, content_type="application/json")
        assert response.status_code == 201, response.get_json()
        answers[name] = response.get_json()
    return answers


def _card(home: str, match_id: str) -> str:
    """The home list's card of one match."""
    start = home.index(f'href="/m/{match_id}"')
    return home[start:home.index("</li>", start)]


def test_the_import_answer_names_the_signer(posted: dict[str, Any], ledger: Ledger) -> None:
    assert posted["forged"]["id"] == FORGED_ID and posted["forged"]["report"]["ok"] is True
    assert posted["forged"]["signed_by"]["key_id"] == FORGED_KEY_ID
    assert posted["forged"]["signed_by"]["this_server"] is False
    assert posted["ours"]["signed_by"] == {"key": ledger.server_key.public_text,
                                           "key_id": ledger.server_key.key_id,
                                           "this_server": True}


def test_the_api_says_verified_only_for_this_servers_key(client: Any,
                                                         posted: dict[str, Any]) -> None:
    listed = {m["id"]: m for m in client.get("/api/v1/matches").get_json()["matches"]}
    forged, ours = listed[FORGED_ID], listed[posted["ours"]["id"]]
    assert forged["verified"] is False and ours["verified"] is True
    assert forged["signed_by"]["key_id"] == FORGED_KEY_ID
    assert forged["signed_by"]["this_server"] is False and ours["signed_by"]["this_server"]
    view = client.get(f"/api/v1/matches/{FORGED_ID}").get_json()
    assert view["verified"] is False and view["signed_by"] == forged["signed_by"]
    only = client.get("/api/v1/matches?signer=other").get_json()["matches"]
    assert [m["id"] for m in only] == [FORGED_ID]
    only = client.get("/api/v1/matches?signer=this").get_json()["matches"]
    assert [m["id"] for m in only] == [posted["ours"]["id"]]
    refused = client.get("/api/v1/matches?signer=me")
    assert refused.status_code == 400
    assert refused.get_json()["error"]["code"] == "invalid-query"
    assert "signer must be 'this' or 'other'" in refused.get_json()["error"]["message"]


def test_the_home_list_labels_and_filters_by_signer(client: Any,
                                                    posted: dict[str, Any]) -> None:
    home = client.get("/").get_data(as_text=True)
    forged = _card(home, FORGED_ID)
    assert f"signed by another server · key {FORGED_KEY_ID}" in forged
    assert f'data-signer="{FORGED_KEY_ID}"' in forged
    assert "verified" not in forged
    assert "✓ verified" in _card(home, posted["ours"]["id"])
    others = client.get("/?signer=other").get_data(as_text=True)
    assert f"/m/{FORGED_ID}" in others and f"/m/{posted['ours']['id']}" not in others
    assert "✓ verified" not in others
    mine = client.get("/?signer=this").get_data(as_text=True)
    assert f"/m/{posted['ours']['id']}" in mine and f"/m/{FORGED_ID}" not in mine
    # an unknown filter is no filter
    assert f"/m/{FORGED_ID}" in client.get("/?signer=nonsense").get_data(as_text=True)
    assert 'href="/?signer=other"' in home and 'href="/?signer=this"' in home


def test_the_match_page_and_the_embed_never_say_verified(client: Any,
                                                        posted: dict[str, Any]) -> None:
    page = client.get(f"/m/{FORGED_ID}").get_data(as_text=True)
    assert f"signed by another server · key {FORGED_KEY_ID}" in page
    assert f"Signed by another server (key {FORGED_KEY_ID})." in page  # og:description
    for words in VERIFIED_WORDS:
        assert words not in page, words
    assert "this server's key" not in page
    # the checks themselves still pass: the file is consistent under its own key
    assert page.count("status-pass") == REQUIRED_CHECKS
    embed = client.get(f"/embed/{FORGED_ID}").get_data(as_text=True)
    assert f"signed by another server · key {FORGED_KEY_ID}" in embed
    assert "✓ verified" not in embed
    ours = client.get(f"/m/{posted['ours']['id']}").get_data(as_text=True)
    assert "✓ every check passed" in ours and "signed by another server" not in ours


def test_an_upload_pinned_to_its_key_is_not_another_servers(client: Any) -> None:
    forged_key = json.loads(FORGED)["signature"]["key"]
    response = client.post("/upload", data={"pasted": FORGED.decode(),
                                            "trusted_key": forged_key})
    page = client.get(response.location).get_data(as_text=True)
    # the person pinned this very key: under that pin it verifies
    assert "✓ every check passed" in page and "pinned to the key you gave" in page
    assert "signed by another server" not in page
    response = client.post("/upload", data={"pasted": FORGED.decode()})
    page = client.get(response.location).get_data(as_text=True)
    assert f"signed by another server · key {FORGED_KEY_ID}" in page
    assert "✓ every check passed" not in page


def test_a_viewer_without_a_ledger_labels_and_filters_the_same(helpers: Any) -> None:
    own = SigningKey.from_seed(b"\x0a" * 32)
    store = MemoryLedger(server_keys=[own.public_text])
    settings = SimulationSettings(game="arcomage", params={}, bots=("random", "greedy"))
    ours = next(simulate_matches(settings, 1, seed="memory-labels", server_key=own))
    own_id = store.import_bundle(helpers.bundle_bytes(ours))[0]
    assert store.import_bundle(FORGED)[0] == FORGED_ID
    client = create_viewer_app(store, {"TESTING": True}).test_client()
    home = client.get("/").get_data(as_text=True)
    assert f"signed by another server · key {FORGED_KEY_ID}" in _card(home, FORGED_ID)
    assert "✓ verified" in _card(home, own_id)
    others = client.get("/?signer=other").get_data(as_text=True)
    assert f"/m/{FORGED_ID}" in others and f"/m/{own_id}" not in others
    mine = client.get("/?signer=this").get_data(as_text=True)
    assert f"/m/{own_id}" in mine and f"/m/{FORGED_ID}" not in mine


def test_the_dispute_report_of_a_match_sealed_by_another_key_says_so(
        client: Any, posted: dict[str, Any]) -> None:
    """Issue 18, break 7: the dispute page of an imported match sealed by another key said "The
    whole match verifies: every check passed" and "the server signed the final event"."""
    page = client.get(f"/m/{FORGED_ID}/dispute?step=1").get_data(as_text=True)
    assert f"signed by another server · key {FORGED_KEY_ID}" in page
    assert "not that this server recorded the match" in page
    assert "every check passed" not in page and "The whole match verifies" not in page
    assert "this server signed the final event" not in page
    # this server's own match: its own words
    ours = client.get(f"/m/{posted['ours']['id']}/dispute?step=1").get_data(as_text=True)
    assert "this server signed the final event" in ours
    assert "signed by another server" not in ours
