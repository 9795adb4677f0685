"""One genesis per match id (issue 18, break 4), on a SQLite file and on PostgreSQL.

The operator creates a match, learns the deal, deletes the match from its own tables (dropping
their triggers; the log's tables untouched) and creates a new match under the same id. The
ledger refuses that second creation, by its check under the log's lock and by the log table's
partial unique index; and a log that holds two genesis leaves anyway (the operator's patched
code) counts per leaf: the first genesis, which no seal closes, is unsealed and counts against
the players it named.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.ledger.tlog import MatchIdUsed, append_leaf
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logleaf import SEAL_FORMAT, LogLeaf, seal_leaf
from fairdeal.web.api.errors import status_for

from ..redeal import finish, forget_match, redeal, same_id

KEY = SigningKey.from_seed(b"\x12" * 32)


@pytest.fixture
def ledger(store: EventStore) -> Ledger:
    return Ledger(store, KEY)


def test_the_ledger_refuses_to_deal_a_used_match_id_again(ledger: Ledger,
                                                          engine: Engine) -> None:
    first = ledger.create_match("arcomage", {}, turn_limit_ms=None, seats=["mallory", "bob"])
    match_id = first["id"]
    forget_match(engine, match_id)
    ledger.matches.forget(match_id)
    with same_id(match_id), pytest.raises(MatchIdUsed) as refused:
        ledger.create_match("arcomage", {}, turn_limit_ms=None, seats=["mallory", "bob"])
    assert status_for(refused.value) == 409 and refused.value.code == "match-id-used"
    assert str(refused.value) == (f"match id {match_id!r} was dealt before (the log holds its "
                                  "genesis leaf 0): a match id is never dealt twice")
    # nothing of the refused match was stored: neither its row nor a leaf
    assert ledger.store.match(match_id) is None and ledger.log.size() == 1
    # the honest case beside it: a fresh id is dealt and sealed as ever
    other = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    finish(ledger, other)
    assert ledger.log.size() == 3


def test_the_unique_index_refuses_a_second_genesis_even_past_the_check(
        ledger: Ledger, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that skips the check under the lock (or two racing ones) still cannot store a
    second genesis leaf of one id: the partial unique index on log_leaves refuses it."""
    first = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    forget_match(engine, first["id"])
    ledger.matches.forget(first["id"])
    monkeypatch.setattr("fairdeal.ledger.tlog.genesis_index", lambda _conn, _id: None)
    with same_id(first["id"]), pytest.raises(MatchIdUsed, match="genesis leaf 0"):
        ledger.create_match("arcomage", {}, turn_limit_ms=None)
    with pytest.raises(IntegrityError), engine.begin() as conn:
        append_leaf(conn, "genesis", first["id"], b'{"kind":"genesis"}')
    # seal leaves of one id are not what the index is about
    with engine.begin() as conn:
        append_leaf(conn, "seal", first["id"], b'{"kind":"seal","n":1}')
        append_leaf(conn, "seal", first["id"], b'{"kind":"seal","n":2}')


