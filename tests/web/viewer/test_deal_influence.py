"""The verification panel says, in one line, who could have influenced the deal: the line the
real verifier writes into its report (``facts["deal_influence"]``), for v1 and v2 bundles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from fairdeal.verifier.verify import verify_bytes

BUNDLES = Path(__file__).resolve().parents[3] / "fixtures" / "bundles"
CASES = {
    "v1": BUNDLES / "v1" / "honest" / "arcomage-archmage-citadel-normal.json",
    "v2-unsigned-seeds": BUNDLES / "honest" / "arcomage-archmage-citadel-normal.json",
    "v2-a-seat-declined": BUNDLES / "honest" / "arcomage-azure-valley-normal.json",
    "v2-signed-seeds": BUNDLES / "honest" / "arcomage-signed-moves.json",
}


def _panel_line(page: str) -> str:
    start = page.index('id="deal-influence"')
    return page[start:page.index("</p>", start)]


@pytest.mark.parametrize("path", CASES.values(), ids=CASES.keys())
def test_the_panel_shows_the_verifiers_line(client: Any, path: Path) -> None:
    data = path.read_bytes()
    expected = verify_bytes(data).facts["deal_influence"]["text"]
    response = client.post("/upload", data={"pasted": data.decode()})
    page = client.get(response.location).get_data(as_text=True)
    line = _panel_line(page)
    assert "Who could have influenced this deal:" in line and str(escape(expected)) in line


def test_a_version_1_bundle_says_the_server_could_have_chosen(client: Any) -> None:
    response = client.post("/upload", data={"pasted": CASES["v1"].read_text()})
    page = client.get(response.location).get_data(as_text=True)
    assert ("version 1 bundle, client seeds unsigned: the server could have chosen this "
            "deal") in _panel_line(page)


def test_signed_seeds_say_fair_unless_all_collude(client: Any) -> None:
    response = client.post("/upload", data={"pasted": CASES["v2-signed-seeds"].read_text()})
    line = _panel_line(client.get(response.location).get_data(as_text=True))
    assert "fair unless both players and the server colluded" in line


def test_a_bundle_that_does_not_verify_claims_nothing_about_its_deal(client: Any) -> None:
    forged = json.loads(CASES["v2-unsigned-seeds"].read_bytes())
    forged["events"][-1]["result"] = {"winner": 1 - (forged["events"][-1]["result"]["winner"]
                                                    or 0), "reason": "resigned"}
    response = client.post("/upload", data={"pasted": json.dumps(forged)})
    page = client.get(response.location).get_data(as_text=True)
    assert "does not verify" in page and 'id="deal-influence"' not in page


def test_a_live_match_shows_no_line_yet(helpers: Any, arcomage_bundles: Any) -> None:
    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app

    store = MemoryLedger()
    match_id = store.add_live(json.loads(json.dumps(arcomage_bundles[0]["events"][:8])))
    page = create_viewer_app(store).test_client().get(f"/m/{match_id}").get_data(as_text=True)
    assert "not yet verifiable" in page and 'id="deal-influence"' not in page
