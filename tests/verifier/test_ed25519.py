"""The pure-Python Ed25519 verifier against RFC 8032's vectors and against OpenSSL (through
`cryptography`): every signature, honest, damaged or crafted, gets the same verdict from both."""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal.verifier import ed25519
from fairdeal.verifier.ed25519 import BadSignature, L, P, decode_point, encode_point

#: random keys checked against OpenSSL: a sample in the suite (run twice, compiled and pure);
#: ``make test-long`` checks 10,000 (FAIRDEAL_ED25519_KEYS)
RANDOM_KEYS = int(os.environ.get("FAIRDEAL_ED25519_KEYS", "150"))

VECTORS = json.loads((Path(__file__).parents[2] / "fixtures/vectors/ed25519-rfc8032.json")
                     .read_text())["vectors"]


def openssl(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def pure(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        ed25519.verify(public, signature, message)
    except BadSignature:
        return False
    return True


def _raw(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes_raw()


def _sign_as(secret: int, public: bytes, message: bytes, rng: random.Random) -> bytes:
    """A signature by the scalar ``secret`` under the encoding ``public`` (which may name a
    point other than [secret]B: that is the cheat under test). The nonce is random."""
    nonce = rng.randrange(1, L)
    r = encode_point(ed25519._times_base(nonce))
    k = int.from_bytes(hashlib.sha512(r + public + message).digest(), "little") % L
    return r + ((nonce + k * secret) % L).to_bytes(32, "little")


def _small_order_points() -> list[ed25519.Point]:
    """The eight points of order dividing 8 (the curve's torsion): [L]Q for points Q."""
    found: dict[bytes, ed25519.Point] = {}
    rng = random.Random(8)
    while len(found) < 8:
        point = decode_point(rng.randrange(P).to_bytes(32, "little"))
        if point is not None:
            torsion = ed25519._times(L, point)
            found.setdefault(encode_point(torsion), torsion)
    return list(found.values())


def test_rfc8032_vectors() -> None:
    assert len(VECTORS) == 5
    for vector in VECTORS:
        public = bytes.fromhex(vector["public_key"])
        message = bytes.fromhex(vector["message"])
        signature = bytes.fromhex(vector["signature"])
        ed25519.verify(public, signature, message)  # raises if refused
        # the vectors are RFC 8032's: OpenSSL signs them to the same bytes
        secret = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vector["secret_key"]))
        assert _raw(secret) == public and secret.sign(message) == signature
        with pytest.raises(BadSignature, match="does not match"):
            ed25519.verify(public, signature, message + b"\x00")


def test_agrees_with_openssl_on_random_keys_and_damage() -> None:
    rng = random.Random(25519)
    for index in range(RANDOM_KEYS):
        key = Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
        public = _raw(key)
        message = rng.randbytes(rng.randrange(0, 200))
        signature = key.sign(message)
        assert pure(public, signature, message) and openssl(public, signature, message)
        damaged = bytearray(signature)
        damaged[rng.randrange(64)] ^= 1 << rng.randrange(8)
        other = bytearray(public)
        other[rng.randrange(32)] ^= 1 << rng.randrange(8)
        tampered = message + b"!" if index % 2 else message[:-1]
        for case in [(public, bytes(damaged), message), (bytes(other), signature, message),
                     (public, signature, tampered)]:
            assert pure(*case) == openssl(*case), (index, case)


def test_s_at_or_above_the_group_order_is_refused_as_openssl_does() -> None:
    rng = random.Random(1)
    key = Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
    public = _raw(key)
    for index in range(200):
        message = rng.randbytes(20)
        signature = key.sign(message)
        s = int.from_bytes(signature[32:], "little")
        # S + L names the same scalar: a malleated copy that a lax verifier would accept
        for bigger in (s + L, s + 2 * L, L, 2**256 - 1 - index):
            if bigger >= 2**256:
                continue
            forged = signature[:32] + bigger.to_bytes(32, "little")
            assert not openssl(public, forged, message)
            with pytest.raises(BadSignature, match="group order"):
                ed25519.verify(public, forged, message)


def test_non_canonical_public_keys_get_openssl_s_verdict() -> None:
    """Every y in [p, 2^255) with either sign bit: decodable ones (small order) admit a forged
    signature; OpenSSL accepts it, so must we; undecodable ones both refuse."""
    rng = random.Random(2)
    seen_accepted = 0
    for y in range(19):
        for sign in (0, 1):
            encoding = ((y + P) | (sign << 255)).to_bytes(32, "little")
            point = decode_point(encoding)
            for _ in range(4):
                message = rng.randbytes(16)
                s = rng.randrange(L)
                candidates = [encode_point(ed25519._times_base(s))]
                if point is not None:  # R = [S]B - [j]A for the j that k happens to be mod 8
                    candidates = [encode_point(ed25519._add(ed25519._times_base(s), ed25519._times(
                        j, ed25519._negate(point)))) for j in range(8)]
                for r in candidates:
                    signature = r + s.to_bytes(32, "little")
                    verdict = openssl(encoding, signature, message)
                    assert pure(encoding, signature, message) == verdict, (y, sign)
                    seen_accepted += verdict
    assert seen_accepted > 0  # the crafted ones really reached the accept path


def test_mixed_order_keys_use_the_cofactorless_equation_like_openssl() -> None:
    """A key A + T (T of small order) verifies only when [k]T vanishes: OpenSSL checks
    [S]B = R + [k]A without the cofactor, so do we."""
    rng = random.Random(3)
    torsion = _small_order_points()
    accepted = refused = 0
    for index in range(400):
        secret = rng.randrange(1, L)
        point = ed25519._add(ed25519._times_base(secret), torsion[index % 8])
        public = encode_point(point)
        message = rng.randbytes(12)
        signature = _sign_as(secret, public, message, rng)
        verdict = openssl(public, signature, message)
        assert pure(public, signature, message) == verdict, index
        accepted += verdict
        refused += not verdict
    assert accepted and refused


def test_non_canonical_r_never_matches() -> None:
    """R = identity written as y = 1 + p: the same point, another encoding. OpenSSL compares
    encodings, so the forged copy is refused by both."""
    identity_noncanonical = (1 + P).to_bytes(32, "little")
    small = (P - 1).to_bytes(32, "little")  # the order-2 point (0, -1) as the public key
    rng = random.Random(4)
    for _ in range(50):
        message = rng.randbytes(8)
        # A of order 2 and S = 0: [S]B - [k]A is the identity when k is even
        honest = (1).to_bytes(32, "little") + bytes(32)
        forged = identity_noncanonical + bytes(32)
        for signature in (honest, forged):
            assert pure(small, signature, message) == openssl(small, signature, message)
        assert not pure(small, forged, message)


def test_wrong_lengths_are_refused_with_a_reason() -> None:
    with pytest.raises(BadSignature, match="32 bytes"):
        ed25519.verify(b"\x01" * 31, bytes(64), b"")
    with pytest.raises(BadSignature, match="64 bytes"):
        ed25519.verify(bytes(32), bytes(63), b"")
    with pytest.raises(BadSignature, match="not a point"):
        ed25519.verify((2).to_bytes(32, "little"), bytes(64), b"")


def test_a_key_that_signs_many_events_gets_the_same_verdicts_from_its_table() -> None:
    """A seat signs every move: past a few uses its key gets a precomputed table. Honest,
    damaged and mixed-order (A + T) keys judged through the table still agree with OpenSSL."""
    rng = random.Random(5)
    torsion = _small_order_points()
    key = Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
    public = _raw(key)
    secret = rng.randrange(1, L)
    mixed = encode_point(ed25519._add(ed25519._times_base(secret), torsion[3]))
    verdicts = {True: 0, False: 0}
    for index in range(60):
        message = rng.randbytes(24)
        signature = key.sign(message)
        damaged = bytearray(signature)
        damaged[rng.randrange(64)] ^= 1 << rng.randrange(8)
        forged = _sign_as(secret, mixed, message, rng)
        for case in [(public, signature, message), (public, bytes(damaged), message),
                     (mixed, forged, message)]:
            verdict = openssl(*case)
            assert pure(*case) == verdict, index
            verdicts[verdict] += 1
    assert public in ed25519._key_tables and mixed in ed25519._key_tables
    assert verdicts[True] > 60 and verdicts[False] > 60


def test_the_tables_signed_digits_give_the_plain_multiples() -> None:
    """[scalar] P from a table (6-bit signed digits, each from 32 up carried into the next
    window) equals the plain double-and-add's, for scalars whose digits all carry, all sit at
    the edge of a digit's range, and at random, up to 2^256 - 1."""
    rng = random.Random(6)
    point = ed25519._times(rng.randrange(1, L), ed25519._times_base(1))
    table = ed25519._window_table(point)
    every_digit = [sum(digit << (6 * window) for window in range(42)) for digit in (31, 32, 63)]
    scalars = [0, 1, 31, 32, 33, 63, 64, L - 1, L, 2**253 - 1, 2**255, 2**256 - 1, *every_digit,
               *(rng.randrange(2**256) for _ in range(40))]
    for scalar in scalars:
        expected = encode_point(ed25519._times(scalar, point))
        assert encode_point(ed25519._times_table(scalar, table)) == expected, scalar
        base = encode_point(ed25519._times(scalar, ed25519._times_base(1)))
        assert encode_point(ed25519._times_base(scalar)) == base, scalar
