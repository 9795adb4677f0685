"""The tournament pages over the real ledger (SQLite in a temporary folder), through Flask's
test client: tournaments played by players signing with their own keys (tests/
tournament_play.py), a dispute filed on a sealed match and ruled on by the arbiter's key, and
every page read as a visitor reads it — the list, the tournament, its cross-table, a key's
page — with the 404 pages for what is not there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier.tournament.disputes import dispute_report_hash
from fairdeal.web.app import create_app

from ...tournament_play import ARBITER, Player, play_round, registered, signed


@pytest.fixture()
def app(tmp_path: Path) -> Any:
    return create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                       "TESTING": True})


def _ledger(app: Any) -> Any:
    return app.extensions["fairdeal.ledger"]


def _running(app: Any, count: int = 3, **fields: Any) -> tuple[dict[str, Any], list[Player]]:
    """A round-robin of ``count`` players, started, round 1 played."""
    ledger = _ledger(app)
    created, players = registered(ledger, count, name="<i>club</i> night",
                                  tiebreaks=["sonneborn-berger", "buchholz", "wins"], **fields)
    ledger.start_tournament(created["id"], created["organiser_token"])
    ledger.pair_next_round(created["id"], created["organiser_token"])
    play_round(ledger, created["id"], players)
    return created, players


def _dispute(app: Any, tournament_id: str, player: Player, match_id: str, step: int) -> None:
    """``player`` files a dispute on step ``step`` of its sealed match, signed with its key."""
    ledger = _ledger(app)
    answer = ledger.tournament(tournament_id)
    keys = {item["player"]: item["public_key"] for item in answer["players"]}
    seats = next(pairing["seats"] for item in answer["rounds"] for pairing in item["pairings"]
                 if pairing["match_id"] == match_id)
    report = dispute_report_hash(ledger.bundle_bytes(match_id), step,
                                 [keys[seat] for seat in seats])
    body = signed(ledger, tournament_id, player.key, "dispute", {
        "dispute": len(answer["disputes"]) + 1, "player": player.player, "match_id": match_id,
        "step": step, "text": "my <b>card</b> was never drawn", "receipts": None,
        "report": report})
    for derived in ("dispute", "player"):
        body.pop(derived)
    ledger.file_dispute(tournament_id, player.token, body)


def _rule(app: Any, tournament_id: str, key: Any, dispute: int) -> None:
    body = signed(_ledger(app), tournament_id, key, "ruling", {
        "dispute": dispute, "decision": {"kind": "result-stands"}, "text": "the deal was fair"})
    _ledger(app).rule_dispute(tournament_id, body)


def _html(client: Any, path: str, status: int = 200) -> str:
    response = client.get(path)
    assert response.status_code == status, (path, response.status_code)
    return str(response.get_data(as_text=True))


def test_the_list_is_newest_first_paged_and_in_the_sites_navigation(app: Any,
                                                                   monkeypatch: Any) -> None:
    from fairdeal.web.viewer import tournaments

    ledger = _ledger(app)
    made = [registered(ledger, 2, name=f"cup {n}")[0]["id"] for n in range(3)]
    client = app.test_client()
    assert 'href="/t/"' in _html(client, "/")
    monkeypatch.setattr(tournaments, "PAGE", 2)
    first = _html(client, "/t/")
    assert re.findall(r'data-tournament="([^"]+)"', first) == made[::-1][:2]
    older = re.search(r'id="older" href="([^"]+)"', first)
    assert older is not None
    second = _html(client, older.group(1).replace("&amp;", "&"))
    assert re.findall(r'data-tournament="([^"]+)"', second) == [made[0]]
    assert "registering" in second and "cup 0" in second


def test_a_bad_cursor_is_a_page_naming_the_problem(app: Any) -> None:
    page = _html(app.test_client(), "/t/?cursor=nonsense", 400)
    assert "Not a page of this list" in page and "cursor" in page


def test_the_tournament_page_shows_rounds_byes_players_and_links(app: Any) -> None:
    created, players = _running(app)
    tid = created["id"]
    answer = _ledger(app).tournament(tid)
    pairing = answer["rounds"][0]["pairings"][0]
    page = _html(app.test_client(), f"/t/{tid}")
    # the name is the organiser's text, escaped
    assert "&lt;i&gt;club&lt;/i&gt; night" in page and "<i>club" not in page
    assert "Round-robin" in page and "in play" in page and "1 paired of 3" in page
    assert '<dd id="tournament-points">win 1, draw ½, loss 0, bye 1, forfeit win 1</dd>' in page
    assert f'href="/m/{pairing["match_id"]}"' in page
    winner = pairing["result"]["winner"]
    assert ("1–0" if winner == pairing["seats"][0] else "0–1") in page
    (bye,) = answer["rounds"][0]["byes"]
    assert f'data-bye="{bye}"' in page
    for player in players:
        assert f'href="/k/{player.player}"' in page
    assert '<caption>Round 1</caption>' in page
    # the tie-breaks in the header's order, each defined where it is named
    facts = re.search(r"<dt>Tie-breaks</dt><dd>([^<]+)</dd>", page)
    assert facts is not None and facts.group(1) == "Sonneborn-Berger, Buchholz, Wins"
    # live: the page polls its state; nothing to verify before the end
    assert f'data-live-url="/t/{tid}/live.json"' in page and "tournament.js" in page
    assert "not yet verifiable" in page and 'id="export-link"' not in page


def test_the_standings_name_every_tiebreak_in_the_headers_order(app: Any) -> None:
    created, _ = _running(app)
    page = _html(app.test_client(), f"/t/{created['id']}")
    answer = _ledger(app).tournament(created["id"])
    assert answer["standings"], "the ledger computes standings once the pairing branch is in"
    heads = re.findall(r'<th scope="col" data-tiebreak="([^"]+)"><abbr title="([^"]+)">', page)
    assert [name for name, _ in heads] == ["sonneborn-berger", "buchholz", "wins"]
    assert heads[1][1].startswith("Buchholz: the sum of the scores")
    rows = re.findall(r'<tr data-player="([^"]+)">\s*<td>(\d+)</td>', page)
    assert [player for player, _ in rows][:len(answer["standings"])] == [
        line["player"] for line in answer["standings"]]


def test_a_dispute_links_its_report_and_the_ruling_names_the_arbiter(app: Any) -> None:
    created, players = _running(app)
    tid = created["id"]
    pairing = _ledger(app).tournament(tid)["rounds"][0]["pairings"][0]
    filer = next(player for player in players if player.player == pairing["seats"][1])
    _dispute(app, tid, filer, pairing["match_id"], 2)
    client = app.test_client()
    page = _html(client, f"/t/{tid}")
    assert "my &lt;b&gt;card&lt;/b&gt; was never drawn" in page
    assert "signed by the player" in page and "Not ruled on yet" in page
    report = re.search(r'class="dispute-report" href="([^"]+)"', page)
    assert report is not None
    link = report.group(1).replace("&amp;", "&")
    assert link == f"/m/{pairing['match_id']}/dispute?step=2"
    assert "Dispute report" in _html(client, link)
    _rule(app, tid, ARBITER, 1)
    ruled = _html(client, f"/t/{tid}")
    assert "Ruling: the result stands." in ruled
    assert f"signed by the arbiter · key {ARBITER.key_id}" in ruled
    assert "the deal was fair" in ruled


def test_unknown_and_malformed_ids_are_404_pages(app: Any) -> None:
    client = app.test_client()
    for path in ("/t/t-nothing", "/t/t-nothing/crosstable", "/t/bad%20id"):
        page = _html(client, path, 404)
        assert "Tournament not found" in page
    assert client.get("/t/t-nothing/live.json").status_code == 404
    assert client.get("/t/t-nothing/live.json").get_json()["error"]


def test_live_json_follows_the_log(app: Any) -> None:
    created, _ = _running(app)
    client = app.test_client()
    before = client.get(f"/t/{created['id']}/live.json").get_json()
    assert before["status"] == "running"
    _ledger(app).pair_next_round(created["id"], created["organiser_token"])
    after = client.get(f"/t/{created['id']}/live.json").get_json()
    assert after["next_seq"] > before["next_seq"]


def test_the_crosstable_gives_both_sides_of_every_game(app: Any) -> None:
    created, players = _running(app)
    answer = _ledger(app).tournament(created["id"])
    pairing = answer["rounds"][0]["pairings"][0]
    page = _html(app.test_client(), f"/t/{created['id']}/crosstable")
    assert '<th scope="row" class="ct-name">' in page and "<caption>" in page
    winner = pairing["result"]["winner"]
    loser = next(seat for seat in pairing["seats"] if seat != winner)
    row = re.search(rf'<tr data-player="{winner}">(.*?)</tr>', page, re.DOTALL)
    lost = re.search(rf'<tr data-player="{loser}">(.*?)</tr>', page, re.DOTALL)
    assert row and lost and "1 r1" in row.group(1) and "0 r1" in lost.group(1)
    assert page.count('class="ct-self"') == len(players)


def test_the_key_page_lists_the_tournaments_the_key_played_in(app: Any) -> None:
    created, players = _running(app, 2)
    other, _ = registered(_ledger(app), 2, name="another cup")
    lonely, _ = registered(_ledger(app), 1, name="a cup without bot 1")
    # bot 1 played round 1; its key is registered in the second cup too (the players' keys
    # of tournament_play are fixed by their number) but not in the third
    page = _html(app.test_client(), f"/k/{players[1].player}")
    section = page[page.index('id="key-tournaments"'):page.index('id="matches-h"')]
    assert f'href="/t/{created["id"]}"' in section and f'href="/t/{other["id"]}"' in section
    assert lonely["id"] not in section


def test_a_finished_tournament_shows_the_verifiers_verdict_the_export_and_the_command(
        app: Any) -> None:
    ledger = _ledger(app)
    created, players = registered(ledger, 2, name="final")
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    ledger.pair_next_round(tid, created["organiser_token"])
    play_round(ledger, tid, players)
    ledger.finish_tournament(tid, created["organiser_token"])
    client = app.test_client()
    page = _html(client, f"/t/{tid}")
    assert "data-live-url" not in page and "tournament.js" not in page
    assert 'id="tournament-verdict">✓ every check passed' in page
    statuses = re.findall(r'data-check="([^"]+)" data-status="([^"]+)"', page)
    assert [name for name, _ in statuses][:3] == ["format", "chain", "signature"]
    assert all(status in ("pass", "skipped") for _, status in statuses)
    assert f'href="/api/v1/tournaments/{tid}/export"' in page
    assert client.get(f"/api/v1/tournaments/{tid}/export").mimetype == "application/zip"
    server_key = next(iter(ledger_keys(app)))
    command = re.search(r'<code id="verify-cmd">([^<]+)</code>', page)
    assert command is not None and command.group(1) == (
        f"fairdeal verify {tid}.zip --trusted-key {server_key} "
        f"--arbiter-key {ARBITER.public_text}")
    assert ledger.tournament(tid)["seed"] in page
    # a finished tournament never changes: its verdict is kept, not recomputed per visit
    assert app.extensions["fairdeal.viewer.tournament-verdicts"].peek(tid)["ok"] is True


def ledger_keys(app: Any) -> set[str]:
    """The public keys this server seals with."""
    return {item["key"] for item in _ledger(app).keys()}


def test_a_player_who_has_not_played_yet_has_a_key_page_with_its_tournaments(app: Any) -> None:
    created, players = registered(_ledger(app), 2, name="not started")
    client = app.test_client()
    page = _html(client, f"/k/{players[0].player}")
    assert f'href="/t/{created["id"]}"' in page and "No match signed with this key yet" in page
    assert 'id="past-the-end"' not in page
    assert players[0].key.public_text in page
    # a key nobody registered or played with is still not found
    assert "Seat key not found" in _html(client, "/k/0123456789abcdef", 404)


def _ruled(app: Any, tournament_id: str, decision: dict[str, Any]) -> None:
    body = signed(_ledger(app), tournament_id, ARBITER, "ruling", {
        "dispute": 1, "decision": decision, "text": "so ruled"})
    _ledger(app).rule_dispute(tournament_id, body)


def _disputed(app: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A running tournament whose round-1 match is disputed by its loser."""
    created, players = _running(app)
    tid = created["id"]
    pairing = _ledger(app).tournament(tid)["rounds"][0]["pairings"][0]
    loser = next(seat for seat in pairing["seats"] if seat != pairing["result"]["winner"])
    _dispute(app, tid, next(p for p in players if p.player == loser), pairing["match_id"], 1)
    return tid, created, pairing


