"""The viewer's log: per match its leaves and whether their proofs check against the latest
checkpoint; /log with the latest checkpoint and the tree size."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from fairdeal.verifier.checkpoint import Checkpoint
from fairdeal.web.app import create_app


@pytest.fixture()
def app(tmp_path: Path) -> Any:
    return create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                       "TESTING": True})


def _finished(ledger: Any) -> str:
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(created["id"], token, None)
    ledger.resign(created["id"], tokens[1])
    return str(created["id"])


def _leaves(page: str) -> list[tuple[str, str, str]]:
    return re.findall(r'class="log-leaf status-(\w+)" data-kind="(\w+)">.*?'
                      r'class="log-index">(\d+)<', page, re.S)


def test_a_sealed_match_shows_both_leaves_checked(app: Any) -> None:
    ledger = app.extensions["fairdeal.ledger"]
    live = ledger.create_match("toybattle")["id"]
    match_id = _finished(ledger)
    client = app.test_client()
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert _leaves(page) == [("pass", "genesis", "1"), ("pass", "seal", "2")]
    assert "tree size 3" in page
    assert _leaves(client.get(f"/m/{live}").get_data(as_text=True)) == [("pass", "genesis", "0")]


def test_the_log_page_shows_the_latest_checkpoint(app: Any) -> None:
    ledger = app.extensions["fairdeal.ledger"]
    match_id = _finished(ledger)
    page = app.test_client().get("/log").get_data(as_text=True)
    checkpoint = Checkpoint.from_note(ledger.log.checkpoint())[0]
    assert '<dd id="log-size">2</dd>' in page and checkpoint.origin in page
    assert ledger.log.verifier_key.text() in page
    assert page.count(f"/m/{match_id}") == 2  # its genesis and its seal


def test_an_imported_match_is_not_claimed_to_be_in_the_log(app: Any) -> None:
    ledger = app.extensions["fairdeal.ledger"]
    fixture = sorted((Path(__file__).resolve().parents[3] / "fixtures" / "bundles" / "honest")
                     .glob("*.json"))[0]
    match_id, report = ledger.import_bundle(fixture.read_bytes())
    assert report.ok
    page = app.test_client().get(f"/m/{match_id}").get_data(as_text=True)
    assert "not in this server's log" in page and not _leaves(page)


def test_a_log_the_signer_refuses_is_shown_not_a_500(app: Any) -> None:
    ledger = app.extensions["fairdeal.ledger"]
    match_id = _finished(ledger)
    ledger.log.checkpoint()
    with ledger.store.engine.begin() as conn:
        conn.execute(text("DROP TRIGGER log_nodes_no_update"))
        conn.execute(text("UPDATE log_nodes SET hash = :h WHERE level = 1 AND idx = 0"),
                     {"h": "cd" * 32})
    ledger.create_match("arcomage")
    client = app.test_client()
    for path in (f"/m/{match_id}", "/log"):
        response = client.get(path)
        assert response.status_code == 200
        assert "not consistent with the signed checkpoint of size 2" in response.get_data(
            as_text=True)


def _rows(page: str) -> list[tuple[str, str, str, str]]:
    """(kind, index, words, link) of each row of /log's newest leaves."""
    return re.findall(r'<tr class="log-row" data-kind="([\w-]+)"><td>(\d+)</td><td>([^<]+)</td>'
                      r'<td><a href="([^"]+)">', page)


def test_a_tournaments_leaves_link_to_the_tournament_in_words(app: Any) -> None:
    from ...tournament_play import play_round, registered

    ledger = app.extensions["fairdeal.ledger"]
    match_id = _finished(ledger)
    created, players = registered(ledger, 2)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    round_match = ledger.pair_next_round(tid, created["organiser_token"])["event"][
        "pairings"][0]["match_id"]
    play_round(ledger, tid, players)
    ledger.finish_tournament(tid, created["organiser_token"])
    rows = _rows(app.test_client().get("/log").get_data(as_text=True))
    # newest first: the final, the round's match sealed, the round (logged in the transaction
    # that created its match), the tournament created, then the match of before
    assert rows == [
        ("tournament-final", "6", "tournament final", f"/t/{tid}"),
        ("seal", "5", "match sealed", f"/m/{round_match}"),
        ("tournament-round", "4", "round 1 paired", f"/t/{tid}"),
        ("genesis", "3", "match created", f"/m/{round_match}"),
        ("tournament-created", "2", "tournament created", f"/t/{tid}"),
        ("seal", "1", "match sealed", f"/m/{match_id}"),
        ("genesis", "0", "match created", f"/m/{match_id}")]
    assert f"/m/{tid}" not in app.test_client().get("/log").get_data(as_text=True)


def test_a_round_leaf_names_its_own_round() -> None:
    from fairdeal.verifier.logleaf import LogLeaf, tournament_leaf
    from fairdeal.web.viewer.logpanel import leaf_line

    leaf = LogLeaf.parse(tournament_leaf("tournament-round", "t-" + "ab" * 8, "cd" * 32, 3))
    line = leaf_line(9, leaf)
    assert (line.words, line.tournament_id, line.match_id) == (
        "round 3 paired", "t-" + "ab" * 8, None)
