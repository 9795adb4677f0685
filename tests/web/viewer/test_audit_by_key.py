"""/audit?seat_key=KEY and the audit on a key's page (/k/<key id>), over a real SQLite ledger:
the report counts only the matches that key signed and names the key; its page shows the key's
own figures (opening hands, who moves first, matches never sealed) once computed; a malformed
or unknown key is a clear 400 or 404 page."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path
from typing import Any

import pytest

from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey
from fairdeal.web.app import create_app

from ...keyed import ANN, keyed_match


@pytest.fixture()
def client(tmp_path: Path) -> Any:
    clock = itertools.count(1_800_000_000_000, 1000)
    ledger = Ledger(EventStore(open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")),
                    SigningKey.from_seed(b"\x0c" * 32), clock=lambda: next(clock))
    for n in range(21):
        keyed_match(ledger, ("ann" if n % 2 else "annie", "bob"), (ANN, None), loser=n % 2)
    keyed_match(ledger, ("cy", "bob"), (None, None), loser=0)
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False, "TESTING": True})
    return app.test_client()


def _ready(client: Any, url: str, pending: str) -> str:
    for _ in range(400):
        answer = client.get(url)
        text = answer.get_data(as_text=True)
        if answer.status_code == 200 and pending not in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"{url} never finished")


def test_the_audit_of_one_key(client: Any) -> None:
    page = _ready(client, f"/audit?seat_key={ANN.key_id[:6]}", "being computed")
    assert f"seat key {ANN.key_id}" in page
    assert "21 verified matches audited" in page  # cy's match is not this key's
    assert f"key {ANN.key_id} (as ann, annie)" in page


def test_the_key_page_shows_its_own_figures(client: Any) -> None:
    page = _ready(client, f"/k/{ANN.key_id}", "is being computed")
    section = page[page.index('id="key-audit"'):page.index('id="matches-h"')]
    rows = dict(re.findall(r'data-test="([a-z-]+)".*?class="verdict-(\w+)"', section, re.S))
    assert set(rows) == {"key-hands", "key-first", "key-unsealed"}
    assert rows["key-first"] in ("pass", "fail") and rows["key-unsealed"] == "pass"  # 0 of 21
    assert "21 matches" in section and "21 sealed matches of this key" in section


def test_bad_seat_keys_on_the_audit_page(client: Any) -> None:
    assert client.get("/audit?seat_key=zz").status_code == 400
    unknown = "ffff" if not ANN.key_id.startswith("ffff") else "0000"
    answer = client.get(f"/audit?seat_key={unknown}")
    assert answer.status_code == 404 and "no match on this server" in answer.get_data(
        as_text=True)
