"""The random stream against the published vectors and an independent re-implementation."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.verifier.rng import RandomStream

#: no per-example time limit: a test here checks values, never speed (bench/ times things), and
#: on a loaded machine hypothesis's 200 ms deadline failed examples that were right
UNTIMED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

VECTORS = json.loads((Path(__file__).parents[2] / "fixtures/vectors/rng.json").read_text())
CASES = VECTORS["cases"]


def independent_u64(key: bytes, label: str, count: int) -> list[int]:
    """The stream as docs/SPEC.md states it, written from the text, not from RandomStream."""
    out = []
    block = 0
    while len(out) < count:
        message = b"fairdeal/1/rng\x00" + label.encode() + b"\x00" + block.to_bytes(8, "big")
        digest = hmac.new(key, message, hashlib.sha256).digest()
        out.extend(int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8))
        block += 1
    return out[:count]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["label"])
def test_stream_matches_vectors(case: dict) -> None:
    key = bytes.fromhex(case["key"])
    stream = RandomStream(key, case["label"])
    assert [str(stream._next_u64()) for _ in range(6)] == case["u64"]
    assert [str(x) for x in independent_u64(key, case["label"], 6)] == case["u64"]
    assert RandomStream(key, case["label"])._first_block().hex() == case["first_block"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["label"])
def test_randbelow_and_shuffle_match_vectors(case: dict) -> None:
    key = bytes.fromhex(case["key"])
    for n, expected in case["randbelow"].items():
        stream = RandomStream(key, case["label"])
        assert [stream.randbelow(int(n)) for _ in range(8)] == expected
    for size, expected in case["shuffle"].items():
        stream = RandomStream(key, case["label"])
        items = list(range(int(size)))
        stream.shuffle(items)
        assert items == expected
    sub = RandomStream(key, case["label"]).substream("draw")
    assert sub.label == case["substream_label"]
    assert [sub.randbelow(102) for _ in range(6)] == case["substream_randbelow_102"]


def _reference_below(raw: Iterator[int]) -> Callable[[int], int]:
    """randbelow as the SPEC words it, over the raw 64-bit integers ``raw``: reject x at or past
    the largest multiple of n under 2^64, else x mod n."""
    def below(n: int) -> int:
        limit = 2**64 - (2**64 % n)
        while True:
            x = next(raw)
            if x < limit:
                return x % n
    return below


def test_rejection_sampling_redraws_values_past_the_limit() -> None:
    # n = 2^63 + 1: the limit is 2^64 - (2^64 mod n) = n, so about half of all draws are
    # rejected; an implementation that takes x mod n without redrawing disagrees
    key = bytes(32)
    n = 2**63 + 1
    raw = independent_u64(key, "demo", 64)
    accepted = [x % n for x in raw if x < n]
    stream = RandomStream(key, "demo")
    assert [stream.randbelow(n) for _ in range(len(accepted))] == accepted
    assert len(accepted) < len(raw)


def test_independent_implementation_of_fisher_yates() -> None:
    key = hashlib.sha256(b"fy").digest()
    raw = iter(independent_u64(key, "deck", 400))

    below = _reference_below(raw)

    expected = list(range(102))
    for i in range(101, 0, -1):
        j = below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    items = list(range(102))
    RandomStream(key, "deck").shuffle(items)
    assert items == expected


@UNTIMED
@given(st.binary(min_size=32, max_size=32), st.integers(0, 9), st.integers(0, 1500),
       st.integers(0, 9))
def test_draws_around_a_shuffle_follow_the_stream(key: bytes, before: int, size: int,
                                                  after: int) -> None:
    # the shuffle makes its blocks ahead of its draws: whatever it leaves pending must come
    # next, in order, as if every block had been made on demand (sizes past the table of
    # precomputed limits included)
    raw = iter(independent_u64(key, "deck", 8 + size + 2 * (before + after)))

    below = _reference_below(raw)

    first = [below(6) for _ in range(before)]
    expected = list(range(size))
    for i in range(size - 1, 0, -1):
        j = below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    last = [below(102) for _ in range(after)]
    stream = RandomStream(key, "deck")
    assert [stream.randbelow(6) for _ in range(before)] == first
    items = list(range(size))
    stream.shuffle(items)
    assert items == expected
    assert [stream.randbelow(102) for _ in range(after)] == last


def test_a_shuffle_redraws_a_value_past_its_limit() -> None:
    # such a value (within 1024 of 2^64) almost never comes: plant one where the shuffle will
    # draw it, and the shuffle must reject it and draw again, as randbelow does
    key = hashlib.sha256(b"reject").digest()
    stream, reference = RandomStream(key, "deck"), RandomStream(key, "deck")
    stream._pending[:] = reference._pending[:] = [5, 2**64 - 1, 7]
    items = list(range(102))
    stream.shuffle(items)
    expected = list(range(102))
    for i in range(101, 0, -1):
        j = reference.randbelow(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected
    assert stream.randbelow(1000) == reference.randbelow(1000)


@UNTIMED
@given(st.binary(min_size=32, max_size=32), st.text(max_size=20), st.integers(0, 200))
def test_shuffle_is_a_permutation(key: bytes, label: str, size: int) -> None:
    items = list(range(size))
    RandomStream(key, label).shuffle(items)
    assert sorted(items) == list(range(size))


@UNTIMED
@given(st.binary(min_size=32, max_size=32), st.integers(1, 2**64))
def test_randbelow_stays_in_range(key: bytes, n: int) -> None:
    stream = RandomStream(key, "range")
    assert all(0 <= stream.randbelow(n) < n for _ in range(5))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        RandomStream(b"short", "x")
    with pytest.raises(ValueError, match="1 <= n <= 2"):
        RandomStream(bytes(32), "x").randbelow(0)
    with pytest.raises(ValueError, match="1 <= n <= 2"):
        RandomStream(bytes(32), "x").randbelow(2**64 + 1)
    with pytest.raises(ValueError, match="empty"):
        RandomStream(bytes(32), "x").choice([])
