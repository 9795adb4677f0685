"""A key's tournaments (``Ledger.key_tournaments``): the tournaments a key registered in,
newest first, a page at a time, each with the key's registration and where it stands — read
over the index of ``tournament_players`` by key, which a store made before that index gets
when it opens. SQLite file and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, inspect, text

from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey

from ..tournament_play import Player, play_round, register, registered

INDEX = "tournament_players_by_player"


@pytest.fixture
def clocked(engine: Engine, tmp_path) -> tuple[Ledger, list[int]]:
    now = [70_000_000]
    return Ledger(EventStore(engine), load_or_create_server_key(tmp_path),
                  clock=lambda: now[0]), now


def test_a_keys_tournaments_newest_first_page_by_page_with_where_it_stands(
        clocked: tuple[Ledger, list[int]]) -> None:
    ledger, now = clocked
    ann = Player("ann", SigningKey.from_seed(b"\x61" * 32))
    made = []
    for number in range(3):
        now[0] += 1_000
        created, _ = registered(ledger, 2, name=f"cup {number}")
        register(ledger, created["id"], Player("ann", ann.key))
        made.append(created)
    now[0] += 1_000
    registered(ledger, 2, name="without ann")  # not hers
    first, organiser = made[0]["id"], made[0]["organiser_token"]
    ledger.start_tournament(first, organiser)
    ledger.pair_next_round(first, organiser)
    page = ledger.key_tournaments(ann.key.key_id, 2)
    assert page["key_id"] == ann.key.key_id
    assert [item["name"] for item in page["tournaments"]] == ["cup 2", "cup 1"]
    assert page["tournaments"][0]["player"] == {"name": "ann",
                                                "public_key": ann.key.public_text,
                                                "withdrawn_from": None}
    assert page["tournaments"][0]["rank"] is None  # not started: no standings
    rest = ledger.key_tournaments(ann.key.public_text, 2, page["next_cursor"])
    assert [item["id"] for item in rest["tournaments"]] == [first]
    assert rest["next_cursor"] is None
    shown = ledger.tournament(first)
    line = next(line for line in shown["standings"] if line["player"] == ann.key.key_id)
    assert rest["tournaments"][0]["rank"] == line["rank"]
    assert rest["tournaments"][0]["score"] == line["score"]
    assert rest["tournaments"][0]["status"] == "running"
    assert rest["tournaments"][0]["players"] == 3
    nobody = SigningKey.from_seed(b"\x62" * 32).key_id
    assert ledger.key_tournaments(nobody) == {"key_id": nobody, "tournaments": [],
                                              "next_cursor": None}


def test_the_standing_follows_the_results(clocked: tuple[Ledger, list[int]]) -> None:
    ledger, _ = clocked
    created, players = registered(ledger, 2)
    tid = created["id"]
    ledger.start_tournament(tid, created["organiser_token"])
    ledger.pair_next_round(tid, created["organiser_token"])
    pairing = play_round(ledger, tid, players)[0]
    winner = pairing["seats"][0]  # seat 1 resigns
    item = ledger.key_tournaments(winner)["tournaments"][0]
    assert (item["rank"], item["score"]) == (1, 2)


@pytest.mark.parametrize("bad", ["abc", "0123", "zz" * 8, "ed25519:00", 5, "a" * 17])
def test_a_malformed_or_partial_key_id_is_refused(clocked: tuple[Ledger, list[int]],
                                                  bad: object) -> None:
    ledger, _ = clocked
    with pytest.raises(BadRequest) as refused:
        ledger.key_tournaments(bad)
    assert refused.value.code == "invalid-key-id"


def test_a_bad_cursor_is_refused(clocked: tuple[Ledger, list[int]]) -> None:
    ledger, _ = clocked
    with pytest.raises(BadRequest) as refused:
        ledger.key_tournaments("ab" * 8, 10, "yesterday")
    assert refused.value.code == "invalid-cursor"


def test_a_store_made_before_the_index_gets_it_when_it_opens(
        engine: Engine, clocked: tuple[Ledger, list[int]]) -> None:
    ledger, _ = clocked
    created, players = registered(ledger, 2)
    assert INDEX in {index["name"] for index in inspect(engine).get_indexes(
        "tournament_players")}
    with engine.begin() as conn:
        conn.execute(text(f"DROP INDEX {INDEX}"))
    assert INDEX not in {index["name"] for index in inspect(engine).get_indexes(
        "tournament_players")}
    reopened = open_engine(engine.url.render_as_string(hide_password=False),
                           pg_schema=_schema(engine))
    try:
        indexes = {index["name"]: index["column_names"]
                   for index in inspect(reopened).get_indexes("tournament_players")}
        assert indexes[INDEX] == ["player", "tournament_id"]
        again = Ledger(EventStore(reopened), ledger.server_key)
        assert [item["id"] for item in again.key_tournaments(players[0].player)[
            "tournaments"]] == [created["id"]]
    finally:
        reopened.dispose()


def _schema(engine: Engine) -> str | None:
    """The PostgreSQL schema the test's engine works in (None on SQLite)."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT current_schema()")).scalar())


def test_the_lookup_uses_the_index_on_sqlite(tmp_path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'plan.db'}")
    try:
        with engine.connect() as conn:
            plan = " ".join(str(row[-1]) for row in conn.execute(text(
                "EXPLAIN QUERY PLAN SELECT tournament_id FROM tournament_players "
                "WHERE player = 'abababababababab'")))
    finally:
        engine.dispose()
    assert INDEX in plan
