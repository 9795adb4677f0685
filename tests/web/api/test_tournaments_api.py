"""The /api/v1/tournaments routes through the Flask test client over a real ledger (api.md):
every answer's shape, every error in the API's error shape with its status and code, and every
route in the OpenAPI document."""

from __future__ import annotations

import secrets

import pytest
from openapi_spec_validator import validate

from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.tournament import verify_tournament_zip
from fairdeal.verifier.tournament.primitives import signed_message
from fairdeal.web.app import create_app

from ...tournament_play import ARBITER, play_match
from ...tournament_play import Player as Bot
from .conftest import bearer

BASE = "/api/v1/tournaments"


def _create(client, **fields) -> dict:
    response = client.post(BASE, json={
        "name": "api cup", "game": "arcomage", "system": "round-robin", "rounds": 1,
        "arbiter_key": ARBITER.public_text, "turn_limit_ms": None, **fields})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _signed_body(client, tid: str, key: SigningKey, kind: str, fields: dict,
                 player: str | None = None) -> dict:
    now = client.get(f"{BASE}/{tid}").get_json()
    event = {"seq": now["next_seq"], "prev": now["head"], "type": kind, **fields}
    if player is not None:
        event["player"] = player
    return {**fields, "expected_seq": now["next_seq"],
            "sig": key.sign(signed_message(event)).hex()}


def _register(client, tid: str, bot: Bot):
    fields = {"public_key": bot.key.public_text, "name": bot.name,
              "entropy": secrets.token_hex(32)}
    return client.post(f"{BASE}/{tid}/registrations",
                       json=_signed_body(client, tid, bot.key, "register", fields,
                                         bot.key.key_id))


def _error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.get_json()
    assert response.get_json()["error"]["code"] == code


def test_a_tournament_is_created_registered_started_and_read(client, ledger) -> None:
    created = _create(client)
    tid, organiser = created["id"], created["organiser_token"]
    assert created["header"]["type"] == "header" and created["next_seq"] == 1
    bots = [Bot(f"api bot {n}", SigningKey.from_seed(bytes([n + 40]) * 32)) for n in range(2)]
    for bot in bots:
        response = _register(client, tid, bot)
        assert response.status_code == 201, response.get_json()
        answer = response.get_json()
        bot.player, bot.token = answer["player"], answer["player_token"]
        assert answer["event"]["type"] == "register"
    _error(_register(client, tid, bots[0]), 409, "already-registered")
    _error(client.post(f"{BASE}/{tid}/start"), 401, "unauthorized")
    _error(client.post(f"{BASE}/{tid}/start", headers=bearer(bots[0].token)), 403,
           "forbidden")
    _error(client.get(f"{BASE}/{tid}/bundle"), 409, "not-finished")
    started = client.post(f"{BASE}/{tid}/start", headers=bearer(organiser))
    assert started.status_code == 200 and started.get_json()["event"]["type"] == "start"
    paired = client.post(f"{BASE}/{tid}/rounds", headers=bearer(organiser)).get_json()
    pairing = paired["event"]["pairings"][0]
    _error(client.post(f"{BASE}/{tid}/rounds", headers=bearer(organiser)), 409,
           "round-not-complete")
    me = client.get(f"{BASE}/{tid}/me", headers=bearer(bots[0].token)).get_json()
    assert me["pairing"]["match_id"] == pairing["match_id"]
    # the player token opens the player's seat of its match, through the match routes
    view = client.get(f"/api/v1/matches/{pairing['match_id']}",
                      headers=bearer(bots[0].token)).get_json()
    assert view["seat"] == me["pairing"]["seat"]
    by_id = {bot.player: bot for bot in bots}
    play_match(ledger, pairing["match_id"], [by_id[s] for s in pairing["seats"]])
    answer = client.get(f"{BASE}/{tid}").get_json()
    assert answer["status"] == "running"
    assert answer["rounds"][0]["pairings"][0]["result"]["winner"] == pairing["seats"][0]
    events = client.get(f"{BASE}/{tid}/events?after=0").get_json()["events"]
    assert events[0]["seq"] == 1 and events[-1]["type"] == "result"
    listed = client.get(f"{BASE}?limit=10").get_json()
    assert listed["tournaments"][0]["id"] == tid
    assert listed["tournaments"][0]["players"] == 2


@pytest.mark.parametrize(("body", "code"), [
    ({"game": "chess"}, "unknown-game"),
    ({"system": "ladder"}, "invalid-system"),
    ({"arbiter_key": "nope"}, "invalid-arbiter-key"),
    ({"tiebreaks": ["luck"]}, "invalid-tiebreaks"),
    ({"points": {"win": 1.5}}, "invalid-json"),
    ({"extra": 1}, "unknown-field"),
])
def test_a_bad_creation_is_a_400_naming_the_field(client, body: dict, code: str) -> None:
    response = client.post(BASE, json={"name": "x", "game": "arcomage",
                                       "system": "round-robin",
                                       "arbiter_key": ARBITER.public_text, **body})
    _error(response, 400, code)


