"""No secret in any log line: a whole match over the API — with errors on the way (a wrong
token, a stale position, a bad body, a reused action_id) — logged at DEBUG, the database's
statements included; the server seed and the seat tokens appear in no line."""

from __future__ import annotations

import logging
import random

import pytest
from flask.testing import FlaskClient

from fairdeal.ledger.service import Ledger


def test_a_logged_match_holds_neither_the_seed_nor_a_token(
        client: FlaskClient, ledger: Ledger, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    # what a deployer turns on to debug the database: every statement with its parameters
    caplog.set_level(logging.INFO, logger="sqlalchemy.engine")
    rng = random.Random(5)
    created = client.post("/api/v1/matches", json={"game": "arcomage"}).get_json()
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
    client.get(f"/api/v1/matches/{match_id}", headers={"Authorization": "Bearer wrong"})
    client.post(f"/api/v1/matches/{match_id}/seed", data=b"{", headers=auth[0])
    for header in auth:
        client.post(f"/api/v1/matches/{match_id}/seed",
                    json={"client_seed": rng.randbytes(32).hex()}, headers=header)
    for number in range(400):
        view = client.get(f"/api/v1/matches/{match_id}").get_json()
        if view["status"] == "ended":
            break
        seat = view["current_seat"]
        mine = client.get(f"/api/v1/matches/{match_id}", headers=auth[seat]).get_json()
        body = {"action": rng.choice(mine["legal_actions"]), "expected_seq": mine["next_seq"],
                "action_id": f"m{number}"}
        client.post(f"/api/v1/matches/{match_id}/actions", json=body, headers=auth[seat])
        if number == 3:
            client.post(f"/api/v1/matches/{match_id}/actions", json=body, headers=auth[seat])
            client.post(f"/api/v1/matches/{match_id}/actions",
                        json={**body, "expected_seq": 0, "action_id": "stale"},
                        headers=auth[seat])
    bundle = client.get(f"/api/v1/matches/{match_id}/bundle").get_json()
    seed = bundle["events"][-1]["server_seed"]
    text = caplog.text
    assert "INSERT INTO matches" in text  # the statements were logged ...
    assert seed not in text               # ... without the seed they stored
    for token in tokens:
        assert token not in text
