"""Break 4 of issue 18, played by the operator against its own ledger database: re-deal a match
under an id it already used, so that only the deal it likes is ever sealed.

What the operator does, exactly: create a match (its genesis leaf joins the log), learn the
deal (it holds the server seed), delete that match from its own tables — dropping the
append-only triggers of ``events`` first; the log's tables are not touched — and create a new
match under the same id, which it then lets the players finish and seal. Its code is its own:
``patched`` stands for a ledger with the "one genesis per match id" check cut out (and the
database without the unique index that backs it), which is how such a log comes to exist
despite the honest code refusing it.
"""

from __future__ import annotations

import contextlib
import secrets
import types
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, text

from fairdeal.ledger import creating, tlog


def forget_match(engine: Engine, match_id: str) -> None:
    """Delete a match from the operator's own tables (events and matches rows), dropping the
    triggers that refuse it; the log's tables and their triggers stay as they are."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("DROP TRIGGER IF EXISTS events_append_only ON events"))
        else:
            conn.execute(text("DROP TRIGGER IF EXISTS events_no_delete"))
        conn.execute(text("DELETE FROM events WHERE match_id = :id"), {"id": match_id})
        conn.execute(text("DELETE FROM matches WHERE id = :id"), {"id": match_id})


@contextlib.contextmanager
def same_id(match_id: str) -> Iterator[None]:
    """The next match the ledger creates gets ``match_id`` (the operator's own code)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(creating, "secrets", types.SimpleNamespace(
            token_hex=lambda _n: match_id, token_bytes=secrets.token_bytes,
            token_urlsafe=secrets.token_urlsafe))
        yield


@contextlib.contextmanager
def patched(engine: Engine) -> Iterator[None]:
    """The operator's ledger without the one-genesis check (and its database without the
    unique index): what it takes to write a second genesis leaf for one match id."""
    with engine.begin() as conn:
        conn.execute(text("DROP INDEX IF EXISTS log_leaves_one_genesis"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tlog, "genesis_index", lambda _conn, _match_id: None, raising=False)
        yield


def finish(ledger: Any, created: dict[str, Any]) -> None:
    """Seat both players (seeds declined) and let the first resign: the match is sealed."""
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(created["id"], token, None)
    ledger.resign(created["id"], tokens[0])


def redeal(ledger: Any, engine: Engine) -> tuple[str, dict[str, Any]]:
    """The whole attack: a first match created and forgotten, a second created under its id
    (the patched ledger) and sealed. Returns the id and the second match's creation answer."""
    first = ledger.create_match("arcomage", {}, turn_limit_ms=None,
                                seats=["mallory", "bob"])
    match_id = str(first["id"])
    # the operator reads the deal from its own row (it holds the server seed), then forgets
    # the match: its rows, and the copy its process keeps in memory (as a restart would)
    forget_match(engine, match_id)
    ledger.matches.forget(match_id)
    with patched(engine), same_id(match_id):
        second = ledger.create_match("arcomage", {}, turn_limit_ms=None,
                                     seats=["mallory", "bob"])
    finish(ledger, second)
    return match_id, second