def test_a_replay_ordered_names_the_new_match_and_the_table_the_one_it_replaces(
        app: Any) -> None:
    tid, created, pairing = _disputed(app)
    replay = _ledger(app).order_replay(tid, created["organiser_token"], 1)["match_id"]
    _ruled(app, tid, {"kind": "replay-ordered", "match_id": replay})
    page = _html(app.test_client(), f"/t/{tid}")
    assert "Ruling: replay ordered." in page
    assert f'New match: <a class="mid" href="/m/{replay}">' in page
    row = re.search(r'<tr data-table="1" data-match="([^"]+)">(.*?)</tr>', page, re.DOTALL)
    assert row is not None and row.group(1) == replay
    assert f'href="/m/{pairing["match_id"]}"' in row.group(2) and "replay ordered" in row.group(2)
    assert "not finished" in row.group(2)  # the replay is not played yet: no result counts


def test_a_result_changed_by_a_ruling_says_so_where_the_result_is(app: Any) -> None:
    tid, _, pairing = _disputed(app)
    loser = next(seat for seat in pairing["seats"] if seat != pairing["result"]["winner"])
    _ruled(app, tid, {"kind": "result-changed", "winner": loser})
    page = _html(app.test_client(), f"/t/{tid}")
    row = re.search(r'<tr data-table="1" data-match="[^"]+">(.*?)</tr>', page, re.DOTALL)
    assert row is not None and "changed by a ruling" in row.group(1)
    assert ("1–0" if loser == pairing["seats"][0] else "0–1") in row.group(1)
    assert "Ruling: result changed:" in page


