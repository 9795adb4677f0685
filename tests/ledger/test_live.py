"""The live-match cache reads the database only when someone else wrote: its own writes are in
the cache already, and every write another worker makes shows in the next answer."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine

from .conftest import started_match


def _move(ledger: Ledger, match_id: str, tokens: list[str]) -> dict[str, Any]:
    """The seat to act plays its first legal action; returns the answer."""
    view = ledger.seat_view(match_id, tokens[0])
    seat = view["current_seat"]
    view = ledger.seat_view(match_id, tokens[seat])
    return ledger.play(match_id, tokens[seat], view["legal_actions"][0],
                       expected_seq=view["next_seq"], action_id=f"move-{view['next_seq']}")


def _counting_reads(store: EventStore) -> list[int]:
    """Count the event reads ``store`` makes from now on."""
    reads: list[int] = []
    read = store.read

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return read(*args, **kwargs)

    store.read = counted  # type: ignore[method-assign]
    return reads


def test_a_view_shows_at_once_a_move_another_worker_made(engine: Engine, tmp_path) -> None:
    key = load_or_create_server_key(tmp_path)
    first, second = Ledger(EventStore(engine), key), Ledger(EventStore(engine), key)
    match_id, tokens = started_match(first)
    before = second.seat_view(match_id, tokens[0])["next_seq"]  # cached in the second worker
    played = _move(first, match_id, tokens)
    assert played["view"]["next_seq"] == before + 1
    assert second.seat_view(match_id, tokens[0])["next_seq"] == before + 1
    assert second.seat_view(match_id, tokens[1])["head"] == played["view"]["head"]


def test_another_process_on_the_same_file_is_seen_too(tmp_path) -> None:
    """Two engines on one SQLite file stand for two gunicorn workers."""
    key = load_or_create_server_key(tmp_path)
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    engines = [open_engine(url), open_engine(url)]
    try:
        first, second = (Ledger(EventStore(engine), key) for engine in engines)
        match_id, tokens = started_match(first)
        for _ in range(3):
            seen = second.seat_view(match_id, tokens[0])["next_seq"]
            _move(first, match_id, tokens)
            assert second.seat_view(match_id, tokens[0])["next_seq"] == seen + 1
            _move(second, match_id, tokens)  # and back: each sees the other's moves
            assert first.seat_view(match_id, tokens[1])["next_seq"] == seen + 2
    finally:
        for engine in engines:
            engine.dispose()


def test_no_read_while_only_this_store_wrote(tmp_path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    try:
        key = load_or_create_server_key(tmp_path)
        ledger = Ledger(EventStore(engine), key)
        match_id, tokens = started_match(ledger)
        ledger.seat_view(match_id, tokens[0])
        reads = _counting_reads(ledger.store)
        for _ in range(4):
            _move(ledger, match_id, tokens)
        assert reads == [], "the views after this worker's own moves read the database"
        other = Ledger(EventStore(engine), key)
        _move(other, match_id, tokens)
        seen = ledger.seat_view(match_id, tokens[0])["next_seq"]
        assert (len(reads), seen) == (1, other.seat_view(match_id, tokens[0])["next_seq"])
        ledger.seat_view(match_id, tokens[1])
        assert len(reads) == 1, "caught up once, the next view read again"
    finally:
        engine.dispose()


def test_outside_writes_counts_other_connections_only(engine: Engine, tmp_path) -> None:
    key = load_or_create_server_key(tmp_path)
    mine, theirs = Ledger(EventStore(engine), key), Ledger(EventStore(engine), key)
    count = mine.store.outside_writes()
    if engine.dialect.name != "sqlite":
        assert count is None, "a backend that cannot tell must make every view read"
        return
    match_id, tokens = started_match(mine)
    _move(mine, match_id, tokens)
    assert mine.store.outside_writes() == count
    theirs.create_match("arcomage", {}, turn_limit_ms=None)
    assert mine.store.outside_writes() == count + 1
    assert mine.store.outside_writes() == count + 1
