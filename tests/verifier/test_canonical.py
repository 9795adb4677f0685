"""The fast canonical encoder (orjson, verifier/canonical.py) against the standard library's:
the same bytes, or the same error word for word, on the protocol vectors, on every value of
every fixture (honest, tampered, hostile, v1, games, vectors: the events one by one and the
files whole), on every code point, at the edges where orjson refuses, and on generated values
of every kind canonical JSON has. The fast path must also really be taken on the honest
events, or the comparison would prove nothing."""

from __future__ import annotations

import collections
import enum
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.verifier import canonical
from fairdeal.verifier.canonical import (
    CanonicalError,
    canonical_bytes,
    canonical_bytes_trusted,
    check_canonical,
)

FIXTURES = Path(__file__).parents[2] / "fixtures"
CORPUS = sorted(FIXTURES.rglob("*.json"))
HONEST = sorted((FIXTURES / "bundles" / "honest").glob("*.json"))

pytestmark = pytest.mark.skipif(not canonical.ENABLED, reason="orjson is not installed, or "
                                "FAIRDEAL_PURE is set: only the json encoder runs")

Encode = Callable[[Any], bytes]
ENCODERS: dict[str, Encode] = {"canonical_bytes": canonical_bytes,
                               "canonical_bytes_trusted": canonical_bytes_trusted}


class Text(str):
    pass


class Number(int):
    pass


class Colour(enum.IntEnum):
    RED = 1


Pair = collections.namedtuple("Pair", "left right")

def nested(depth: int, wrap: Callable[[Any], Any]) -> Any:
    """An empty list inside ``depth - 1`` wrappings."""
    value: Any = []
    for _ in range(depth - 1):
        value = wrap(value)
    return value


#: where orjson refuses or may differ: each must come out as the json encoder makes it
EDGES: dict[str, Any] = {
    "2**63 - 1": 2**63 - 1, "-(2**63)": -(2**63), "2**63": 2**63, "2**64 - 1": 2**64 - 1,
    "2**64": [2**64], "-(2**63) - 1": {"a": -(2**63) - 1}, "a 400-digit integer": [10**400],
    "a lone surrogate": ["\ud800"], "a lone low surrogate as a key": {"\udfff": 1},
    "a surrogate pair written apart": "\ud83c\udca1", "a non-BMP character": "\U0001f0a1",
    "U+2028 and U+2029": "\u2028\u2029", "DEL": "\x7f", "every control character":
    "".join(map(chr, range(32))), "quote and backslash": '"\\/',
    "keys across the BMP's end": {"\ue000": 1, "\U00010000": 2, "\uffff": 3, "": 4},
    "nested 254 deep": nested(254, lambda inner: [inner]),
    "nested 255 deep": nested(255, lambda inner: [inner]),
    "nested dicts 300 deep": nested(300, lambda inner: {"a": inner}),
    "a str subclass": Text("x"), "a str subclass as a key": {Text("b"): 1, "a": 2},
    "an int subclass": [Number(3)], "an IntEnum": [Colour.RED], "a namedtuple": Pair(1, 2),
    "a tuple": (1, "a", None), "a dict subclass": collections.OrderedDict(b=1, a=2),
    "a non-string key": {1: 2}, "a float": [1.5], "bytes": [b"x"], "a set": {1},
    "True and 1 apart": [True, 1, False, 0], "an empty object": {}, "a bare string": "é",
}


def outcome(encode: Encode, value: Any) -> str:
    """What an encoder made of ``value``: its bytes or its error, type and words."""
    try:
        return f"bytes {encode(value)!r}"
    except (CanonicalError, TypeError, ValueError, RecursionError) as e:
        return f"error {type(e).__name__}: {e}"


def promised(value: Any) -> bool:
    """Whether ``value`` is what canonical_bytes_trusted's callers promise (parse_json's
    values: no float, no key but a string, only JSON's types)."""
    try:
        check_canonical(value)
    except CanonicalError:
        return False
    return True


def assert_same(monkeypatch: pytest.MonkeyPatch, value: Any) -> None:
    """Each encoder gives ``value`` the same bytes or error with orjson as without it (the
    trusted one only where its callers' promise holds)."""
    for name in ENCODERS if promised(value) else ("canonical_bytes",):
        fast = outcome(ENCODERS[name], value)
        with monkeypatch.context() as json_only:
            json_only.setattr(canonical, "ENABLED", False)
            pure = outcome(ENCODERS[name], value)
        assert fast == pure, f"{name} of {value!r:.200}"


def fixture_values() -> Iterator[Any]:
    """Every fixture whole, and every event of every bundle among them, as json reads it."""
    for path in CORPUS:
        try:
            value = json.loads(path.read_text("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):  # not JSON (a hostile file): nothing to encode
            continue
        yield value
        events = value.get("events") if isinstance(value, dict) else None
        if isinstance(events, list):
            yield from events


def test_the_protocol_vectors() -> None:
    vectors = json.loads((FIXTURES / "vectors" / "protocol.json").read_text())
    for vector in vectors["canonical"]:
        assert canonical_bytes(vector["value"]).hex() == vector["bytes_hex"]
        assert canonical_bytes_trusted(vector["value"]).hex() == vector["bytes_hex"]


def test_every_value_of_every_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    values = list(fixture_values())
    assert len(values) > 5000
    assert sum(map(promised, values)) > 5000
    for value in values:
        assert_same(monkeypatch, value)


def test_every_code_point_as_a_key_and_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    for start in range(0, 0x110000, 0x1000):
        block = [chr(point) for point in range(start, start + 0x1000)]
        assert_same(monkeypatch, {point: [point, "k" + point] for point in block})
        assert_same(monkeypatch, "".join(block))


@pytest.mark.parametrize("name", EDGES)
def test_every_edge_is_the_json_encoders(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    assert_same(monkeypatch, EDGES[name])


@pytest.mark.parametrize("path", HONEST, ids=lambda path: path.stem)
def test_the_fast_path_takes_every_honest_event(path: Path) -> None:
    for event in json.loads(path.read_bytes())["events"]:
        assert canonical._orjson_bytes(event) == canonical_bytes(event)


scalars = (st.none() | st.booleans()
           | st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)
           | st.integers(min_value=-(2**70), max_value=2**70)
           | st.text(st.characters(codec=None, exclude_categories=())))
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(st.characters(exclude_categories=()), max_size=4), inner,
                      max_size=5), max_leaves=40)


@settings(max_examples=1500, deadline=None)
@given(values)
def test_generated_values(value: Any) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert_same(monkeypatch, value)