def test_a_withdrawn_player_is_marked_on_the_players_list(app: Any) -> None:
    created, players = _running(app)
    tid = created["id"]
    quitter = players[2]
    body = signed(_ledger(app), tid, quitter.key, "withdraw",
                  {"player": quitter.player, "from_round": 2})
    body.pop("player")
    _ledger(app).withdraw_player(tid, quitter.token, body)
    page = _html(app.test_client(), f"/t/{tid}")
    line = re.search(rf'<li data-player="{quitter.player}">(.*?)</li>', page, re.DOTALL)
    assert line is not None and "withdrew: not paired from round 2" in line.group(1)
    assert "withdrew" not in page.split(f'<li data-player="{players[0].player}">')[1].split(
        "</li>")[0]


def test_a_finished_tournament_edited_in_the_database_is_refused_by_the_pages_verdict(
        app: Any, tmp_path: Path) -> None:
    import sqlite3

    ledger = _ledger(app)
    created, players = registered(ledger, 2, name="edited")
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    ledger.pair_next_round(tid, created["organiser_token"])
    play_round(ledger, tid, players)
    ledger.finish_tournament(tid, created["organiser_token"])
    # someone with the database renames a registered player after the fact (the triggers
    # that keep the log append-only dropped first)
    database = sqlite3.connect(tmp_path / "ledger.db")
    database.execute("DROP TRIGGER tournament_events_no_update")
    (body,) = database.execute("SELECT body FROM tournament_events WHERE tournament_id = ? "
                               "AND seq = 1", (tid,)).fetchone()
    assert '"name":"bot 0"' in body
    database.execute("UPDATE tournament_events SET body = ? WHERE tournament_id = ? AND seq = 1",
                     (body.replace('"name":"bot 0"', '"name":"bot X"'), tid))
    database.commit()
    database.close()
    page = _html(app.test_client(), f"/t/{tid}")
    assert 'id="tournament-verdict">✗ does not verify' in page
    statuses = dict(re.findall(r'data-check="([^"]+)" data-status="([^"]+)"', page))
    assert statuses["format"] == "pass" and statuses["chain"] == "fail"
    assert statuses["standings"] == "not-checked"
    assert re.search(r'<div class="failure" role="alert"><strong>chain check failed', page)


