"""Store fixtures: every contract test runs on a SQLite file and, when
FAIRDEAL_TEST_POSTGRES_URL is set, on a real PostgreSQL server (one fresh schema per test)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine, text

from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine

PG_ENV = "FAIRDEAL_TEST_POSTGRES_URL"
PG_SKIP = (f"PostgreSQL tests need a server: set {PG_ENV}, e.g. "
           f"{PG_ENV}=postgresql+psycopg://postgres@127.0.0.1:5432/test")


def postgres_url() -> str | None:
    return os.environ.get(PG_ENV) or None


def _pg_engine(url: str) -> Iterator[Engine]:
    schema = "t_" + secrets.token_hex(6)
    engine = open_engine(url, pg_schema=schema)
    try:
        yield engine
    finally:
        engine.dispose()
        admin = create_engine(url)
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path) -> Iterator[Engine]:
    """A fresh ledger database on each backend."""
    if request.param == "sqlite":
        engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
        yield engine
        engine.dispose()
        return
    url = postgres_url()
    if url is None:
        pytest.skip(PG_SKIP)
    yield from _pg_engine(url)


@pytest.fixture
def store(engine: Engine) -> EventStore:
    return EventStore(engine)


def started_match(ledger: Ledger) -> tuple[str, list[str]]:
    """A two-tower match with both seeds in (declined), untimed: (its id, the seat tokens)."""
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(created["id"], token, None)
    return created["id"], tokens
