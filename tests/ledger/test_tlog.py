"""The transparency log's storage contract, on a SQLite file and on PostgreSQL: leaves appended
with the events that carry them, proofs from the stored nodes that the verifier accepts, one
checkpoint per size, and a signer that refuses to sign a tree inconsistent with its past."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from fairdeal.ledger.errors import BadRequest, ConflictError
from fairdeal.ledger.store import EventStore, StoredEvent
from fairdeal.ledger.tlog import LogError, TransparencyLog
from fairdeal.verifier.checkpoint import Checkpoint
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logleaf import LogLeaf, seal_leaf
from fairdeal.verifier.merkle import MemoryTree, leaf_hash, verify_consistency, verify_inclusion
from fairdeal.verifier.note import Note, verify_note

KEY = SigningKey.from_seed(b"\x11" * 32)
ORIGIN = "fairdeal.test/log"


def _row(match_id: str) -> dict:
    return {"id": match_id, "game": "arcomage", "params": "{}", "turn_limit_ms": None,
            "created_ms": 1, "status": "playing", "seat_names": '["a","b"]',
            "token_hashes": "[]", "server_seed": "00" * 32, "commitment": "11" * 32,
            "next_seq": 1}


def _genesis_leaf(match_id: str) -> bytes:
    return (b'{"event":"' + b"0" * 64 + b'","game":"arcomage","kind":"genesis",'
            b'"leaf":"fairdeal.log/1","match_id":"' + match_id.encode()
            + b'","seats":["a","b"],"ts":1}')


def _create(store: EventStore, match_id: str) -> int | None:
    genesis = StoredEvent(0, "genesis", '{"seq":0}', "0" * 63 + "a")
    return store.create_match(_row(match_id), [genesis], log_leaf=_genesis_leaf(match_id))


def _seal(store: EventStore, match_id: str) -> int | None:
    reveal = StoredEvent(1, "reveal", '{"seq":1}', "b" * 64)
    return store.append(match_id, 1, [reveal], {"next_seq": 2, "status": "ended"},
                        log_leaf=seal_leaf(match_id, 1, "b" * 64))


@pytest.fixture
def log(store: EventStore) -> TransparencyLog:
    return TransparencyLog(store.engine, KEY, ORIGIN)


def test_leaves_are_numbered_in_order_with_their_events(store: EventStore,
                                                        log: TransparencyLog) -> None:
    assert log.size() == 0
    assert _create(store, "m1") == 0
    assert _create(store, "m2") == 1
    assert _seal(store, "m1") == 2
    assert log.size() == 3
    assert [(i, leaf.kind, leaf.match_id) for i, leaf in log.leaves()] == [
        (0, "genesis", "m1"), (1, "genesis", "m2"), (2, "seal", "m1")]
    assert log.leaves_of("m1") == {"genesis": (0, _genesis_leaf("m1")),
                                   "seal": (2, seal_leaf("m1", 1, "b" * 64))}
    assert store.match("m1")["status"] == "ended"


def test_a_failed_event_write_logs_nothing(store: EventStore, log: TransparencyLog) -> None:
    _create(store, "m1")
    with pytest.raises(ConflictError):
        _create(store, "m1")  # the id is taken: neither the match nor its leaf is stored
    _seal(store, "m1")
    with pytest.raises(ConflictError):
        _seal(store, "m1")  # position 1 is taken: no second seal leaf
    assert log.size() == 2


def test_proofs_from_the_store_are_the_reference_tree_s_and_verify(
        store: EventStore, log: TransparencyLog) -> None:
    reference = MemoryTree()
    for number in range(11):
        _create(store, f"m{number}")
        reference.append(_genesis_leaf(f"m{number}"))
    for size in range(1, 12):
        for index in range(size):
            proof = log.inclusion_proof(index, size)
            assert proof == reference.inclusion_proof(index, size)
            verify_inclusion(leaf_hash(_genesis_leaf(f"m{index}")), index, size, proof,
                             reference.root(size))
        for old in range(size + 1):
            assert log.consistency_proof(old, size) == reference.consistency_proof(old, size)


def test_bad_proof_requests_are_clear(store: EventStore, log: TransparencyLog) -> None:
    _create(store, "m1")
    with pytest.raises(BadRequest, match="larger than the log"):
        log.inclusion_proof(0, 2)
    with pytest.raises(BadRequest, match="not in a tree of 0 leaves"):
        log.inclusion_proof(0, 0)
    with pytest.raises(BadRequest, match="must be from 0 to new"):
        log.consistency_proof(2, 1)
    with pytest.raises(BadRequest, match="larger than the log"):
        log.consistency_proof(0, 5)


def test_one_checkpoint_per_size_signed_by_the_server(store: EventStore,
                                                      log: TransparencyLog) -> None:
    first = log.checkpoint()
    checkpoint, note = Checkpoint.from_note(first)
    assert (checkpoint.origin, checkpoint.size) == (ORIGIN, 0)
    verify_note(note, [log.verifier_key])
    _create(store, "m1")
    _create(store, "m2")
    second = log.checkpoint()
    assert log.checkpoint() == second  # the same size is not signed twice
    assert log.stored_checkpoint(0) == first and log.stored_checkpoint(2) == second
    new = Checkpoint.from_text(Note.parse(second).text)
    verify_consistency(0, 2, checkpoint.root, new.root, log.consistency_proof(0, 2))


def test_workers_signing_one_size_at_once_store_one_checkpoint(store: EventStore) -> None:
    _create(store, "m1")
    notes: list[str] = []
    logs = [TransparencyLog(store.engine, KEY, ORIGIN) for _ in range(6)]
    threads = [threading.Thread(target=lambda t=t: notes.append(t.checkpoint())) for t in logs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(notes)) == 1


def test_parallel_appends_neither_fork_nor_skip(store: EventStore,
                                                log: TransparencyLog) -> None:
    errors: list[BaseException] = []

    def worker(number: int) -> None:
        try:
            for round_ in range(8):
                _create(store, f"w{number}-{round_}")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    leaves = log.leaves()
    assert [index for index, _ in leaves] == list(range(32))
    reference = MemoryTree()
    for _, leaf in leaves:
        reference.append(leaf.body)
    assert Checkpoint.from_text(Note.parse(log.checkpoint()).text).root == reference.root()


def test_the_log_tables_refuse_update_and_delete(store: EventStore) -> None:
    _create(store, "m1")
    for statement in ("UPDATE log_leaves SET kind = 'seal'", "DELETE FROM log_nodes",
                      "UPDATE log_nodes SET hash = 'x'"):
        with pytest.raises(DBAPIError, match="append-only"), store.engine.begin() as conn:
            conn.execute(text(statement))


def test_the_signer_refuses_a_tree_inconsistent_with_its_last_checkpoint(
        store: EventStore, log: TransparencyLog) -> None:
    _create(store, "m1")
    _create(store, "m2")
    log.checkpoint()
    # someone with database access rewrites history behind the ledger's back: drops the
    # guard, replaces leaf 0's node, appends one more leaf
    with store.engine.begin() as conn:
        if store.dialect == "sqlite":
            conn.execute(text("DROP TRIGGER log_nodes_no_update"))
        else:
            conn.execute(text("DROP TRIGGER log_nodes_append_only ON log_nodes"))
        conn.execute(text("UPDATE log_nodes SET hash = :h WHERE level = 1 AND idx = 0"),
                     {"h": "ab" * 32})
    _create(store, "m3")
    with pytest.raises(LogError, match="not consistent with the signed checkpoint of size 2"):
        log.checkpoint()
    assert log.stored_checkpoint(3) is None


def test_unsealed_lists_the_matches_created_and_never_sealed(store: EventStore,
                                                             log: TransparencyLog) -> None:
    for match_id in ("m1", "m2", "m3"):
        _create(store, match_id)
    _seal(store, "m2")
    found = log.unsealed()
    assert [(index, leaf.match_id) for index, leaf in found] == [(0, "m1"), (2, "m3")]
    assert all(isinstance(leaf, LogLeaf) and leaf.seats == ("a", "b") for _, leaf in found)


@pytest.mark.parametrize("origin", ["", "has space", "a+b"])
def test_an_origin_that_cannot_name_a_note_key_is_refused_at_start(store: EventStore,
                                                                   origin: str) -> None:
    with pytest.raises(ValueError, match="cannot name a note key"):
        TransparencyLog(store.engine, KEY, origin)
