"""The fast parser (orjson, verifier/jsonfast.py) against the pure one: every committed fixture
(honest, tampered, hostile, v1, golden games, vectors), the fuzzer's mutants of them and a table
of the refusals each parser must share get the same value or the same error, word for word,
through parse_json and Bundle.from_bytes alike, and every bundle the same verification report.
The fast path must also really be taken on the honest files, or the comparison would prove
nothing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier import jsonfast
from fairdeal.verifier.bundle import MAX_INT, Bundle, InvalidBundle, parse_json
from fairdeal.verifier.verify import verify_bytes

sys.path.insert(0, str(Path(__file__).parents[2]))  # the fuzzing/ folder beside tests/

from fuzzing.mutate import mutate_bytes, structural  # noqa: E402

FIXTURES = Path(__file__).parents[2] / "fixtures"
CORPUS = sorted(FIXTURES.rglob("*.json"))
HONEST = sorted((FIXTURES / "bundles" / "honest").glob("*.json"))
BUNDLES = [path for path in CORPUS if {"bundles", "hostile"} & set(path.parts)]

pytestmark = pytest.mark.skipif(not jsonfast.ENABLED, reason="orjson is not installed, or "
                                "FAIRDEAL_PURE is set: only the pure parser runs")

Parse = Callable[[bytes | str], Any]
PARSERS: dict[str, Parse] = {"parse_json": parse_json, "Bundle.from_bytes": Bundle.from_bytes}

NESTED = {depth: b"[" * depth + b"]" * depth for depth in (253, 254, 255, 998, 1024, 1025)}

#: each refusal the pure parser makes, spelt as orjson would encode it where it can be
REFUSALS: dict[str, bytes | str] = {
    "duplicate key": b'{"a":1,"a":2}',
    "duplicate key, nested": b'[{"events":[{"seq":0,"seq":0}]}]',
    "duplicate key through an escape": b'{"a":1,"\\u0061":2}',
    "duplicate key, the colon escaped": b'{"a:":1,"a\\u003a":"\\u003a"}',
    "float": b"[1.5]",
    "float, integral": b'{"ts":1.0}',
    "float, exponent": b"[1e+16]",
    "float, negative exponent": b"[5e-324]",
    "float, bare": b"2.5",
    "float past every double": b"[1e999]",
    "NaN": b"[NaN]",
    "Infinity": b"[-Infinity]",
    "lone surrogate, escaped": b'["\\ud800"]',
    "lone low surrogate, escaped": b'{"\\udfff":1}',
    "surrogate as UTF-8 bytes": b'["\xed\xa0\x80"]',
    "lone surrogate in a str": '["\ud800"]',
    "integer 2**63": f"[{2**63}]".encode(),
    "integer -2**63": f"[{-(2**63)}]".encode(),
    "integer 2**64-1": f'{{"ts":{2**64 - 1}}}'.encode(),
    "integer 2**64": f"[{2**64}]".encode(),
    "integer of 5000 digits": b"[" + b"9" * 5000 + b"]",
    "bare long integer": str(2**63).encode(),
    "leading zero": b"[01]",
    "not UTF-8": b'["\xff"]',
    "BOM": b"\xef\xbb\xbf[1]",
    "empty": b"",
    "whitespace only": b" \t\r\n",
    "Unicode whitespace only": "\u3000".encode(),
    "vertical tab around": b"\x0b[1]\x0b",
    "control character in a string": b'["\x01"]',
    "truncated": b'{"format":"fairdeal.bundle/1","events":[',
    "trailing comma": b"[1,]",
    "extra data": b"[1][2]",
    "nested past orjson's limit": NESTED[1025],
}

#: what the fast path cannot prove, refused or not: the pure parser alone decides
LEFT_TO_PURE: dict[str, bytes | str] = {
    "negative zero": b"[-0]",
    "an escaped surrogate pair": b'["\\ud83c\\udca1"]',
    "the edges of the range (19 digits, as is 2**63)": f"[{MAX_INT},{-MAX_INT}]".encode(),
    "another spacing": b'{"seq": 1}',
    "an escape orjson would not write": b'["caf\\u00e9"]',
    "a string that looks like a float": b'["1.5",":1e+5"]',
    "a string that looks like a long integer": b'[":0000000000000000000"]',
    **{f"nested {depth} deep": NESTED[depth] for depth in (255, 998, 1024)},
}

#: what the fast path must take as it is, each at an edge of what it may
ACCEPTED: dict[str, bytes | str] = {
    "the same pair as UTF-8": '["\U0001f0a1"]'.encode(),
    "a str": '{"name":"caf\u00e9"}',
    "JSON whitespace around": b" \n{\"seq\":1}\r\n\t",
    "nested 253 deep": NESTED[253],
    "nested 254 deep": NESTED[254],
    "dots and e- after letters": b'["fairdeal.bundle/1","archmage-citadel","1e"]',
    "a long digit run in a string": b'["0000000000000000000000"]',
}


def outcome(parse: Parse, data: bytes | str) -> str:
    """What a parser made of ``data``: its value (repr keeps the order of keys, and True apart
    from 1) or its error."""
    try:
        return f"value {parse(data)!r}"
    except InvalidBundle as e:
        return f"error {e}"


def fast_and_pure(monkeypatch: pytest.MonkeyPatch, data: bytes | str) -> list[tuple[str, str]]:
    """Each parser's outcome with the fast path on, then with the pure parser alone."""
    fast = [outcome(parse, data) for parse in PARSERS.values()]
    with monkeypatch.context() as pure_only:
        pure_only.setattr(jsonfast, "ENABLED", False)
        pure = [outcome(parse, data) for parse in PARSERS.values()]
    return list(zip(fast, pure, strict=True))