def test_bodies_and_ids_that_are_wrong(client) -> None:
    _error(client.get(f"{BASE}/t-nothing"), 404, "not-found")
    _error(client.post(BASE, data=b"[1,", content_type="application/json"), 400,
           "invalid-json")
    _error(client.post(BASE, data=b"[]", content_type="application/json"), 400,
           "invalid-json")
    tid = _create(client)["id"]
    _error(client.post(f"{BASE}/{tid}/registrations", json={"name": "x"}), 400,
           "invalid-public-key")
    _error(client.post(f"{BASE}/{tid}/registrations", json={
        "public_key": ARBITER.public_text, "name": "x", "entropy": "00" * 32,
        "expected_seq": 1, "sig": "00" * 64}), 400, "bad-signature")
    _error(client.post(f"{BASE}/{tid}/withdrawals", json={}, headers=bearer("x")), 403,
           "forbidden")
    _error(client.get(f"{BASE}?cursor=zzz"), 400, "invalid-cursor")
    _error(client.get(f"{BASE}/{tid}/events?after=x"), 400, "invalid-query")
    _error(client.post(f"{BASE}/{tid}/rulings", json={
        "dispute": 1, "decision": {"kind": "result-stands"}, "text": "",
        "expected_seq": 1, "sig": "00" * 64}), 400, "unknown-dispute")


def test_every_tournament_route_is_in_the_openapi_document(client, app) -> None:
    document = client.get("/api/v1/openapi.json").get_json()
    validate(document)
    routes = {rule.rule.removeprefix("/api/v1").replace("<tournament_id>", "{tournament_id}")
              .replace("<key>", "{key_id}")
              for rule in app.url_map.iter_rules() if "/tournaments" in rule.rule}
    assert "/keys/{key_id}/tournaments" in routes
    assert routes and routes <= set(document["paths"])
    for path in routes:
        for operation in document["paths"][path].values():
            assert any(code.startswith("4") for code in operation["responses"]), path


def test_a_finished_tournament_serves_its_bundle_and_export(client, ledger) -> None:
    created = _create(client)
    tid, organiser = created["id"], created["organiser_token"]
    bots = [Bot(f"end bot {n}", SigningKey.from_seed(bytes([n + 60]) * 32)) for n in range(2)]
    for bot in bots:
        answer = _register(client, tid, bot).get_json()
        bot.player, bot.token = answer["player"], answer["player_token"]
    client.post(f"{BASE}/{tid}/start", headers=bearer(organiser))
    pairing = client.post(f"{BASE}/{tid}/rounds",
                          headers=bearer(organiser)).get_json()["event"]["pairings"][0]
    _error(client.post(f"{BASE}/{tid}/finish", headers=bearer(organiser)), 409,
           "round-not-complete")
    by_id = {bot.player: bot for bot in bots}
    play_match(ledger, pairing["match_id"], [by_id[s] for s in pairing["seats"]])
    _error(client.post(f"{BASE}/{tid}/finish", headers=bearer(bots[0].token)), 403,
           "forbidden")
    finished = client.post(f"{BASE}/{tid}/finish", headers=bearer(organiser)).get_json()
    assert [e["type"] for e in finished["events"]] == ["reveal", "final"]
    bundle = client.get(f"{BASE}/{tid}/bundle")
    assert bundle.status_code == 200 and bundle.mimetype == "application/json"
    assert bundle.get_json()["events"][-1]["type"] == "final"
    export = client.get(f"{BASE}/{tid}/export")
    assert export.status_code == 200 and export.mimetype == "application/zip"
    assert verify_tournament_zip(export.data, trusted_key=ledger.server_key.public_text).ok
    assert client.get(f"{BASE}/{tid}").get_json()["seed"] == finished["events"][0]["seed"]
    _error(client.post(f"{BASE}/{tid}/rounds", headers=bearer(organiser)), 409,
           "tournament-over")
    # the log is closed: no dispute, replay or ruling after the final event
    _error(client.post(f"{BASE}/{tid}/disputes", headers=bearer(bots[0].token), json={
        "match_id": pairing["match_id"], "step": 0, "text": "late", "receipts": None,
        "report": "ab" * 32, "expected_seq": 99, "sig": "00" * 64}), 409, "tournament-over")
    _error(client.post(f"{BASE}/{tid}/replays", headers=bearer(organiser),
                       json={"dispute": 1}), 409, "tournament-over")
    _error(client.post(f"{BASE}/{tid}/rulings", json={
        "dispute": 1, "decision": {"kind": "result-stands"}, "text": "",
        "expected_seq": 99, "sig": "00" * 64}), 409, "tournament-over")


def test_creating_tournaments_is_rate_limited_as_matches_are(ledger) -> None:
    client = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                         "TESTING": True, "FAIRDEAL_RATE_LIMITS": "create=2/3600"}).test_client()
    for _ in range(2):
        _create(client)
    response = client.post(BASE, json={"name": "third", "game": "arcomage",
                                       "system": "round-robin",
                                       "arbiter_key": ARBITER.public_text})
    _error(response, 429, "rate-limited")
    assert response.headers["Retry-After"]
