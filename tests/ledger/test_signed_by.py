"""Who sealed a match, on every backend: "verified" is said only of matches sealed under this
server's own key; a bundle re-forged under any other key (anyone may import one, the API asks
for no authentication) carries that key's id and ``this_server: false``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine

from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.keys import SigningKey, key_id, parse_public_key

TAMPERED = Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / "tampered"


def _bundle_bytes(bundle: dict) -> bytes:
    return json.dumps(bundle, separators=(",", ":")).encode()


@pytest.fixture
def ledger(engine: Engine) -> Ledger:
    return Ledger(EventStore(engine), SigningKey.from_seed(b"\x05" * 32))


def test_only_this_servers_key_is_verified(ledger: Ledger) -> None:
    settings = SimulationSettings(game="arcomage", params={}, bots=("random", "greedy"))
    ours = next(simulate_matches(settings, 1, seed="signed-by",
                                 server_key=ledger.server_key))
    forged = (TAMPERED / "reforged-under-new-key.json").read_bytes()
    other = json.loads(forged)["signature"]["key"]
    own_id, _ = ledger.import_bundle(_bundle_bytes(ours))
    forged_id, report = ledger.import_bundle(forged)
    assert own_id is not None and forged_id is not None and report.ok  # it does verify

    mine = ledger.get_match(own_id)
    assert mine["verified"] is True
    assert mine["signed_by"] == {"key": ledger.server_key.public_text,
                                 "key_id": ledger.server_key.key_id, "this_server": True}
    theirs = ledger.get_match(forged_id)
    assert theirs["verified"] is False and theirs["status"] == "imported"
    assert theirs["signed_by"] == {"key": other, "key_id": key_id(parse_public_key(other)),
                                   "this_server": False}
    assert ledger.view(forged_id)["signed_by"] == theirs["signed_by"]

    assert [m["id"] for m in ledger.list_matches(signer="this")] == [own_id]
    assert [m["id"] for m in ledger.list_matches(signer="other")] == [forged_id]
    assert {m["id"] for m in ledger.list_matches()} == {own_id, forged_id}
    with pytest.raises(BadRequest, match="signer must be 'this' or 'other'"):
        ledger.list_matches(signer="mine")


def test_a_match_not_sealed_yet_names_no_signer(ledger: Ledger) -> None:
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    summary = ledger.get_match(created["id"])
    assert summary["signed_by"] is None and summary["verified"] is False
    assert ledger.list_matches(signer="this") == [] == ledger.list_matches(signer="other")
