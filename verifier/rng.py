"""The deterministic random stream, specified to the bit (docs/SPEC.md, "The random stream").

A stream is a 32-byte key and a label. Its bytes are the concatenation of blocks

    block(i) = HMAC-SHA256(key, "fairdeal/1/rng" ‖ 0x00 ‖ label ‖ 0x00 ‖ uint64_be(i)),
    i = 0, 1, ...

consumed in order, 8 bytes at a time as big-endian unsigned 64-bit integers (a block holds
four). ``randbelow(n)`` draws x and accepts it when x < 2^64 - (2^64 mod n), returning x mod n;
otherwise it draws again (rejection sampling: no modulo bias). ``shuffle`` is Fisher-Yates from
the last position down: for i = len-1 ... 1, j = randbelow(i + 1), swap items i and j.
``substream(label)`` is the stream with the same key and label ``parent + "/" + label``.

>>> s = RandomStream(bytes(32), "demo")
>>> [s.randbelow(6) for _ in range(5)]
[2, 3, 3, 2, 2]
"""

from __future__ import annotations

import hmac
import struct
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

from .hashing import Tag, tag_prefix

__all__ = ["RandomStream"]

T = TypeVar("T")
_TWO_64 = 1 << 64
_RNG_PREFIX = tag_prefix(Tag.RNG)
_FOUR_U64 = struct.Struct(">4Q").unpack


class RandomStream:
    """An HMAC-SHA256 counter-mode stream with unbiased integers and shuffles."""

    __slots__ = ("_key", "label", "_prefix", "_counter", "_pending")

    def __init__(self, key: bytes, label: str) -> None:
        if len(key) != 32:
            raise ValueError(f"a random stream key is 32 bytes, got {len(key)}")
        self._key = key
        self.label = label
        self._prefix = _RNG_PREFIX + label.encode("utf-8") + b"\x00"
        self._counter = 0
        #: the current block's integers not yet drawn, last one first (list.pop is cheap)
        self._pending: list[int] = []

    def _next_u64(self) -> int:
        pending = self._pending
        if not pending:
            message = self._prefix + self._counter.to_bytes(8, "big")
            self._counter += 1
            pending.extend(reversed(_FOUR_U64(hmac.digest(self._key, message, "sha256"))))
        return pending.pop()

    def _first_block(self) -> bytes:
        """Block 0 of the stream (for test vectors)."""
        return hmac.digest(self._key, self._prefix + (0).to_bytes(8, "big"), "sha256")

    def randbelow(self, n: int) -> int:
        """An unbiased integer in [0, n), for 1 <= n <= 2^64."""
        if not 1 <= n <= _TWO_64:
            raise ValueError(f"randbelow needs 1 <= n <= 2^64, got {n}")
        limit = _TWO_64 - (_TWO_64 % n)
        next_u64 = self._next_u64
        while True:
            x = next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates shuffle of ``items`` in place.

        The same draws as ``randbelow(i + 1)`` for i = len-1 ... 1, inlined: a deal shuffles
        102 cards, and two calls per card were most of the shuffle's time."""
        pending = self._pending
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _TWO_64 - (_TWO_64 % n)
            while True:
                if not pending:
                    message = self._prefix + self._counter.to_bytes(8, "big")
                    self._counter += 1
                    pending.extend(reversed(_FOUR_U64(hmac.digest(self._key, message,
                                                                   "sha256"))))
                x = pending.pop()
                if x < limit:
                    break
            j = x % n
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        """One item of a non-empty sequence, uniformly."""
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.randbelow(len(items))]

    def substream(self, label: str) -> RandomStream:
        """The independent stream labelled ``self.label + "/" + label``."""
        return RandomStream(self._key, f"{self.label}/{label}")

    def __repr__(self) -> str:
        return f"RandomStream(label={self.label!r})"
