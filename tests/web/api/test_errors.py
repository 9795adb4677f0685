"""Refusals: tokens, bodies, the rules, stale positions, retries. Every error is JSON with a
stable code, and a refused request stores nothing."""

from __future__ import annotations

import json
import random

import pytest


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def started(driver):
    match_id, tokens = driver.create("arcomage")
    driver.seed_all(match_id, tokens, random.Random(1))
    seat = driver.call("GET", f"/matches/{match_id}")["current_seat"]
    return match_id, tokens, seat


def _error(response, status: int, code: str) -> str:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["error"]["code"] == code, body
    return body["error"]["message"]


def test_tokens_missing_wrong_or_malformed(client, driver, started) -> None:
    match_id, _, _ = started
    url = f"/api/v1/matches/{match_id}/actions"
    body = {"action": {"kind": "play", "card": 0}, "expected_seq": 3, "action_id": "x"}
    _error(client.post(url, json=body), 401, "unauthorized")
    _error(client.post(url, json=body, headers={"Authorization": "Basic abc"}), 401,
           "bad-authorization")
    _error(client.post(url, json=body, headers=_auth("not-a-token")), 403, "forbidden")
    _, other_tokens = driver.create("arcomage")
    _error(client.post(url, json=body, headers=_auth(other_tokens[0])), 403, "forbidden")
    # a wrong token never degrades to a spectator view
    _error(client.get(f"/api/v1/matches/{match_id}", headers=_auth("nope")), 403, "forbidden")
    _error(client.post(f"/api/v1/matches/{match_id}/seed", json={"client_seed": None}), 401,
           "unauthorized")
    _error(client.post(f"/api/v1/matches/{match_id}/resign"), 401, "unauthorized")
    assert client.get(f"/api/v1/matches/{match_id}/events").get_json()["events"][-1]["seq"] == 2


def test_bad_bodies_get_400_with_a_code(client, started) -> None:
    match_id, tokens, seat = started
    url = f"/api/v1/matches/{match_id}/actions"
    headers = _auth(tokens[seat])
    def post(data: bytes):
        return client.post(url, data=data, headers=headers, content_type="application/json")

    _error(post(b""), 400, "missing-body")
    _error(post(b"{not json"), 400, "invalid-json")
    _error(post(b"[1, 2]"), 400, "invalid-json")
    _error(post(b'{"action": 1.5, "expected_seq": 3, "action_id": "a"}'), 400, "invalid-json")
    _error(post(b'{"a": 1, "a": 2}'), 400, "invalid-json")
    deep = {"action": {"x": 1}, "expected_seq": 3, "action_id": "a"}
    for _ in range(40):
        deep = {"x": deep}
    _error(post(json.dumps(deep).encode()), 400, "too-deep")
    _error(post(b'{"x":"' + b"a" * 70_000 + b'"}'), 413, "body-too-large")
    _error(post(b'{"expected_seq": 3, "action_id": "a"}'), 400, "missing-field")
    _error(post(b'{"action": {}, "expected_seq": 3, "action_id": "a", "extra": 1}'), 400,
           "unknown-field")
    _error(post(b'{"action": {}, "expected_seq": "3", "action_id": "a"}'), 400,
           "invalid-expected-seq")
    _error(post(b'{"action": {}, "expected_seq": 3, "action_id": ""}'), 400,
           "invalid-action-id")
    _error(post(b'{"action": "nonsense", "expected_seq": 3, "action_id": "a"}'), 400,
           "invalid-action")
    _error(client.post("/api/v1/matches", json={"game": "chess"}), 400, "unknown-game")
    _error(client.post("/api/v1/matches", json={"game": "arcomage", "params": {"deck": "x"}}),
           400, "invalid-params")
    _error(client.post("/api/v1/matches", json={"game": "arcomage", "turn_limit_ms": 0}),
           400, "invalid-turn-limit")
    _error(client.get("/api/v1/matches/nope"), 404, "not-found")
    _error(client.get("/api/v1/no/such/thing"), 404, "not-found")
    _error(client.get(f"/api/v1/matches/{match_id}/events?after=x"), 400, "invalid-query")
    assert client.get(f"/api/v1/matches/{match_id}/events").get_json()["next_after"] == 2


def test_an_illegal_move_is_refused_with_the_rules_reason(client, driver, started) -> None:
    match_id, tokens, seat = started
    view = driver.call("GET", f"/matches/{match_id}", token=tokens[seat])
    legal = view["legal_actions"]
    # every card of the hand that cannot be played now is illegal; find one the rules refuse
    hand = view["state"]["players"][seat]["hand"]
    unaffordable = [{"kind": "play", "card": card} for card in hand]
    not_held = [{"kind": "play", "card": card} for card in range(1, 103) if card not in hand]
    illegal = next(action for action in unaffordable + not_held if action not in legal)
    response = client.post(f"/api/v1/matches/{match_id}/actions", headers=_auth(tokens[seat]),
                           json={"action": illegal, "expected_seq": view["next_seq"],
                                 "action_id": "bad"})
    message = _error(response, 422, "illegal-action")
    assert str(illegal["card"]) in message or "hand" in message or "afford" in message, message
    assert driver.call("GET", f"/matches/{match_id}")["next_seq"] == view["next_seq"]
    assert client.get(f"/api/v1/matches/{match_id}/events?after=2").get_json()["events"] == []
    assert hand  # the seat saw its own hand
    # out of turn
    other = 1 - seat
    _error(client.post(f"/api/v1/matches/{match_id}/actions", headers=_auth(tokens[other]),
                       json={"action": legal[0], "expected_seq": view["next_seq"],
                             "action_id": "o"}), 422, "not-your-turn")
    # the legal move still goes through afterwards
    ok = client.post(f"/api/v1/matches/{match_id}/actions", headers=_auth(tokens[seat]),
                     json={"action": legal[0], "expected_seq": view["next_seq"],
                           "action_id": "good"})
    assert ok.status_code == 201, ok.get_json()