def test_the_list_says_how_many_rounds_a_swiss_has_and_a_round_robin_as_it_goes(
        app: Any) -> None:
    swiss, _ = registered(_ledger(app), 2, name="swiss cup", system="swiss", rounds=3)
    double, _ = registered(_ledger(app), 2, name="double cup", rounds=2)
    page = _html(app.test_client(), "/t/")
    rows = dict(re.findall(r'<tr data-tournament="([^"]+)">(.*?)</tr>', page, re.DOTALL))
    assert "<td>0 of 3</td>" in rows[swiss["id"]] and "Swiss" in rows[swiss["id"]]
    assert '<td>0 <span class="muted small">(double)</span></td>' in rows[double["id"]]


def test_a_swiss_crosstable_has_a_column_a_round_not_a_column_a_player(app: Any) -> None:
    created, players = _running(app, 4, system="swiss", rounds=3)
    answer = _ledger(app).tournament(created["id"])
    page = _html(app.test_client(), f"/t/{created['id']}/crosstable")
    assert page.count('class="ct-round"') == 1 and 'class="ct-opp"' not in page
    numbers = {line["player"]: line["rank"] for line in answer["standings"]}
    for pairing in answer["rounds"][0]["pairings"]:
        winner = pairing["result"]["winner"]
        loser = next(seat for seat in pairing["seats"] if seat != winner)
        row = re.search(rf'<tr data-player="{winner}">(.*?)</tr>', page, re.DOTALL)
        assert row is not None and f"1 v {numbers[loser]}" in row.group(1)


