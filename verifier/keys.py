"""Ed25519 keys: the server's head signature and the seats' move signatures.

A public key's text form is ``ed25519:<64 hex digits>`` (the raw 32-byte key); that is what
``fairdeal keys show`` prints on its last line and what ``fairdeal verify --trusted-key`` takes.
A key id is the first 16 hex digits of the key's tagged hash.

Verifying needs no native code: with ``cryptography`` missing (the browser, under Pyodide) it
falls back to the pure-Python ``ed25519`` module, which refuses exactly what OpenSSL refuses.
Signing (``SigningKey``) is the ledger's side and always uses ``cryptography``; it is imported
only when a key is made, so ``fairdeal.verifier`` imports without it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import ed25519
from .errors import FairdealError
from .hashing import Tag, tagged_hash

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = [
    "KEY_PREFIX",
    "InvalidKey",
    "SigningKey",
    "key_id",
    "parse_public_key",
    "public_key_text",
    "signature_backend",
    "verify_signature",
]

KEY_PREFIX = "ed25519:"


class InvalidKey(FairdealError):
    """A public key or signature that is not in the expected form."""


def parse_public_key(text: str) -> bytes:
    """The raw 32 bytes of a key written ``ed25519:<64 hex>``; raise InvalidKey otherwise."""
    if not isinstance(text, str) or not text.startswith(KEY_PREFIX):
        raise InvalidKey(f"a public key looks like 'ed25519:<64 hex digits>', got {text!r}")
    body = text[len(KEY_PREFIX) :]
    if len(body) != 64:
        raise InvalidKey(f"an Ed25519 public key is 64 hex digits, got {len(body)} in {text!r}")
    try:
        return bytes.fromhex(body)
    except ValueError:
        raise InvalidKey(f"public key {text!r} is not hexadecimal") from None


def public_key_text(raw: bytes) -> str:
    """The ``ed25519:<hex>`` form of a raw public key."""
    return KEY_PREFIX + raw.hex()


def key_id(raw: bytes) -> str:
    """A short, stable fingerprint of a raw public key (16 hex digits)."""
    return tagged_hash(Tag.KEY_ID, raw).hex()[:16]


Verifier = Callable[[bytes, bytes, bytes], bool]
_verifier: list[Verifier] = []


def _openssl_verify() -> Verifier | None:
    """OpenSSL's Ed25519 through ``cryptography``, or None where it cannot be imported."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return None

    # a client checks every receipt against the one server key: the key is parsed once
    # (a few microseconds less per check; a bad key's ValueError is not remembered)
    public_key = functools.lru_cache(maxsize=64)(Ed25519PublicKey.from_public_bytes)

    def check(public_raw: bytes, signature: bytes, message: bytes) -> bool:
        try:
            public_key(public_raw).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True

    return check


def _pure_verify(public_raw: bytes, signature: bytes, message: bytes) -> bool:
    try:
        ed25519.verify(public_raw, signature, message)
    except ed25519.BadSignature:
        return False
    return True


def signature_backend() -> str:
    """Which Ed25519 verifies here: ``"openssl"`` (cryptography) or ``"pure-python"``."""
    return "pure-python" if _chosen() is _pure_verify else "openssl"


def _chosen() -> Verifier:
    # chosen once: the import is tried on first use, not when the module loads
    if not _verifier:
        _verifier.append(_openssl_verify() or _pure_verify)
    return _verifier[0]


def verify_signature(public_raw: bytes, signature: bytes, message: bytes) -> bool:
    """True when ``signature`` is ``public_raw``'s Ed25519 signature of ``message``."""
    return _chosen()(public_raw, signature, message)


class SigningKey:
    """An Ed25519 private key with the few operations fairdeal needs."""

    __slots__ = ("_private", "public_raw")

    def __init__(self, private: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives import serialization

        self._private = private
        self.public_raw = private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @classmethod
    def generate(cls) -> SigningKey:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> SigningKey:
        """A deterministic key from 32 bytes (simulations with --seed, test fixtures)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def from_pem(cls, pem: bytes) -> SigningKey:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        private = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(private, Ed25519PrivateKey):
            raise InvalidKey("the key file does not hold an Ed25519 private key")
        return cls(private)

    def to_pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    @property
    def public_text(self) -> str:
        return public_key_text(self.public_raw)

    @property
    def key_id(self) -> str:
        return key_id(self.public_raw)

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)
