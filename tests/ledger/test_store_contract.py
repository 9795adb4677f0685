"""The storage contract, written once, run against every backend (SQLite file, PostgreSQL)."""

from __future__ import annotations

import os
import threading

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from fairdeal.ledger.errors import ConflictError
from fairdeal.ledger.store import EventStore, StoredEvent


def _match_row(match_id: str = "m1") -> dict:
    return {"id": match_id, "game": "arcomage", "params": "{}", "turn_limit_ms": None,
            "created_ms": 1, "status": "playing", "seat_names": '["a","b"]',
            "token_hashes": "[]", "server_seed": "00" * 32, "commitment": "11" * 32,
            "next_seq": 1}


def _event(seq: int, action_id: str | None = None) -> StoredEvent:
    return StoredEvent(seq=seq, type="move", body=f'{{"seq":{seq}}}', hash=f"{seq:064x}",
                       action_id=action_id)


def _genesis() -> StoredEvent:
    return StoredEvent(seq=0, type="genesis", body='{"seq":0}', hash="0" * 63 + "a")


@pytest.fixture
def match(store: EventStore) -> str:
    store.create_match(_match_row(), [_genesis()])
    return "m1"


def test_append_then_read_after_a_position(store: EventStore, match: str) -> None:
    store.append(match, 1, [_event(1)], {"next_seq": 2})
    store.append(match, 2, [_event(2), _event(3)], {"next_seq": 4})
    assert [e.seq for e in store.read(match)] == [0, 1, 2, 3]
    assert [e.seq for e in store.read(match, after=1)] == [2, 3]
    assert store.read(match, after=3) == []
    assert store.read(match, after=0, limit=1) == [_event(1)]
    assert store.head_seq(match) == 3
    assert store.match(match)["next_seq"] == 4


def test_a_taken_position_is_a_conflict_and_nothing_is_stored(store: EventStore,
                                                              match: str) -> None:
    store.append(match, 1, [_event(1)])
    with pytest.raises(ConflictError, match="position 1 was taken") as info:
        store.append(match, 1, [StoredEvent(1, "move", '{"x":1}', "f" * 64)])
    assert info.value.__cause__ is not None  # translated from the driver's IntegrityError
    # a batch whose second event collides stores neither
    store.append(match, 2, [_event(2)])
    with pytest.raises(ConflictError):
        store.append(match, 1, [_event(1), _event(2)])
    assert [e.body for e in store.read(match)][1] == '{"seq":1}'


def test_an_action_id_is_recorded_once(store: EventStore, match: str) -> None:
    store.append(match, 1, [_event(1, "act-1")])
    with pytest.raises(ConflictError):
        store.append(match, 2, [_event(2, "act-1")])
    assert store.find_action(match, "act-1") == _event(1, "act-1")
    assert store.find_action(match, "act-2") is None
    assert store.head_seq(match) == 1
    # unnamed events never collide on the action id
    store.append(match, 2, [_event(2), ])
    store.append(match, 3, [_event(3)])


def test_positions_must_be_consecutive(store: EventStore, match: str) -> None:
    with pytest.raises(ValueError, match="not at position"):
        store.append(match, 1, [_event(2)])


def test_a_match_id_is_created_once(store: EventStore, match: str) -> None:
    with pytest.raises(ConflictError, match="already exists"):
        store.create_match(_match_row(), [_genesis()])


def test_racing_writers_get_one_success_each_slot(store: EventStore, match: str) -> None:
    """16 writers race for every slot: each slot has exactly one winner, never a fork."""
    wins: list[tuple[int, int]] = []
    lock = threading.Lock()
    start = threading.Barrier(16)

    def writer(number: int) -> None:
        start.wait()
        for seq in range(1, 21):
            try:
                store.append(match, seq, [StoredEvent(seq, "move", f'{{"w":{number}}}',
                                                      f"{number:032x}{seq:032x}")])
            except ConflictError:
                continue
            with lock:
                wins.append((seq, number))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seq for seq, _ in wins) == list(range(1, 21))
    stored = store.read(match, after=0)
    assert [(e.seq, e.body) for e in stored] == [(seq, f'{{"w":{n}}}') for seq, n in sorted(wins)]


