"""A receipt's signature is checked once per receipt, whoever asks how often: the client checks
each on arrival and all of them again against the sealed bundle."""

from __future__ import annotations

import hashlib
import json

import pytest

from fairdeal.verifier import keys, receipts
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.receipts import parse_receipts, receipt_json


def test_a_receipt_s_signature_is_checked_once_and_its_answer_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    key = SigningKey.from_seed(hashlib.sha256(b"receipts test").digest())
    genuine = receipt_json("m1", 7, "ab" * 32, 1767225600123, key)
    forged = dict(genuine, ts=genuine["ts"] + 1)  # the signature no longer covers the fields
    calls: list[bytes] = []

    def counted(public: bytes, signature: bytes, message: bytes) -> bool:
        calls.append(message)
        return keys.verify_signature(public, signature, message)

    monkeypatch.setattr(receipts, "verify_signature", counted)
    good, bad = parse_receipts(json.dumps([genuine, forged]))
    assert [good.signature_valid() for _ in range(3)] == [True, True, True]
    assert [bad.signature_valid() for _ in range(3)] == [False, False, False]
    assert len(calls) == 2

