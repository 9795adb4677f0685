"""The viewer's /audit (cached, refreshed in the background as matches are sealed),
/audit?player=NAME, and the dispute report from every step, over a real SQLite ledger."""

from __future__ import annotations

import html
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from fairdeal.web.app import create_app


@pytest.fixture(scope="module")
def sealed_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real SQLite data dir holding 30 matches sealed here, made once per module; every test
    opens its own copy (``app``), so none sees another's writes."""
    folder = tmp_path_factory.mktemp("sealed")
    app = create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False,
                      "TESTING": True})
    ledger = app.extensions["fairdeal.ledger"]
    for index in range(30):  # sealed here, under this server's key: the audit counts them
        play_resigned(ledger, ("ann", "bob", "cy")[index % 3], ("bob", "cy", "ann")[index % 3])
    # every connection closed: the file is whole (WAL checkpointed) before it is copied
    ledger.store.engine.dispose()
    return folder


def app_over_copy(folder: Path, tmp_path: Path) -> Any:
    """An app over a copy of the data dir ``folder`` in ``tmp_path``: a test's own, which no
    other test sees."""
    shutil.copytree(folder, tmp_path, dirs_exist_ok=True)
    return create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                       "TESTING": True})


@pytest.fixture()
def app(sealed_dir: Path, tmp_path: Path) -> Any:
    return app_over_copy(sealed_dir, tmp_path)


def play_resigned(ledger: Any, *seats: str) -> str:
    """One match played on this server: both seats decline a seed, seat A resigns."""
    created = ledger.create_match("arcomage", {}, seats=list(seats))
    for seat in created["seats"]:
        ledger.add_seed(created["id"], seat["token"], None)
    ledger.resign(created["id"], created["seats"][0]["token"])
    return str(created["id"])


def _ready(client: Any, url: str) -> str:
    for _ in range(200):
        answer = client.get(url)
        text = answer.get_data(as_text=True)
        if answer.status_code == 200 and "being computed" not in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"{url} never finished")


def test_the_home_page_links_to_the_audit(app: Any) -> None:
    page = app.test_client().get("/").get_data(as_text=True)
    assert 'href="/audit"' in page


def test_the_audit_page_reports_every_sealed_match_and_refreshes_when_more_are(app: Any) -> None:
    client = app.test_client()
    page = _ready(client, "/audit")
    assert "30 verified matches audited" in page
    assert "<svg" in page and "seed-bits" in page
    ledger = app.extensions["fairdeal.ledger"]
    for _ in range(5):
        play_resigned(ledger, "ann", "bob")
    first = client.get("/audit").get_data(as_text=True)
    # the cached report answers at once and says a fresh one is under way
    assert "30 verified matches audited" in first or "35 verified" in first
    for _ in range(200):
        if "35 verified matches audited" in client.get("/audit").get_data(as_text=True):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the audit was not refreshed after new matches were sealed")


def test_one_players_audit(app: Any) -> None:
    page = _ready(app.test_client(), "/audit?player=cy")
    assert "Fairness audit: cy's matches" in html.unescape(page)
    assert "player cy" in page
    assert "30 verified" not in page


def test_every_step_links_to_its_dispute_report(app: Any) -> None:
    client = app.test_client()
    ledger = app.extensions["fairdeal.ledger"]
    match_id = ledger.list_matches(1)[0]["id"]
    # the stepper's link follows the step shown (the script moves it as it steps)
    for step in (0, 1):
        page = client.get(f"/m/{match_id}?step={step}").get_data(as_text=True)
        assert f'id="dispute-link" href="/m/{match_id}/dispute?step={step}"' in page
    report = client.get(f"/m/{match_id}/dispute?step=1")
    assert report.status_code == 200
    text = report.get_data(as_text=True)
    assert "Dispute report" in text and "resigned" in text
    assert "Who could have influenced this deal" in text
    missing = client.get(f"/m/{match_id}/dispute?step=99")
    assert missing.status_code == 404 and "does not exist" in missing.get_data(as_text=True)
    assert client.get(f"/m/{match_id}/dispute?step=x").status_code == 404
