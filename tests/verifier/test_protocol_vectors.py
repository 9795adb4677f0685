"""Canonical JSON, tagged hashes, the commitment, the deal seed and signatures against the
published vectors (fixtures/vectors/protocol.json)."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest

from fairdeal.verifier.canonical import CanonicalError, canonical_bytes
from fairdeal.verifier.hashing import tagged_hash
from fairdeal.verifier.keys import SigningKey, verify_signature
from fairdeal.verifier.protocol import (
    client_commitment,
    commitment,
    deal_seed,
    head_message,
    move_message,
    receipt_message,
    seat_message,
)

V = json.loads((Path(__file__).parents[2] / "fixtures/vectors/protocol.json").read_text())


def test_canonical_bytes() -> None:
    for case in V["canonical"]:
        assert canonical_bytes(case["value"]).hex() == case["bytes_hex"]
    assert canonical_bytes({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()


@pytest.mark.parametrize("bad, where", [
    ({"x": 1.5}, "$.x"), ([1, float("nan")], "$[1]"), ({1: 2}, "non"), ({"s": {1, 2}}, "$.s"),
])
def test_canonical_refuses_what_has_no_canonical_form(bad: object, where: str) -> None:
    with pytest.raises(CanonicalError) as error:
        canonical_bytes(bad)
    assert where in str(error.value) or "not a string" in str(error.value)


def test_tagged_hashes_are_domain_separated() -> None:
    for case in V["tagged_hash"]:
        data = bytes.fromhex(case["data_hex"])
        assert tagged_hash(case["tag"], data).hex() == case["hash"]
        plain = hashlib.sha256(b"fairdeal/1/" + case["tag"].encode() + b"\x00" + data)
        assert plain.hexdigest() == case["hash"]
    assert tagged_hash("event", b"x") != tagged_hash("header", b"x")


def test_commitment_binds_seed_and_header() -> None:
    case = V["commitment"]
    seed = bytes.fromhex(case["server_seed"])
    genesis = case["genesis"]
    assert commitment(seed, genesis) == case["commitment"]
    assert commitment(seed[:-1] + b"\x00", genesis) != case["commitment"]
    assert commitment(seed, {**genesis, "ts": genesis["ts"] + 1}) != case["commitment"]
    # the commitment field itself is not part of what it binds
    assert commitment(seed, {**genesis, "commitment": "00"}) == case["commitment"]


def test_deal_seed_mixes_every_client_seed() -> None:
    case = V["deal_seed"]
    seed = bytes.fromhex(case["server_seed"])
    expected = deal_seed(seed, case["match_id"], case["client_seeds"])
    assert expected.hex() == case["deal_seed"]
    message = b"fairdeal/1/deal-seed\x00" + canonical_bytes(
        {"match_id": case["match_id"], "client_seeds": case["client_seeds"]})
    assert hmac.new(seed, message, hashlib.sha256).hexdigest() == case["deal_seed"]
    assert deal_seed(seed, case["match_id"], [case["client_seeds"][0], "00" * 32]) != expected


def test_move_and_head_signatures() -> None:
    case = V["move_signature"]
    signer = SigningKey.from_seed(bytes.fromhex(case["private_seed"]))
    assert signer.public_text == case["public_key"]
    assert move_message(case["event"]).hex() == case["message"]
    assert verify_signature(signer.public_raw, bytes.fromhex(case["sig"]),
                            bytes.fromhex(case["message"]))
    tampered = {**case["event"], "action": {"kind": "play", "card": 58}}
    assert not verify_signature(signer.public_raw, bytes.fromhex(case["sig"]),
                                move_message(tampered))
    head = V["head_message"]
    assert head_message(head["match_id"], head["seq"], head["head"]).hex() == head["message"]


# --- fairdeal/2, computed here from the SPEC's words rather than through the reference code ----

def _tagged(tag: str, data: bytes) -> bytes:
    return hashlib.sha256(b"fairdeal/1/" + tag.encode() + b"\x00" + data).digest()


def _canonical(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def test_v2_client_commitment() -> None:
    case = V["v2"]["client_commitment"]
    data = _canonical({"match_id": case["match_id"], "seat": case["seat"],
                       "client_seed": case["client_seed"]})
    assert _tagged("client-commit", data).hex() == case["commitment"]
    assert client_commitment(case["match_id"], case["seat"], case["client_seed"]) == \
        case["commitment"]
    # bound to its seat and its match: useless anywhere else
    assert client_commitment(case["match_id"], 1, case["client_seed"]) != case["commitment"]
    assert client_commitment("ffeeddccbbaa0011", 0, case["client_seed"]) != case["commitment"]


def test_v2_seat_signatures_leave_out_ts_and_sig() -> None:
    signer = SigningKey.from_seed(bytes.fromhex(V["move_signature"]["private_seed"]))
    for case in V["v2"]["seat_signature"]:
        event = case["event"]
        unsigned = {k: v for k, v in event.items() if k not in ("ts", "sig")}
        assert _tagged("seat-signature", _canonical(unsigned)).hex() == case["message"]
        assert seat_message(event).hex() == case["message"]
        assert seat_message({**event, "ts": event["ts"] + 5_000}) == seat_message(event)
        assert verify_signature(signer.public_raw, bytes.fromhex(case["sig"]),
                                bytes.fromhex(case["message"]))
        assert move_message(event) != seat_message(event)  # v1 and v2 never share bytes


def test_v2_receipt() -> None:
    case = V["v2"]["receipt"]
    data = _canonical({"match_id": case["match_id"], "seq": case["seq"],
                       "event": case["event"], "ts": case["ts"]})
    assert _tagged("receipt", data).hex() == case["message"]
    assert receipt_message(case["match_id"], case["seq"], case["event"], case["ts"]).hex() == \
        case["message"]
    server = SigningKey.from_seed(bytes.fromhex(case["server_private_seed"]))
    assert server.public_text == case["key"]
    assert verify_signature(server.public_raw, bytes.fromhex(case["sig"]),
                            bytes.fromhex(case["message"]))
