"""The hostile corpus (fixtures/hostile/): bundles and API requests that once crashed fairdeal
or probe a limit, each with the refusal it must get; and an app over a real SQLite ledger."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.web.app import create_app

HOSTILE = Path(__file__).parents[2] / "fixtures" / "hostile"
EXPECTED: dict[str, Any] = json.loads((HOSTILE / "expected.json").read_text())


def hostile_bundle(name: str) -> bytes:
    """A hostile bundle's bytes exactly as committed (some hold escapes no encoder writes)."""
    return (HOSTILE / "bundles" / f"{name}.json").read_bytes()


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    ledger = Ledger(EventStore(engine), load_or_create_server_key(tmp_path))
    yield ledger
    ledger.stop_sweeper()
    engine.dispose()


@pytest.fixture
def app(ledger: Ledger) -> Flask:
    # no rate limit here: these tests send many requests on purpose
    return create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                       "FAIRDEAL_RATE_LIMITS": "off"})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
