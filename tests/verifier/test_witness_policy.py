"""Witness policies over C2SP tlog-cosignatures, and two observers' views compared
(verifier.checkpoint.WitnessPolicy, verifier.logcompare). The cosignatures here are made by
hand from the words of c2sp.org/tlog-cosignature, not by the module under test, so the policy
is checked against the spec and not against itself."""

from __future__ import annotations

import base64
import hashlib

import pytest

from fairdeal.verifier.checkpoint import Checkpoint, WitnessError, WitnessPolicy
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logcompare import (
    LogForked,
    ProofNeeded,
    ViewError,
    compare_views,
    read_view,
)
from fairdeal.verifier.note import COSIGNATURE, ED25519, Note, VerifierKey, sign_note

LOG = SigningKey.from_seed(b"\x07" * 32)
ORIGIN = "fairdeal.test/log"
W1, W2 = SigningKey.from_seed(b"\x01" * 32), SigningKey.from_seed(b"\x02" * 32)


def witness(name: str, key: SigningKey) -> VerifierKey:
    return VerifierKey(name, COSIGNATURE, key.public_raw)


def spec_cosignature(text: str, name: str, key: SigningKey, timestamp: int) -> str:
    """From the spec: key id SHA-256(name ‖ "\\n" ‖ 0x04 ‖ public key)[:4]; the signed message
    "cosignature/v1\\ntime <T>\\n" then the note body; the line "— name base64(key id ‖ u64
    big-endian timestamp ‖ 64-byte signature)"."""
    key_id = hashlib.sha256(name.encode() + b"\n\x04" + key.public_raw).digest()[:4]
    signature = key.sign(f"cosignature/v1\ntime {timestamp}\n{text}".encode())
    body = base64.b64encode(key_id + timestamp.to_bytes(8, "big") + signature).decode()
    return f"\u2014 {name} {body}\n"


def checkpoint_note(size: int, root: bytes, *cosigners: tuple[str, SigningKey]) -> Note:
    text = Checkpoint(ORIGIN, size, root).text()
    rendered = sign_note(text, ORIGIN, LOG).render()
    rendered += "".join(spec_cosignature(text, name, key, 1_700_000_000)
                        for name, key in cosigners)
    return Note.parse(rendered)


ROOT = hashlib.sha256(b"a root").digest()


def test_a_quorum_of_spec_made_cosignatures_passes() -> None:
    note = checkpoint_note(5, ROOT, ("w1.test", W1), ("w2.test", W2))
    policy = WitnessPolicy((witness("w1.test", W1), witness("w2.test", W2)), quorum=2)
    words = policy.check(note)
    assert words.startswith("cosigned by 2 of 2 witnesses (2 needed): w1.test (key ")
    assert "at 2023-11-14 22:13:20 UTC" in words


def test_too_few_cosigners_names_who_was_asked_and_who_signed() -> None:
    note = checkpoint_note(5, ROOT, ("w1.test", W1))
    policy = WitnessPolicy((witness("w1.test", W1), witness("w2.test", W2)), quorum=2)
    with pytest.raises(WitnessError, match="cosigned by 1 of the witnesses asked for, 2 "
                                           "needed; asked for at least 2 of 2") as caught:
        policy.check(note)
    assert "w2.test (key" in str(caught.value) and "signed: w1.test (key" in str(caught.value)
    assert not caught.value.forged


def test_a_cosignature_of_another_tree_is_forged_not_missing() -> None:
    other = checkpoint_note(5, hashlib.sha256(b"another root").digest(), ("w1.test", W1))
    line = [sig for sig in other.signatures if sig.name == "w1.test"][0]
    note = checkpoint_note(5, ROOT).with_signatures([line])
    with pytest.raises(WitnessError, match="forged") as caught:
        WitnessPolicy((witness("w1.test", W1),)).check(note)
    assert caught.value.forged


def test_unknown_and_renamed_lines_are_ignored() -> None:
    # the same key under another name has another key id: not the witness asked for
    note = checkpoint_note(5, ROOT, ("impostor.test", W1))
    with pytest.raises(WitnessError, match="signed: none of them"):
        WitnessPolicy((witness("w1.test", W1),)).check(note)


@pytest.mark.parametrize("keys, quorum, words", [
    ((), 1, "at least one witness"),
    ((witness("w1.test", W1),), 2, "from 1 to 1"),
    ((witness("w1.test", W1),), 0, "from 1 to 1"),
    ((witness("w1.test", W1), witness("w1.other", W1)), 2, "given twice"),
    ((VerifierKey(ORIGIN, ED25519, LOG.public_raw),), 1, r"cosignature \(type 4\)"),
])
def test_a_policy_no_checkpoint_could_meet_is_refused(keys: tuple[VerifierKey, ...],
                                                      quorum: int, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        WitnessPolicy(keys, quorum)


def _leaf(n: int) -> bytes:
    return hashlib.sha256(b"\x00" + f"leaf {n}".encode()).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _root(leaves: list[bytes]) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    split = 1
    while split * 2 < len(leaves):
        split *= 2
    return _node(_root(leaves[:split]), _root(leaves[split:]))


def _subproof(m: int, leaves: list[bytes], whole: bool) -> list[bytes]:
    """RFC 9162, section 2.1.4.1, SUBPROOF, as written there."""
    n = len(leaves)
    if m == n:
        return [] if whole else [_root(leaves)]
    k = 1
    while k * 2 < n:
        k *= 2
    if m <= k:
        return _subproof(m, leaves[:k], whole) + [_root(leaves[k:])]
    return _subproof(m - k, leaves[k:], False) + [_root(leaves[:k])]


def _view(name: str, size: int, root: bytes) -> str:
    return sign_note(Checkpoint(ORIGIN, size, root).text(), ORIGIN, LOG).render()


def test_compare_views() -> None:
    key = VerifierKey(ORIGIN, ED25519, LOG.public_raw)
    leaves = [_leaf(n) for n in range(5)]
    small = read_view("alice", _view("alice", 3, _root(leaves[:3])), key)
    big = read_view("bob", _view("bob", 5, _root(leaves)), key)
    twin = read_view("carol", _view("carol", 3, _root(leaves[:3])), key)
    assert "same tree" in compare_views(small, twin)
    with pytest.raises(ProofNeeded) as needed:
        compare_views(big, small)
    assert (needed.value.old, needed.value.new) == (3, 5)
    proof = _subproof(3, leaves, True)  # RFC 9162 PROOF(3, D[5])
    assert "bob's tree" in compare_views(small, big, proof)
    forked = read_view("mallory", _view("mallory", 3, _root([_leaf(9)] + leaves[1:3])), key)
    with pytest.raises(LogForked, match="one size and different roots"):
        compare_views(small, forked)
    with pytest.raises(LogForked, match="does not extend"):
        compare_views(forked, big, proof)
    with pytest.raises(ViewError, match="alice: the checkpoint is not the log's signed word"):
        read_view("alice", _view("alice", 3, ROOT), VerifierKey(ORIGIN, ED25519,
                                                                W1.public_raw))