@pytest.mark.parametrize("statement", [
    "UPDATE events SET body = '{}' WHERE seq = 1",
    "DELETE FROM events WHERE seq = 1",
    "DELETE FROM events",
])
def test_the_database_refuses_to_change_an_event(store: EventStore, match: str,
                                                 statement: str) -> None:
    store.append(match, 1, [_event(1)])
    with pytest.raises(DBAPIError, match="append-only"):
        with store.engine.begin() as conn:
            conn.execute(text(statement))
    assert [e.body for e in store.read(match)] == ['{"seq":0}', '{"seq":1}']


POSTGRES_ONLY = pytest.mark.parametrize(
    "engine", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True)


@POSTGRES_ONLY
def test_postgres_refuses_truncate(store: EventStore, match: str) -> None:
    assert store.dialect == "postgresql"
    with pytest.raises(DBAPIError, match="append-only"):
        with store.engine.begin() as conn:
            conn.execute(text("TRUNCATE events CASCADE"))


def test_due_lists_matches_whose_deadline_passed(store: EventStore, match: str) -> None:
    assert store.due(10**13) == []
    store.update_match(match, {"deadline_ms": 5_000})
    assert store.due(4_999) == []
    assert store.due(5_000) == [match]
    store.update_match(match, {"status": "ended"})
    assert store.due(10**13) == []


def test_matches_are_listed_newest_first(store: EventStore, match: str) -> None:
    store.create_match({**_match_row("m2"), "created_ms": 5, "game": "toybattle"}, [])
    assert [m["id"] for m in store.matches()] == ["m2", "m1"]
    assert [m["id"] for m in store.matches(game="arcomage")] == ["m1"]
    assert store.count_matches() == 2
    assert store.matches(limit=1, offset=1)[0]["id"] == "m1"


@POSTGRES_ONLY
def test_a_connection_the_server_dropped_fails_one_request_then_is_replaced(store) -> None:
    """No ping per request (a round trip each): a connection that died fails the request that
    finds it out, and the pool never hands it out again."""
    assert store.dialect == "postgresql"
    store.read("none")
    connection = store.engine.raw_connection()
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
        connection.commit()
    finally:
        connection.close()
    admin = create_engine(os.environ["FAIRDEAL_TEST_POSTGRES_URL"])
    with admin.begin() as conn:
        conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()
    failures = 0
    for _ in range(3):
        try:
            assert store.read("none") == []
        except Exception:  # noqa: BLE001  the driver's error for the dead connection
            failures += 1
    assert failures <= 1, failures


def test_matches_filter_by_the_key_that_sealed_them(store: EventStore) -> None:
    ours, theirs = "ed25519:" + "a" * 64, "ed25519:" + "b" * 64
    for index, seal_key in enumerate((ours, theirs, None, theirs)):
        row = {**_match_row(f"s{index}"), "created_ms": index, "seal_key": seal_key}
        store.create_match(row, [_genesis()])
    assert [row["id"] for row in store.matches(sealed_by=ours)] == ["s0"]
    # newest first; a match not sealed yet (s2) is in neither list
    assert [row["id"] for row in store.matches(sealed_by_other_than=ours)] == ["s3", "s1"]
    assert [row["id"] for row in store.matches(sealed_by_other_than=ours, limit=1,
                                               offset=1)] == ["s1"]
    assert len(store.matches()) == 4


def test_has_player_finds_a_seats_exact_name(store: EventStore) -> None:
    import json

    names = [["ann", 'o"neil'], ["100%_real", "bé"]]
    for index, seats in enumerate(names):
        row = {**_match_row(f"p{index}"), "seat_names": json.dumps(seats)}
        store.create_match(row, [_genesis()])
    for name in ("ann", 'o"neil', "100%_real", "bé"):
        assert store.has_player(name), name
    # a part of a name, a LIKE wildcard, or a name beside a quote is no seat's name
    for name in ("an", "nn", "%", "_", "100", "neil", "o", ""):
        assert not store.has_player(name), name
