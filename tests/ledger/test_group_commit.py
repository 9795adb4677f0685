"""SQLite's group commit (ledger.storewrites): the hand-over of the lead between appends, at
the moments a thread switch can put it, and a batch that cannot reach the database."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.ledger.database import open_engine
from fairdeal.ledger.store import EventStore, StoredEvent
from fairdeal.ledger.storewrites import WritePath


def _row(match_id: str) -> dict[str, Any]:
    return {"id": match_id, "game": "arcomage", "params": "{}", "turn_limit_ms": None,
            "created_ms": 1, "status": "playing", "seat_names": '["a","b"]',
            "token_hashes": "[]", "server_seed": "00" * 32, "commitment": "11" * 32,
            "next_seq": 1}


def _event(seq: int) -> StoredEvent:
    return StoredEvent(seq=seq, type="move", body=f'{{"seq":{seq}}}', hash=f"{seq:064x}")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EventStore]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    store = EventStore(engine)
    store.create_match(_row("m"), [StoredEvent(0, "genesis", '{"seq":0}', "0" * 64)])
    yield store
    engine.dispose()


class _HandsOverOnQueueing:
    """The queue's lock, with a leader finishing its batch in the gap a thread switch can
    open: as soon as the first append is queued (the lock released), the lead is handed to
    it, exactly as ``WritePath._lead`` does."""

    def __init__(self, writes: WritePath) -> None:
        self.lock = threading.Lock()
        self.writes = writes
        self.handed = False

    def __enter__(self) -> None:
        self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self.lock.release()
        if not self.handed and self.writes._queue:
            self.handed = True
            with self.lock:
                job = self.writes._queue[0]
                job.leads = True
                job.waiting.release()


def test_an_append_handed_the_lead_before_it_waits_commits_and_answers(
        store: EventStore) -> None:
    writes = store.writes
    writes._leading = True  # another append leads: this one queues behind it
    writes._queue_lock = _HandsOverOnQueueing(writes)  # type: ignore[assignment]
    store.append("m", 1, [_event(1)], {"next_seq": 2})  # was: release unlocked lock
    assert writes._queue_lock.handed  # type: ignore[attr-defined]
    assert [stored.seq for stored in store.read("m")] == [0, 1]
    assert not writes._leading  # the lead given up: the next append leads at once
    store.append("m", 2, [_event(2)], {"next_seq": 3})
    assert store.head_seq("m") == 2


def test_a_batch_that_cannot_open_its_connection_fails_every_append_in_it(
        store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    writes = store.writes

    def unreachable() -> Any:
        raise OSError("no database file")

    monkeypatch.setattr(writes, "_own_connection", unreachable)
    with pytest.raises(OSError, match="no database file"):  # not acknowledged as stored
        writes.append("m", 1, [("m", 1, "move", '{"seq":1}', "1" * 64, None)],
                      {"next_seq": 2}, None)
    assert not writes._leading
    monkeypatch.undo()
    assert [stored.seq for stored in store.read("m")] == [0]