def test_a_viewer_without_a_ledger_says_it_has_no_tournaments() -> None:
    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app

    client = create_viewer_app(MemoryLedger(), {"TESTING": True}).test_client()
    for path in ("/t/", "/t/t-1", "/t/t-1/crosstable"):
        page = _html(client, path, 404)
        assert "No tournaments here" in page and "keeps no ledger" in page


def test_the_key_page_finds_a_tournament_older_than_the_newest_fifty(app: Any) -> None:
    """The ledger looks a key's tournaments up by its index (Ledger.key_tournaments), so an
    old tournament is found however many came after it, with the key's rank and score."""
    ledger = _ledger(app)
    old, players = registered(ledger, 2, name="the old cup")
    ledger.start_tournament(old["id"], old["organiser_token"])
    ledger.pair_next_round(old["id"], old["organiser_token"])
    winner = play_round(ledger, old["id"], players)[0]["seats"][0]
    for number in range(50):
        ledger.create_tournament(name=f"newer {number}", game="arcomage",
                                 system="round-robin", arbiter_key=ARBITER.public_text)
    page = _html(app.test_client(), f"/k/{winner}")
    section = page[page.index('id="key-tournaments"'):page.index('id="matches-h"')]
    row = re.search(rf'<tr data-tournament="{old["id"]}">(.*?)</tr>', section, re.S)
    assert row, section
    cells = re.findall(r"<td>([^<]*)</td>", row.group(1))
    assert cells == ["running", "1", "1", "2"]  # status, rank, score in points, players
    assert "newer" not in section


def test_an_auto_tournament_in_its_dispute_window_says_until_when(app: Any) -> None:
    from fairdeal.verifier.protocol import utc_time

    ledger = _ledger(app)
    now = [80_000_000]
    ledger.clock = lambda: now[0]
    created, players = registered(ledger, 2, name="auto cup", auto=True, seating_ms=20_000)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    client = app.test_client()
    assert 'id="tournament-window"' not in _html(client, f"/t/{tid}")  # round 1 in play
    play_round(ledger, tid, players)
    until = ledger.tournament(tid)["disputes_until"]
    window = re.search(r'<p class="muted" id="tournament-window">([^<]+)</p>',
                       _html(client, f"/t/{tid}"))
    assert window and window.group(1) == (
        f"Every round is played: waiting for disputes until {utc_time(until)}. The server "
        "finishes the tournament then.")
    pairing = ledger.tournament(tid)["rounds"][0]["pairings"][0]
    loser = next(p for p in players if p.player == pairing["seats"][1])
    _dispute(app, tid, loser, pairing["match_id"], 1)
    now[0] = until + 1
    window = re.search(r'id="tournament-window">([^<]+)<', _html(client, f"/t/{tid}"))
    assert window and "waiting for the arbiter&#39;s ruling on dispute 1" in window.group(1)
    _rule(app, tid, ARBITER, 1)
    page = _html(client, f"/t/{tid}")
    assert 'id="tournament-window"' not in page and "✓ every check passed" in page
