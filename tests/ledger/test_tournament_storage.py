"""The tournaments' tables (ledger.tables, ledger.database): append-only events on both
backends, and a PostgreSQL log made when leaf kinds were at most 16 characters widened when the
store opens, so a ``tournament-created`` leaf fits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DatabaseError

from fairdeal.ledger.database import create_schema
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore

from ..tournament_play import registered
from .conftest import PG_SKIP, _pg_engine, postgres_url


def test_tournament_events_are_append_only(engine: Engine, tmp_path) -> None:
    ledger = Ledger(EventStore(engine), load_or_create_server_key(tmp_path))
    created, _ = registered(ledger, 2)
    for statement in ("UPDATE tournament_events SET body = '{}' WHERE seq = 0",
                      "DELETE FROM tournament_events WHERE seq = 1"):
        with pytest.raises(DatabaseError, match="append-only"), engine.begin() as conn:
            conn.execute(text(statement))
    assert len(ledger.tournament_events(created["id"])) == 3


@pytest.fixture
def pg_engine() -> Iterator[Engine]:
    """PostgreSQL alone: SQLite does not enforce a column's width."""
    url = postgres_url()
    if url is None:
        pytest.skip(PG_SKIP)
    yield from _pg_engine(url)


@pytest.mark.postgres
def test_a_postgresql_log_of_short_kinds_is_widened(pg_engine: Engine, tmp_path) -> None:
    engine = pg_engine
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE log_leaves ALTER COLUMN kind TYPE varchar(16)"))
    create_schema(engine, None)  # what opening the store does
    with engine.connect() as conn:
        width = conn.execute(text(
            "SELECT character_maximum_length FROM information_schema.columns WHERE "
            "table_schema = current_schema() AND table_name = 'log_leaves' AND "
            "column_name = 'kind'")).scalar()
    assert width == 24
    ledger = Ledger(EventStore(engine), load_or_create_server_key(tmp_path))
    registered(ledger, 0)
    assert [leaf.kind for _, leaf in ledger.log.every_leaf()] == ["tournament-created"]