def assert_same(monkeypatch: pytest.MonkeyPatch, data: bytes | str) -> None:
    for (fast, pure), name in zip(fast_and_pure(monkeypatch, data), PARSERS, strict=True):
        assert fast == pure, f"{name} of {data[:200]!r}"


def test_the_corpus_is_every_fixture() -> None:
    assert len(CORPUS) >= 150
    assert {path.parent.name for path in CORPUS} >= {"honest", "tampered", "bundles", "vectors"}
    assert len(BUNDLES) >= 130


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: str(path.relative_to(FIXTURES)))
def test_every_fixture_parses_the_same_both_ways(monkeypatch: pytest.MonkeyPatch,
                                                 path: Path) -> None:
    assert_same(monkeypatch, path.read_bytes())
    assert_same(monkeypatch, path.read_text("utf-8", "surrogateescape"))


@pytest.mark.parametrize("path", BUNDLES, ids=lambda path: str(path.relative_to(FIXTURES)))
def test_every_bundle_gets_the_same_report_both_ways(monkeypatch: pytest.MonkeyPatch,
                                                     path: Path) -> None:
    data = path.read_bytes()
    fast = verify_bytes(data).to_json()
    monkeypatch.setattr(jsonfast, "ENABLED", False)
    assert verify_bytes(data).to_json() == fast


@pytest.mark.parametrize("path", HONEST, ids=lambda path: path.stem)
def test_the_fast_path_takes_every_honest_bundle(path: Path) -> None:
    data = path.read_bytes()
    for bounded in (True, False):
        assert jsonfast.loads(data, bounded) == parse_json(data)


@pytest.mark.parametrize("name", REFUSALS)
def test_every_refusal_is_the_pure_parsers(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    data = REFUSALS[name]
    assert jsonfast.loads(data, bounded=True) is jsonfast.UNPROVEN
    outcomes = fast_and_pure(monkeypatch, data)
    assert outcomes[0][0].startswith("error ")
    assert all(fast == pure for fast, pure in outcomes)


@pytest.mark.parametrize("name", LEFT_TO_PURE)
def test_what_the_fast_path_cannot_prove_goes_to_the_pure_parser(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    data = LEFT_TO_PURE[name]
    assert jsonfast.loads(data, bounded=True) is jsonfast.UNPROVEN
    assert_same(monkeypatch, data)


def test_a_duplicate_key_is_refused_by_name_not_kept_last_as_orjson_would() -> None:
    with pytest.raises(InvalidBundle, match=r"^duplicate key 'seq' in an object$"):
        parse_json(b'{"seq":0,"seq":1}')


@pytest.mark.parametrize("name", ACCEPTED)
def test_the_fast_path_keeps_what_it_can_prove(monkeypatch: pytest.MonkeyPatch,
                                              name: str) -> None:
    data = ACCEPTED[name]
    value = jsonfast.loads(data, bounded=True)
    assert value is not jsonfast.UNPROVEN
    outcomes = fast_and_pure(monkeypatch, data)
    assert outcomes[0] == (f"value {value!r}", f"value {value!r}")


def test_the_fuzzers_mutants_parse_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20)
    seeds = [path.read_bytes() for path in CORPUS if "bundles" in path.parts]
    honest = [parse_json(path.read_bytes()) for path in HONEST]
    taken = 0
    for round_ in range(1500):
        if round_ % 4:
            mutant = mutate_bytes(rng.choice(seeds), rng)
        else:
            mutant = structural(rng.choice(honest), rng)
        taken += jsonfast.loads(mutant, bounded=False) is not jsonfast.UNPROVEN
        assert_same(monkeypatch, mutant)
    assert taken >= 100  # the fast path saw a share of the mutants, not none of them


def test_fairdeal_pure_turns_the_fast_path_off() -> None:
    check = "from fairdeal.verifier import jsonfast; print(jsonfast.ENABLED)"
    for setting, shown in (("1", "False"), ("0", "True")):
        env = {**os.environ, "FAIRDEAL_PURE": setting}
        ran = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True,
                             text=True, check=True)
        assert ran.stdout.strip() == shown
