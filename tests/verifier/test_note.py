"""C2SP signed notes and Ed25519 tlog cosignatures: the spec's own example, the key id, the
strict parser's refusals, and a cosignature accepted, then refused when anything changes."""

from __future__ import annotations

import base64
import hashlib

import pytest

from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.note import (
    COSIGNATURE,
    ED25519,
    Note,
    NoteError,
    VerifierKey,
    cosign_note,
    cosignature_message,
    note_key_id,
    sign_note,
    verify_note,
)

# c2sp.org/signed-note, "Example"
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = ("This is an example message.\n\n\u2014 example.com/foo "
             "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq"
             "6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n")

KEY = SigningKey.from_seed(bytes(range(32)))
WITNESS = SigningKey.from_seed(bytes(range(1, 33)))


def test_the_spec_example_verifies() -> None:
    key = VerifierKey.parse(SPEC_VKEY)
    note = Note.parse(SPEC_NOTE)
    assert note.text == "This is an example message.\n"
    assert verify_note(note, [key]) == [key]
    assert key.text() == SPEC_VKEY
    assert note.render() == SPEC_NOTE


def test_the_key_id_is_the_first_four_bytes_of_the_standard_hash() -> None:
    name = "fairdeal.test/log"
    expected = hashlib.sha256(name.encode() + b"\n\x01" + KEY.public_raw).digest()[:4]
    assert note_key_id(name, ED25519, KEY.public_raw) == expected
    vkey = VerifierKey(name, ED25519, KEY.public_raw).text()
    assert vkey == (f"{name}+{expected.hex()}+"
                    + base64.b64encode(b"\x01" + KEY.public_raw).decode())
    # the cosignature type has its own id for the same key
    assert note_key_id(name, COSIGNATURE, KEY.public_raw) != expected


def test_a_signed_note_round_trips_and_verifies() -> None:
    note = sign_note("hello\nworld\n", "fairdeal.test/log", KEY)
    parsed = Note.parse(note.render())
    assert parsed == note
    verify_note(parsed, [VerifierKey("fairdeal.test/log", ED25519, KEY.public_raw)])


def test_a_changed_text_fails_with_the_known_key() -> None:
    note = sign_note("hello\n", "fairdeal.test/log", KEY)
    forged = Note("hellp\n", note.signatures)
    with pytest.raises(NoteError, match="does not verify"):
        verify_note(forged, [VerifierKey("fairdeal.test/log", ED25519, KEY.public_raw)])


def test_unknown_signatures_are_ignored_but_some_known_key_must_sign() -> None:
    note = sign_note("hello\n", "fairdeal.test/log", KEY)
    other = VerifierKey("fairdeal.test/log", ED25519, WITNESS.public_raw)  # same name, other id
    with pytest.raises(NoteError, match="no known key signed"):
        verify_note(note, [other])
    extra = note.with_signatures(sign_note("hello\n", "someone.else", WITNESS).signatures)
    assert verify_note(Note.parse(extra.render()),
                       [VerifierKey("fairdeal.test/log", ED25519, KEY.public_raw)])


REJECTED = {
    "no blank line": "text\n\u2014 a AAAAAAA=\n",
    "no signature": "text\n\n",
    "text without final newline": "text\n\n\u2014 a AAAAAAAA\n"[:-1],
    "control character": "te\x01xt\n\n\u2014 a AAAAAAAA\n",
    "tab": "te\txt\n\n\u2014 a AAAAAAAA\n",
    "hyphen instead of em dash": "text\n\n- a AAAAAAAA\n",
    "empty key name": "text\n\n\u2014  AAAAAAAA\n",
    "plus in the key name": "text\n\n\u2014 a+b AAAAAAAA\n",
    "bad base64": "text\n\n\u2014 a AAAA*AAA\n",
    "signature shorter than a key id": "text\n\n\u2014 a AAAA\n",
    "a space too many": "text\n\n\u2014 a AAAAAAAA extra\n",
    "not UTF-8": b"text\xff\n\n\xe2\x80\x94 a AAAAAAAA\n",
}


@pytest.mark.parametrize("name", REJECTED)
def test_the_parser_rejects(name: str) -> None:
    with pytest.raises(NoteError):
        Note.parse(REJECTED[name])


@pytest.mark.parametrize("text", [
    "onlyname", "a+b", "name+00000000+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
    "example.com/foo+530d903a+AgkyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k", "a+0+!!!!"])
def test_bad_verifier_keys_are_refused(text: str) -> None:
    with pytest.raises(NoteError):
        VerifierKey.parse(text)


CHECKPOINT = "fairdeal.test/log\n3\n" + base64.b64encode(b"\x07" * 32).decode() + "\n"


def test_a_cosignature_is_accepted_and_checked() -> None:
    note = sign_note(CHECKPOINT, "fairdeal.test/log", KEY)
    line = cosign_note(note, "witness.test/w1", WITNESS, 1_700_000_000)
    cosigned = Note.parse(note.with_signatures([line]).render())
    log_key = VerifierKey("fairdeal.test/log", ED25519, KEY.public_raw)
    witness = VerifierKey("witness.test/w1", COSIGNATURE, WITNESS.public_raw)
    assert verify_note(cosigned, [log_key, witness]) == [log_key, witness]
    assert witness.check(cosigned, cosigned.signatures[1]) == 1_700_000_000
    # what the witness signed, exactly as tlog-cosignature writes it
    assert cosignature_message(CHECKPOINT, 1_700_000_000) == (
        b"cosignature/v1\ntime 1700000000\n" + CHECKPOINT.encode())


def test_a_cosignature_with_a_changed_time_or_text_fails() -> None:
    note = sign_note(CHECKPOINT, "fairdeal.test/log", KEY)
    line = cosign_note(note, "witness.test/w1", WITNESS, 1_700_000_000)
    witness = VerifierKey("witness.test/w1", COSIGNATURE, WITNESS.public_raw)
    later = type(line)(line.name, line.key_id,
                       (1_700_000_001).to_bytes(8, "big") + line.signature[8:])
    with pytest.raises(NoteError, match="cosignature of witness.test/w1"):
        verify_note(note.with_signatures([later]), [witness])
    moved = Note(CHECKPOINT.replace("\n3\n", "\n4\n"), (line,))
    with pytest.raises(NoteError, match="does not verify"):
        verify_note(moved, [witness])
    # the witness key as a plain Ed25519 key does not pass for a cosigner
    plain = VerifierKey("witness.test/w1", ED25519, WITNESS.public_raw)
    with pytest.raises(NoteError, match="no known key"):
        verify_note(note.with_signatures([line]), [plain])


def test_a_verifier_key_whose_base64_holds_a_plus_parses() -> None:
    for seed in range(64):
        key = VerifierKey("fairdeal.test/log", ED25519, SigningKey.from_seed(bytes([seed]) * 32)
                          .public_raw)
        if "+" in key.text().split("+", 2)[2]:
            assert VerifierKey.parse(key.text()) == key
            return
    raise AssertionError("no key with a '+' in its base64 among 64 seeds")