def test_stale_positions_conflict_and_retries_are_idempotent(client, driver, started) -> None:
    match_id, tokens, seat = started
    view = driver.call("GET", f"/matches/{match_id}", token=tokens[seat])
    body = {"action": view["legal_actions"][0], "expected_seq": view["next_seq"],
            "action_id": "once"}
    first = client.post(f"/api/v1/matches/{match_id}/actions", json=body,
                        headers=_auth(tokens[seat]))
    assert first.status_code == 201 and first.get_json()["replayed"] is False
    retry = client.post(f"/api/v1/matches/{match_id}/actions", json=body,
                        headers=_auth(tokens[seat]))
    assert retry.status_code == 200 and retry.get_json()["replayed"] is True
    assert retry.get_json()["event"] == first.get_json()["event"]
    stale = client.post(f"/api/v1/matches/{match_id}/actions", headers=_auth(tokens[seat]),
                        json={**body, "action_id": "twice"})
    _error(stale, 409, "conflict")
    assert stale.get_json()["error"]["next_seq"] == view["next_seq"] + 1
    # another seat reusing the id is not a retry
    _error(client.post(f"/api/v1/matches/{match_id}/actions", headers=_auth(tokens[1 - seat]),
                       json={**body, "expected_seq": 1}), 409, "action-id-taken")
    events = client.get(f"/api/v1/matches/{match_id}/events?after=2").get_json()["events"]
    assert [event["action_id"] for event in events] == ["once"]


def test_seeds_after_the_deal_and_bundles_before_the_end(client, driver, started) -> None:
    match_id, tokens, _ = started
    _error(client.post(f"/api/v1/matches/{match_id}/seed", headers=_auth(tokens[0]),
                       json={"client_seed": "ab" * 32}), 422, "out-of-phase")
    _error(client.post(f"/api/v1/matches/{match_id}/seed", headers=_auth(tokens[0]),
                       json={"client_seed": "xyz"}), 400, "invalid-seed")
    message = _error(client.get(f"/api/v1/matches/{match_id}/bundle"), 409, "not-ended")
    assert "not over" in message
    fresh_id, fresh_tokens = driver.create("arcomage")
    _error(client.post(f"/api/v1/matches/{fresh_id}/actions", headers=_auth(fresh_tokens[0]),
                       json={"action": {}, "expected_seq": 1, "action_id": "a"}), 400,
           "invalid-action")
    _error(client.post(f"/api/v1/matches/{fresh_id}/resign", headers=_auth(fresh_tokens[0])),
           422, "out-of-phase")
    _error(client.post(f"/api/v1/matches/{fresh_id}/seat-key", headers=_auth(fresh_tokens[0]),
                       json={"public_key": "ed25519:zz"}), 400, "invalid-key")


def test_resign_ends_reveals_and_seals(client, driver, started) -> None:
    match_id, tokens, _ = started
    response = client.post(f"/api/v1/matches/{match_id}/resign", headers=_auth(tokens[0]))
    assert response.status_code == 201
    again = client.post(f"/api/v1/matches/{match_id}/resign", headers=_auth(tokens[0]))
    assert again.status_code == 200 and again.get_json()["replayed"] is True
    _error(client.post(f"/api/v1/matches/{match_id}/resign", headers=_auth(tokens[1])), 422,
           "match-over")
    public = driver.call("GET", f"/matches/{match_id}")
    assert public["status"] == "ended" and public["result"]["winner"] == 1
    events = driver.call("GET", f"/matches/{match_id}/events")["events"]
    assert [event["type"] for event in events[-2:]] == ["resign", "reveal"]
    assert client.get(f"/api/v1/matches/{match_id}/bundle").status_code == 200


def test_each_kind_of_ledger_error_has_its_status_in_the_one_table() -> None:
    """The ledger's errors carry no HTTP status: web/api/errors.py's table alone says it, a
    subclass by its nearest listed class, and a kind it does not list is a 500."""
    from fairdeal.ledger import errors
    from fairdeal.ledger.tlog import LogError, MatchIdUsed
    from fairdeal.web.api.body import BodyTooLarge
    from fairdeal.web.api.errors import status_for

    expected = {errors.BadRequest: 400, errors.Unauthorized: 401, errors.Forbidden: 403,
                errors.MatchNotFound: 404, errors.ConflictError: 409, errors.NotEnded: 409,
                errors.Refused: 422, errors.LedgerError: 500, BodyTooLarge: 413,
                LogError: 500}
    for kind, status in expected.items():
        assert status_for(kind("why")) == status, kind
        assert not hasattr(kind("why"), "status"), kind
    assert status_for(MatchIdUsed("0123456789abcdef", 3)) == 409