@pytest.mark.parametrize("check", ["under the lock", "skipped"])
def test_writers_of_one_id_at_once_store_one_genesis(store: EventStore, engine: Engine,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     check: str) -> None:
    """The concurrency case: four writers append a genesis leaf of one match id at once, in
    their own transactions. Exactly one is stored; the others are refused — by the check under
    the log's lock, or (a writer that skipped it) by the unique index."""
    if check == "skipped":
        monkeypatch.setattr("fairdeal.ledger.tlog.genesis_index", lambda _conn, _id: None)
    barrier, refused = threading.Barrier(4), []

    def write(number: int) -> None:
        barrier.wait()
        try:
            with store.writes.transaction() as conn:
                append_leaf(conn, "genesis", "race", f'{{"kind":"genesis","n":{number}}}'
                            .encode())
        except (MatchIdUsed, IntegrityError) as e:
            refused.append(type(e))

    threads = [threading.Thread(target=write, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert refused == [MatchIdUsed if check == "under the lock" else IntegrityError] * 3
    with engine.connect() as conn:
        count = conn.execute(text("SELECT COUNT(*) FROM log_leaves WHERE kind = 'genesis' "
                                  "AND match_id = 'race'")).scalar()
    assert count == 1


def test_a_seal_leaf_names_the_genesis_leaf_it_closes(ledger: Ledger) -> None:
    ledger.create_match("arcomage", {}, turn_limit_ms=None)
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    finish(ledger, created)
    leaves = dict(ledger.log.every_leaf())
    seal = leaves[2]
    assert seal.kind == "seal" and seal.format == SEAL_FORMAT and seal.genesis == 1
    assert LogLeaf.parse(seal_leaf(created["id"], 5, "ab" * 32, 1)).genesis == 1


def test_a_redealt_match_id_leaves_its_first_genesis_unsealed(ledger: Ledger,
                                                              engine: Engine) -> None:
    """The attack, played through: two genesis leaves of one id and one seal. Counted per leaf,
    the first genesis stays open — in unsealed() and in the per-player counts the audit's
    "unsealed" test reads — where counting by match id saw every match sealed."""
    match_id, _ = redeal(ledger, engine)
    leaves = list(ledger.log.every_leaf())
    assert [(leaf.kind, leaf.match_id) for _, leaf in leaves] == [
        ("genesis", match_id), ("genesis", match_id), ("seal", match_id)]
    assert leaves[2][1].genesis == 1  # the seal closes the second deal's genesis
    assert [index for index, _ in ledger.log.unsealed()] == [0]
    assert ledger.seat_counts() == {"mallory": (2, 1), "bob": (2, 1)}
    # the honest case beside it: a match dealt once and sealed is not counted
    honest = ledger.create_match("arcomage", {}, turn_limit_ms=None, seats=["ann", "cy"])
    finish(ledger, honest)
    assert ledger.seat_counts()["ann"] == (1, 0)
    assert [index for index, _ in ledger.log.unsealed()] == [0]


def test_old_seal_leaves_close_the_latest_genesis_of_their_id() -> None:
    """Seal leaves of format 1 (no genesis index) pair with the latest open genesis of their
    match id before them: a re-deal sealed under the old format leaves the first open too."""
    from fairdeal.verifier.logleaf import seat_counts, unsealed

    def genesis(match_id: str) -> LogLeaf:
        return LogLeaf.parse(
            b'{"event":"' + b"0" * 64 + b'","game":"arcomage","kind":"genesis","leaf":'
            b'"fairdeal.log/1","match_id":"' + match_id.encode() + b'","seats":["a","b"],'
            b'"ts":1}')

    old = LogLeaf.parse(seal_leaf("m", 3, "ab" * 32))
    leaves = [(0, genesis("m")), (1, genesis("m")), (2, old), (3, genesis("n")),
              (4, LogLeaf.parse(seal_leaf("n", 3, "ab" * 32, 3)))]
    assert [index for index, _ in unsealed(leaves)] == [0]
    assert seat_counts(leaves) == {"a": (3, 1), "b": (3, 1)}
    # a seal naming a genesis that is not its match's, or one closed already, closes nothing
    stray = [(0, genesis("m")), (1, LogLeaf.parse(seal_leaf("x", 3, "ab" * 32, 0))),
             (2, LogLeaf.parse(seal_leaf("m", 3, "ab" * 32, 0))),
             (3, LogLeaf.parse(seal_leaf("m", 3, "ab" * 32, 0)))]
    assert unsealed(stray) == []
    assert seat_counts(stray) == {"a": (1, 0), "b": (1, 0)}


def test_a_database_made_before_the_rule_gets_the_index_or_says_why_not(
        engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    """At start-up the unique index is made on a database that lacks it; on one whose log
    already holds a match id dealt twice it cannot be, and the ledger says so and starts (the
    check under the lock still refuses a third)."""
    from fairdeal.ledger.database import create_schema

    with engine.begin() as conn:
        conn.execute(text("DROP INDEX IF EXISTS log_leaves_one_genesis"))
    create_schema(engine, _schema(engine))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("INSERT INTO log_leaves (idx, kind, match_id, body) VALUES "
                          "(0, 'genesis', 'm', 'a'), (1, 'genesis', 'm', 'b')"))
    with engine.begin() as conn:
        conn.execute(text("DROP INDEX log_leaves_one_genesis"))
        conn.execute(text("INSERT INTO log_leaves (idx, kind, match_id, body) VALUES "
                          "(0, 'genesis', 'm', 'a'), (1, 'genesis', 'm', 'b')"))
    with caplog.at_level("WARNING", logger="fairdeal.ledger.store"):
        create_schema(engine, _schema(engine))
    assert "holds two genesis leaves of one match id" in caplog.text
    with pytest.raises(MatchIdUsed, match="genesis leaf 1"), engine.begin() as conn:
        append_leaf(conn, "genesis", "m", b"c")


def _schema(engine: Engine) -> str | None:
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT current_schema()")).scalar())
