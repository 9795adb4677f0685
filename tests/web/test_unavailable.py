"""The 503 the web answers when the database is away, for each way the store says it is away
(busy, unreachable; a full disk: tests/hostile/test_faults.py): the JSON for the API, the page
for the viewer, ``Retry-After``, and the log line naming the error classes — the store's error
types are all web/faults.py knows of the database."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import event

from fairdeal.ledger.database import open_engine
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.web.app import create_app

#: nothing listens there: a connection is refused at once
UNREACHABLE = "postgresql+psycopg://nobody@127.0.0.1:1/fairdeal"
RETRY = ("; retry in 1 s. A write may or may not have been stored: retrying it with the same "
         "action_id is safe")


def _client(ledger: Ledger) -> FlaskClient:
    return create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                       "FAIRDEAL_RATE_LIMITS": "off"}).test_client()


def _assert_json_503(response: Any, reason: str) -> None:
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "1"
    assert response.get_json() == {"error": {
        "code": "database-unavailable", "retry_after": 1,
        "message": f"the database is unavailable ({reason}){RETRY}"}}


@pytest.fixture
def unreachable(tmp_path: Path) -> Iterator[FlaskClient]:
    pytest.importorskip("psycopg")
    engine = open_engine(UNREACHABLE, create=False)
    try:
        yield _client(Ledger(EventStore(engine), load_or_create_server_key(tmp_path)))
    finally:
        engine.dispose()


def test_an_unreachable_database_is_a_503_for_the_api_and_a_page_for_the_viewer(
        unreachable: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="fairdeal.web"):
        _assert_json_503(unreachable.get("/api/v1/matches"), "it cannot be reached")
        _assert_json_503(unreachable.post("/api/v1/matches", json={"game": "arcomage"}),
                         "it cannot be reached")
    assert ("database unavailable (OperationalError, OperationalError) during GET "
            "/api/v1/matches") in caplog.messages
    page = unreachable.get("/")
    assert page.status_code == 503
    assert page.headers["Retry-After"] == "1"
    assert page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "Try again in a moment" in html
    assert f"the database is unavailable (it cannot be reached){RETRY}" in html


def test_a_lock_held_too_long_is_a_503_that_says_busy_and_the_next_write_works(
        tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")

    @event.listens_for(engine, "connect")
    def _impatient(connection: Any, _: Any) -> None:  # after the store's 30 s: 50 ms
        connection.execute("PRAGMA busy_timeout = 50")

    engine.dispose()
    client = _client(Ledger(EventStore(engine), load_or_create_server_key(tmp_path)))
    holder = sqlite3.connect(tmp_path / "ledger.db", isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        _assert_json_503(client.post("/api/v1/matches", json={"game": "arcomage"}),
                         "it is busy")
        holder.execute("ROLLBACK")
        assert client.post("/api/v1/matches", json={"game": "arcomage"}).status_code == 201
    finally:
        holder.close()
        engine.dispose()
