"""The browser's inputs beside a bundle — seat keys to pin, a receipts file — parsed as
`fairdeal verify --seat-key` and `--receipts` parse them, and handed to the same verify_bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdeal.verifier.inputs import InvalidInput, parse_seat_keys, verify_with_inputs
from fairdeal.verifier.receipts import parse_receipts
from fairdeal.verifier.verify import verify_bytes

ROOT = Path(__file__).resolve().parents[2]
SIGNED = ROOT / "fixtures" / "bundles" / "honest" / "arcomage-signed-moves.json"
KEY_A = "ed25519:" + "ab" * 32
KEY_B = "ed25519:" + "cd" * 32


def test_seat_keys_are_read_as_the_command_line_takes_them() -> None:
    assert parse_seat_keys(f"A={KEY_A}") == {"A": KEY_A}
    # simulate --signed's line as printed; commas, lines, comments; a later pin replaces one
    assert parse_seat_keys(f"  seat keys: A={KEY_B} B={KEY_B}\n# mine\nA={KEY_A},") == \
        {"A": KEY_A, "B": KEY_B}
    assert parse_seat_keys(" \n ") == {}


@pytest.mark.parametrize(("text", "words"), [
    ("A", "seat keys: expected SEAT=ed25519:HEX, got 'A'"),
    (f"={KEY_A}", "seat keys: expected SEAT=ed25519:HEX, got '=ed25519:"),
    ("A=ed25519:zz", "seat keys: 'A=ed25519:zz': an Ed25519 public key is 64 hex digits"),
])
def test_a_seat_key_that_is_not_one_is_named(text: str, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_seat_keys(text)
    assert str(caught.value).startswith(words)


def test_the_verdict_is_verify_bytes_with_the_same_inputs() -> None:
    data = SIGNED.read_bytes()
    keys = {"AB"[e["seat"]]: e["public_key"] for e in json.loads(data)["events"]
            if e["type"] == "seat_key"}
    text = " ".join(f"{seat}={key}" for seat, key in keys.items())
    pinned = verify_with_inputs(data, None, text).to_json()
    # where each pin came from, as `fairdeal verify` reports it
    assert pinned.pop("pin_sources") == {"A": "pinned by --seat-key", "B": "pinned by --seat-key"}
    assert pinned == verify_bytes(data, None, keys).to_json()
    wrong = verify_with_inputs(data, None, f"B={KEY_B}")
    assert not wrong.ok and wrong.failure is not None
    assert wrong.failure.check == "seat-signatures"
    wrong_json = wrong.to_json()
    wrong_json.pop("pin_sources")
    assert wrong_json == verify_bytes(data, None, {"B": KEY_B}).to_json()
    receipts = json.dumps([])
    assert verify_with_inputs(data, None, None, receipts).to_json() == \
        verify_bytes(data, None, {}, parse_receipts(receipts)).to_json()


def test_an_input_the_command_line_refuses_is_an_input_error_not_a_verdict() -> None:
    data = SIGNED.read_bytes()
    with pytest.raises(InvalidInput, match="^seat keys: a key is pinned for seat 'Q', but "
                                           "this match's seats are A, B$"):
        verify_with_inputs(data, None, f"Q={KEY_A}")
    with pytest.raises(InvalidInput, match=r"^receipts file: receipts\[0\]: missing field"):
        verify_with_inputs(data, None, None, b"[{}]")
    with pytest.raises(InvalidInput, match="^receipts file: not valid JSON"):
        verify_with_inputs(data, None, None, b"[")
