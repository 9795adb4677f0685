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

import hashlib
import hmac
import struct
from collections.abc import MutableSequence, Sequence
from typing import Any, Final, TypeVar

from fairdeal.games.compiled import mypyc_attr

from .hashing import Tag, tag_prefix

__all__ = ["RandomStream"]

T = TypeVar("T")

_TWO_64: Final = 1 << 64
_RNG_PREFIX: Final = tag_prefix(Tag.RNG)
_FOUR_U64: Final = struct.Struct(">4Q").unpack
#: randbelow's acceptance limit for every small n, worked out once: computing it costs two
#: big-integer operations, and a deal's shuffle needs one per card
_LIMITS: Final = tuple(_TWO_64 - (_TWO_64 % n) if n else 0 for n in range(1025))
#: below every limit of the table: draws all under it are all accepted, whatever their n
_BELOW_ALL_LIMITS: Final = min(_LIMITS[2:])
# HMAC-SHA256 by hand, from SHA-256 states already fed the key's inner and outer pads (RFC 2104:
# the 32-byte key, zero-padded to SHA-256's 64-byte block, XOR 0x36 and 0x5C): a block then
# costs two state copies and two small updates, under half of a one-shot hmac.digest, which
# sets the key up again every time. Every stream of a match shares the deal seed's key.
_INNER_PAD: Final = bytes(byte ^ 0x36 for byte in range(256))
_OUTER_PAD: Final = bytes(byte ^ 0x5C for byte in range(256))
_KEYED: Final[dict[bytes, tuple[Any, Any]]] = {}
#: a bound on the keys remembered (a process replays one match after another)
_KEYED_MAX: Final = 64


def _keyed(key: bytes) -> tuple[Any, Any]:
    """The SHA-256 states for ``key``'s HMAC: (inner, outer), not to be updated, only copied."""
    states = _KEYED.get(key)
    if states is None:
        if len(_KEYED) >= _KEYED_MAX:
            _KEYED.clear()
        block = key + bytes(64 - len(key))
        states = (hashlib.sha256(block.translate(_INNER_PAD)),
                  hashlib.sha256(block.translate(_OUTER_PAD)))
        _KEYED[key] = states
    return states


def _swap_down(items: list[Any], draws: list[int]) -> None:
    """Fisher-Yates's swaps for positions ``len(draws)`` ... 1 of a list, from their draws
    (all accepted): the loop of ``shuffle`` on a typed list, which the compiled build indexes
    directly rather than through the generic sequence protocol."""
    top = len(draws)
    for k in range(top):
        i = top - k
        j = draws[k] % (i + 1)
        items[i], items[j] = items[j], items[i]


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomStream:
    """An HMAC-SHA256 counter-mode stream with unbiased integers and shuffles.

    Compiled (setup.py), it stays open to subclasses in pure Python: the audit's planted-deal
    streams (audit/planted.py) override its draws."""

    __slots__ = ("_key", "label", "_prefix", "_counter", "_pending")

    def __init__(self, key: bytes, label: str) -> None:
        if len(key) != 32:
            raise ValueError(f"a random stream key is 32 bytes, got {len(key)}")
        self._key = key
        self.label = label
        #: what precedes the counter in each block's message, made with the first block: the
        #: verifier opens a stream for every ply, and most plies draw nothing
        self._prefix: bytes | None = None
        self._counter = 0
        #: the current block's integers not yet drawn, last one first (list.pop is cheap)
        self._pending: list[int] = []

    def _blocks(self, count: int) -> bytes:
        """The stream's next ``count`` blocks (HMAC-SHA256 of the prefix and the counter)."""
        inner, outer = _keyed(self._key)
        prefix, counter = self._message_prefix(), self._counter
        self._counter = counter + count
        out = []
        for index in range(counter, counter + count):
            digest = inner.copy()
            digest.update(prefix + index.to_bytes(8, "big"))
            mac = outer.copy()
            mac.update(digest.digest())
            out.append(mac.digest())
        return b"".join(out)

    def _next_u64(self) -> int:
        pending = self._pending
        if not pending:
            pending.extend(reversed(_FOUR_U64(self._blocks(1))))
        return pending.pop()

    def _message_prefix(self) -> bytes:
        prefix = self._prefix
        if prefix is None:
            prefix = self._prefix = _RNG_PREFIX + self.label.encode("utf-8") + b"\x00"
        return prefix

    def _first_block(self) -> bytes:
        """Block 0 of the stream (for test vectors)."""
        return hmac.digest(self._key, self._message_prefix() + (0).to_bytes(8, "big"),
                           "sha256")

    def randbelow(self, n: int) -> int:
        """An unbiased integer in [0, n), for 1 <= n <= 2^64."""
        if not 1 <= n <= _TWO_64:
            raise ValueError(f"randbelow needs 1 <= n <= 2^64, got {n}")
        limit = _LIMITS[n] if n < len(_LIMITS) else _TWO_64 - (_TWO_64 % n)
        next_u64 = self._next_u64
        while True:
            x = next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates shuffle of ``items`` in place.

        The same draws as ``randbelow(i + 1)`` for i = len-1 ... 1, inlined: a deal shuffles
        102 cards, and two calls per card were most of the shuffle's time. The blocks every
        draw needs (one integer per card, bar a rejection, which has odds below 2^-56) are
        made in one go first; a block made and not drawn from stays pending, in order, so
        the stream goes on exactly as if it had been made on demand."""
        pending = self._pending
        missing = len(items) - 1 - len(pending)
        if missing > 0:
            blocks = (missing + 3) // 4
            # the blocks already pending are drawn first: the new ones go beneath them
            pending[:0] = struct.unpack(f">{4 * blocks}Q", self._blocks(blocks))[::-1]
        limits = _LIMITS
        top = len(items) - 1
        if 0 < top < len(limits) - 1:
            # the usual case at once: the next ``top`` integers (the pending list is last one
            # first) are all accepted when the largest is under every limit; otherwise (odds of
            # about 2^-47 for a deal) nothing is taken and the loop below draws one by one
            draws = pending[: -top - 1 : -1]
            if max(draws) < _BELOW_ALL_LIMITS:
                del pending[-top:]
                if type(items) is list:  # a deck: indexed as a list by the compiled build
                    _swap_down(items, draws)
                    return
                for i, x in zip(range(top, 0, -1), draws, strict=True):
                    j = x % (i + 1)
                    items[i], items[j] = items[j], items[i]
                return
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = limits[n] if n < len(limits) else _TWO_64 - (_TWO_64 % n)
            x = pending.pop() if pending else self._next_u64()
            while x >= limit:
                x = self._next_u64()
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
