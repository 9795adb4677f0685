"""The log's API: the checkpoint as text, proofs the verifier accepts, bundles that carry their
proofs, and a clear 400 for every bad query."""

from __future__ import annotations

import base64
import json
import random

import pytest

from fairdeal.verifier.checkpoint import Checkpoint, TlogProof
from fairdeal.verifier.logleaf import genesis_leaf
from fairdeal.verifier.merkle import leaf_hash, verify_consistency, verify_inclusion
from fairdeal.verifier.note import VerifierKey, verify_note
from fairdeal.verifier.verify import verify_bytes


def _checkpoint(client) -> Checkpoint:
    response = client.get("/api/v1/log/checkpoint")
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    return Checkpoint.from_note(response.get_data(as_text=True))[0]


def test_checkpoints_proofs_and_bundles(client, driver) -> None:
    key = VerifierKey.parse(driver.call("GET", "/keys")["keys"][0]["log_key"])
    empty = _checkpoint(client)
    assert empty.size == 0
    match_id, tokens = driver.create()
    driver.seed_all(match_id, tokens, random.Random(1))
    driver.play_out(match_id, tokens, random.Random(2))
    other, _ = driver.create("toybattle")
    text = client.get("/api/v1/log/checkpoint").get_data(as_text=True)
    checkpoint, note = Checkpoint.from_note(text)
    verify_note(note, [key])
    assert checkpoint.size == 3
    genesis = driver.call("GET", f"/log/proof/inclusion?match={match_id}&kind=genesis")
    events = driver.call("GET", f"/matches/{match_id}/events")["events"]
    assert genesis["leaf"].encode() == genesis_leaf(events[0])
    verify_inclusion(leaf_hash(genesis_leaf(events[0])), genesis["index"], checkpoint.size,
                     [base64.b64decode(h) for h in genesis["hashes"]], checkpoint.root)
    assert TlogProof.from_text(genesis["proof"]).note == text
    by_index = driver.call("GET", "/log/proof/inclusion?index=2&size=3")
    assert json.loads(by_index["leaf"])["match_id"] == other
    consistency = driver.call("GET", "/log/proof/consistency?old=0&new=3")
    verify_consistency(0, 3, empty.root, checkpoint.root, consistency["hashes"])
    older = client.get("/api/v1/log/checkpoint?size=0").get_data(as_text=True)
    assert Checkpoint.from_note(older)[0] == empty
    bundle = client.get(f"/api/v1/matches/{match_id}/bundle").data
    assert set(json.loads(bundle)["log"]) == {"genesis", "seal"}
    report = verify_bytes(bundle)
    assert report.ok and report.checks[-1].status == "pass", report.failure
    leaves = driver.call("GET", "/log/leaves")["leaves"]
    assert [(leaf["kind"], leaf["match_id"]) for leaf in leaves] == [
        ("genesis", match_id), ("seal", match_id), ("genesis", other)]


@pytest.mark.parametrize("query,message", [
    ("/log/proof/inclusion", "name the leaf by 'index', or by 'match'"),
    ("/log/proof/inclusion?index=0&match=x", "not both"),
    ("/log/proof/inclusion?index=abc", "'index' must be a decimal integer"),
    ("/log/proof/inclusion?index=-1", "'index' must be a decimal integer"),
    ("/log/proof/inclusion?index=01", "'index' must be a decimal integer"),
    ("/log/proof/inclusion?index=0&size=0", "leaf 0 is not in a tree of 0 leaves"),
    ("/log/proof/inclusion?index=5&size=2", "leaf 5 is not in a tree of 2 leaves"),
    ("/log/proof/inclusion?index=0&size=99", "size 99 is larger than the log (1 leaves)"),
    ("/log/proof/inclusion?index=0&kind=seal", "'kind' goes with 'match'"),
    ("/log/proof/inclusion?match=nope", "no seal leaf of match 'nope'"),
    ("/log/proof/inclusion?match=x&kind=other", "kind must be genesis or seal"),
    ("/log/proof/inclusion?index=0&colour=red", "unknown query parameter 'colour'"),
    ("/log/proof/consistency?old=1", "'new' is required"),
    ("/log/proof/consistency?old=2&new=1", "old (2) must be from 0 to new (1)"),
    ("/log/proof/consistency?old=0&new=5", "new 5 is larger than the log"),
    ("/log/proof/consistency?old=1.5&new=2", "'old' must be a decimal integer"),
    ("/log/proof/consistency?old=0&new=99999999999999999999", "'new' must be a decimal"),
    ("/log/checkpoint?size=7", "signed no checkpoint of size 7"),
    ("/log/checkpoint?size=x", "'size' must be a decimal integer"),
    ("/log/leaves?limit=0", "'limit' must be a decimal integer from 1 to 10000"),
    ("/log/leaves?after=x", "'after' must be a decimal integer"),
])
def test_bad_queries_get_a_clear_400(client, driver, query: str, message: str) -> None:
    driver.create()
    response = client.get("/api/v1" + query)
    assert response.status_code == 400, response.data
    assert message in response.get_json()["error"]["message"]


def test_bundle_log_size_must_name_a_signed_checkpoint(client, driver) -> None:
    match_id, tokens = driver.create()
    driver.seed_all(match_id, tokens, random.Random(1))
    driver.play_out(match_id, tokens, random.Random(2))
    for query, message in (("?log_size=x", "'log_size' must be a decimal"),
                           ("?log_size=5", "signed no checkpoint of size 5")):
        response = client.get(f"/api/v1/matches/{match_id}/bundle{query}")
        assert response.status_code == 400
        assert message in response.get_json()["error"]["message"]
    client.get("/api/v1/log/checkpoint")  # signs size 2
    driver.create()
    client.get("/api/v1/log/checkpoint")  # signs size 3
    assert client.get(f"/api/v1/matches/{match_id}/bundle?log_size=2").status_code == 200


def test_a_cosignature_from_no_accepted_witness_is_refused(client, driver) -> None:
    driver.create()
    note = client.get("/api/v1/log/checkpoint").get_data(as_text=True)
    response = client.post("/api/v1/log/cosignature", json={"checkpoint": note})
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "no-witnesses"
    bad = client.post("/api/v1/log/cosignature", json={"checkpoint": "nonsense"})
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "invalid-checkpoint"
