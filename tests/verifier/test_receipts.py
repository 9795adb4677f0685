"""A receipt's signature is checked once per receipt, whoever asks how often: the client checks
each on arrival and all of them again against the sealed bundle."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from fairdeal.verifier import keys, receipts
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.receipts import receipt_json

from ..sources import source_module


def test_a_receipt_s_signature_is_checked_once_and_its_answer_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    key = SigningKey.from_seed(hashlib.sha256(b"receipts test").digest())
    genuine = receipt_json("m1", 7, "ab" * 32, 1767225600123, key)
    forged = dict(genuine, ts=genuine["ts"] + 1)  # the signature no longer covers the fields
    calls: list[bytes] = []

    def counted(public: bytes, signature: bytes, message: bytes) -> bool:
        calls.append(message)
        return keys.verify_signature(public, signature, message)

    # on the module's source: compiled code calls verify_signature directly, past any patch
    # (docs/compiled.md), and the caching under test is the same code in both builds
    source = source_module("fairdeal.verifier.receipts")
    monkeypatch.setattr(source, "verify_signature", counted)
    good, bad = source.parse_receipts(json.dumps([genuine, forged]))
    assert [good.signature_valid() for _ in range(3)] == [True, True, True]
    assert [bad.signature_valid() for _ in range(3)] == [False, False, False]
    assert len(calls) == 2



# --- a receipts file is hostile input: every field checked, each error naming it --------------

KEY = SigningKey.from_seed(hashlib.sha256(b"receipts file test").digest())
SEAT = SigningKey.from_seed(hashlib.sha256(b"receipts file seat").digest()).public_text


def _file(**fields: object) -> str:
    value: dict[str, object] = {"format": receipts.RECEIPTS_FORMAT, "match_id": "m1",
                                "server_key": KEY.public_text, "seat_keys": [SEAT, None],
                                "receipts": [receipt_json("m1", 1, "ab" * 32, 5, KEY)]}
    value.update(fields)
    return json.dumps({name: item for name, item in value.items() if item != "DROP"})


def test_a_receipts_file_keeps_its_match_server_key_and_seat_keys() -> None:
    parsed = receipts.parse_receipts_file(_file())
    assert parsed.match_id == "m1" and parsed.server_key == KEY.public_text
    assert parsed.seat_keys == (SEAT, None)
    assert [receipt.seq for receipt in parsed.receipts] == [1]
    bare = receipts.parse_receipts_file(json.dumps([receipt_json("m1", 1, "ab" * 32, 5, KEY)]))
    assert bare.match_id is None and bare.seat_keys == ()


@pytest.mark.parametrize("fields, named", [
    ({"match_id": "DROP"}, "match_id: expected a match id"),
    ({"match_id": "../x"}, "match_id: expected a match id"),
    ({"match_id": 5}, "match_id: expected a match id"),
    ({"server_key": "ed25519:00"}, "server_key"),
    ({"server_key": 7}, "server_key: expected a key"),
    ({"seat_keys": "A"}, "seat_keys: expected a list"),
    ({"seat_keys": [None] * 17}, "seat_keys: expected a list of at most 16"),
    ({"seat_keys": ["ed25519:zz"]}, "seat_keys[0]"),
    ({"seat_keys": [None, 3]}, "seat_keys[1]: expected a key"),
    ({"receipts": "DROP"}, "receipts: expected a list"),
    ({"extra": 1}, "unexpected field 'extra'"),
    ({"receipts": [receipt_json("m2", 1, "ab" * 32, 5, KEY)]},
     "receipts[0].match_id: the file is for match 'm1', but this receipt is for match 'm2'"),
])
def test_a_malformed_receipts_file_names_its_field(fields: dict[str, object],
                                                   named: str) -> None:
    with pytest.raises(receipts.InvalidReceipts, match=re.escape(named)):
        receipts.parse_receipts_file(_file(**fields))


def test_receipt_pins_take_the_files_keys_unless_an_option_pins_the_seat() -> None:
    other = KEY.public_text
    pins, sources = receipts.receipt_pins(("A", "B"), [SEAT, SEAT], {"b": other})
    assert pins == {"b": other, "0": SEAT}
    assert sources == {"A": receipts.PIN_FROM_RECEIPTS, "B": receipts.PIN_FROM_OPTION}
    pins, sources = receipts.receipt_pins(("A", "B"), [None, SEAT], {"²": other})
    assert pins == {"²": other, "1": SEAT}  # "²" is no seat: verify_bytes refuses it
    assert sources == {"B": receipts.PIN_FROM_RECEIPTS}
    with pytest.raises(receipts.InvalidReceipts, match="there is no seat 2"):
        receipts.receipt_pins(("A", "B"), [None, None, SEAT], {})
