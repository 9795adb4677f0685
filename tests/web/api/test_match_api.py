"""A whole match through the HTTP API, exported and verified by `fairdeal verify`."""

from __future__ import annotations

import json
import random
import time

from click.testing import CliRunner
from openapi_spec_validator import validate

from fairdeal.cli.main import cli
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import event_hash, seat_message
from fairdeal.verifier.verify import verify_bytes


def _verify_with_cli(tmp_path, match_id: str, key: str) -> str:
    runner = CliRunner()
    out = tmp_path / f"{match_id}.json"
    exported = runner.invoke(cli, ["--data-dir", str(tmp_path), "export", match_id,
                                   "-o", str(out)])
    assert exported.exit_code == 0, exported.output
    verified = runner.invoke(cli, ["verify", "--trusted-key", key, str(out)])
    assert verified.exit_code == 0, verified.output
    return verified.output


def test_two_bots_play_a_match_that_verifies(driver, client, tmp_path) -> None:
    rng = random.Random(7)
    match_id, tokens = driver.create("arcomage", params={}, seats=["ann", "bob"])
    assert client.get(f"/api/v1/matches/{match_id}/bundle").status_code == 409
    driver.seed_all(match_id, tokens, rng)
    moves = driver.play_out(match_id, tokens, rng)
    assert moves > 0
    public = driver.call("GET", f"/matches/{match_id}")
    assert public["status"] == "ended" and public["result"]["winner"] in (0, 1)
    bundle = client.get(f"/api/v1/matches/{match_id}/bundle")
    assert bundle.status_code == 200
    key = driver.call("GET", "/keys")["keys"][0]["key"]
    assert verify_bytes(bundle.data, key).ok
    output = _verify_with_cli(tmp_path, match_id, key)
    assert output.startswith("OK:")
    listed = driver.call("GET", "/matches")["matches"]
    assert listed[0]["id"] == match_id and listed[0]["verified"] is True
    # the public events are the bundle's events
    events = driver.call("GET", f"/matches/{match_id}/events?after=-1")["events"]
    assert events == json.loads(bundle.data)["events"]
    assert driver.call("GET", f"/matches/{match_id}/events?after=3")["events"][0]["seq"] == 4


def test_signed_moves_through_the_api(driver, client, tmp_path) -> None:
    """A seat that registered a key signs its seeds and its moves: the exact event stored minus
    its sig and the server's ts; its own clock travels inside as client_ts."""
    rng = random.Random(3)
    match_id, tokens = driver.create("toybattle")
    keys = [SigningKey.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    for seat, token in enumerate(tokens):
        driver.call("POST", f"/matches/{match_id}/seat-key",
                    {"public_key": keys[seat].public_text}, token)
    driver.seed_all(match_id, tokens, rng, keys)
    seat = driver.call("GET", f"/matches/{match_id}")["current_seat"]
    view = driver.call("GET", f"/matches/{match_id}", token=tokens[seat])
    action = view["legal_actions"][0]
    client_ts = time.time_ns() // 1_000_000 - 4_000  # a clock 4 s behind: evidence only
    draft = {"seq": view["next_seq"], "prev": view["head"], "type": "move",
             "seat": seat, "action": action, "action_id": "s1", "client_ts": client_ts}
    # unsigned, and signed by the wrong key: refused, nothing stored
    body = {"action": action, "expected_seq": view["next_seq"], "action_id": "s1",
            "client_ts": client_ts}
    refused = client.post(f"/api/v1/matches/{match_id}/actions", json=body,
                          headers={"Authorization": f"Bearer {tokens[seat]}"})
    assert refused.status_code == 400
    assert refused.get_json()["error"]["code"] == "missing-signature"
    forged = client.post(f"/api/v1/matches/{match_id}/actions",
                         json={**body, "sig": keys[1 - seat].sign(seat_message(draft)).hex()},
                         headers={"Authorization": f"Bearer {tokens[seat]}"})
    assert forged.status_code == 422
    assert forged.get_json()["error"]["code"] == "bad-signature"
    before = time.time_ns() // 1_000_000
    answer = driver.call("POST", f"/matches/{match_id}/actions",
                         {**body, "sig": keys[seat].sign(seat_message(draft)).hex()},
                         tokens[seat])
    stored = answer["event"]
    assert {k: v for k, v in stored.items() if k not in ("sig", "ts")} == draft
    assert stored["ts"] >= before  # the server's clock, not the player's
    assert answer["receipt"]["event"] == event_hash(stored)
    # resign, signed
    view = driver.call("GET", f"/matches/{match_id}", token=tokens[seat])
    client_ts = time.time_ns() // 1_000_000
    draft = {"seq": view["next_seq"], "prev": view["head"], "type": "resign",
             "seat": seat, "client_ts": client_ts}
    driver.call("POST", f"/matches/{match_id}/resign",
                {"expected_seq": view["next_seq"], "client_ts": client_ts,
                 "sig": keys[seat].sign(seat_message(draft)).hex()}, tokens[seat])
    public = driver.call("GET", f"/matches/{match_id}")
    assert public["status"] == "ended" and public["result"]["winner"] == 1 - seat
    key = driver.call("GET", "/keys")["keys"][0]["key"]
    assert _verify_with_cli(tmp_path, match_id, key).startswith("OK:")
    report = verify_bytes(client.get(f"/api/v1/matches/{match_id}/bundle").data, key,
                          {"0": keys[0].public_text, "1": keys[1].public_text})
    signatures = next(check for check in report.checks if check.name == "seat-signatures")
    assert report.ok and "2 of 2 seats signed" in signatures.detail
    assert report.facts["deal_influence"]["colluders_needed"] == [["server", "blue", "red"]]


def test_import_verifies_first_and_stores_read_only(driver, client, tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["simulate", "arcomage", "--seed", "9", "--out",
                                 str(tmp_path / "sim")])
    assert result.exit_code == 0, result.output
    path = next((tmp_path / "sim").glob("*.json"))
    data = path.read_bytes()
    tampered = data.replace(b'"ts":', b'"ts":1', 1)
    refused = client.post("/api/v1/bundles", data=tampered,
                          content_type="application/json")
    assert refused.status_code == 422
    body = refused.get_json()
    assert body["error"]["code"] == "bundle-invalid" and body["report"]["ok"] is False
    imported = client.post("/api/v1/bundles", data=data, content_type="application/json")
    assert imported.status_code == 201
    match_id = imported.get_json()["id"]
    again = client.post("/api/v1/bundles", data=data, content_type="application/json")
    assert again.status_code == 201 and again.get_json()["id"] == match_id
    exported = client.get(f"/api/v1/matches/{match_id}/bundle").data
    assert verify_bytes(exported).ok
    assert json.loads(exported) == json.loads(data)
    listed = driver.call("GET", "/matches")["matches"]
    # sealed by the seeded simulation's own key, not this server's: never "verified" here
    # (tests/web/test_signer_labels.py covers the labels)
    assert listed[0]["status"] == "imported" and listed[0]["verified"] is False
    assert listed[0]["signed_by"]["this_server"] is False
    view = driver.call("GET", f"/matches/{match_id}")
    assert view["status"] == "imported"
    # read-only: no token opens it, and the ledger refuses writes
    response = client.post(f"/api/v1/matches/{match_id}/resign",
                           headers={"Authorization": "Bearer whatever"})
    assert response.status_code == 403


def test_the_openapi_document_is_valid(client) -> None:
    document = client.get("/api/v1/openapi.json").get_json()
    validate(document)
    for path in ("/matches", "/matches/{match_id}", "/matches/{match_id}/seed",
                 "/matches/{match_id}/actions", "/matches/{match_id}/resign",
                 "/matches/{match_id}/events", "/matches/{match_id}/bundle", "/bundles",
                 "/keys"):
        assert path in document["paths"]


def test_the_viewer_can_call_the_ledger(app, driver) -> None:
    ledger = app.extensions["fairdeal.ledger"]
    match_id, tokens = driver.create("arcomage")
    assert ledger.get_match(match_id)["status"] == "seating"
    assert ledger.bundle_bytes(match_id) is None
    assert ledger.list_matches(10, 0, game="arcomage")[0]["id"] == match_id
    assert ledger.list_matches(10, 0, game="toybattle") == []
    assert ledger.spectator_view(match_id)["seat"] is None
    assert ledger.seat_view(match_id, tokens[1])["seat"] == 1
    assert [e["type"] for e in ledger.public_events(match_id, -1)] == ["genesis"]


def test_every_write_answers_with_the_writers_next_view(driver) -> None:
    """A seed, a move or a resignation answers with the seat's view after it — the very view a
    GET would return — so a client needs no GET between its own moves."""
    rng = random.Random(11)
    match_id, tokens = driver.create("arcomage")
    for seat, token in enumerate(tokens):
        answer = driver.call("POST", f"/matches/{match_id}/seed", {"client_seed": None}, token)
        assert answer["view"] == driver.call("GET", f"/matches/{match_id}", token=token)
        assert answer["next_seq"] == answer["view"]["next_seq"] == answer["event"]["seq"] + 1
        assert answer["head"] == answer["view"]["head"] and answer["view"]["seat"] == seat
    kept_turn = 0
    for number in range(40):
        public = driver.call("GET", f"/matches/{match_id}")
        seat = public["current_seat"]
        view = driver.call("GET", f"/matches/{match_id}", token=tokens[seat])
        answer = driver.call("POST", f"/matches/{match_id}/actions",
                             {"action": rng.choice(view["legal_actions"]),
                              "expected_seq": view["next_seq"], "action_id": f"a{number}"},
                             tokens[seat])
        assert answer["view"] == driver.call("GET", f"/matches/{match_id}", token=tokens[seat])
        assert (answer["next_seq"], answer["head"]) == (answer["view"]["next_seq"],
                                                        answer["view"]["head"])
        if answer["view"]["current_seat"] == seat:  # a card that plays again: go on, no GET
            assert answer["view"]["legal_actions"]
            kept_turn += 1
        else:
            assert answer["view"]["legal_actions"] == []
        if answer["view"]["status"] != "playing":
            break
    resigner = driver.call("GET", f"/matches/{match_id}")["current_seat"]
    if resigner is not None:
        answer = driver.call("POST", f"/matches/{match_id}/resign", None, tokens[resigner])
        assert answer["view"]["status"] == "ended" and answer["view"]["result"] is not None
        assert answer["view"] == driver.call("GET", f"/matches/{match_id}",
                                             token=tokens[resigner])
