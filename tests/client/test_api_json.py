"""The client's parser of answers (client/api.py's ``_loads``): orjson where the verifier's fast
path proves it, ``json`` for the rest, and every answer the same value ``json`` alone makes of
it (or the same refusal)."""

from __future__ import annotations

import json
import math

import pytest

from fairdeal.client.api import _loads

#: answers orjson refuses or misreads (a long integer as a float) and ``json`` takes: each must
#: still mean what ``json`` made of it
ONLY_JSON_PARSES = {
    "NaN": b'{"x": NaN}',
    "Infinity": b'[Infinity, -Infinity]',
    "an integer past 64 bits": b'{"seq": 123456789012345678901234567890}',
    "a lone surrogate": b'["\\ud800"]',
}

BOTH_PARSE = {
    "a view": b'{"id":"0123456789abcdef","next_seq":7,"legal_actions":[{"play":3}],'
              b'"seat":null,"ok":true}',
    "two equal keys": b'{"a": 1, "a": 2}',
    "non-ASCII text": '{"name": "Zoë 🂡"}'.encode(),
    "escapes": b'["caf\\u00e9", "\\n\\t\\"", "\\ud83c\\udca1"]',
    "spacing": b' \n{ "a" : [ 1 , -2 , 0 ] }\r\n',
    "a float": b'[1.5, 1e16, -0.0]',
    "an integer of 64 bits": b'[18446744073709551615, -9223372036854775808]',
    "a compact answer, orjson's own form": b'{"b":[1,{"c":null}],"a":"x"}',
}


@pytest.mark.parametrize("name", sorted(ONLY_JSON_PARSES))
def test_what_orjson_refuses_means_what_json_made_of_it(name: str) -> None:
    raw = ONLY_JSON_PARSES[name]
    got, expected = _loads(raw), json.loads(raw)
    assert repr(got) == repr(expected)  # NaN != NaN: compared by how they print
    if name == "NaN":
        assert math.isnan(got["x"])


@pytest.mark.parametrize("name", sorted(BOTH_PARSE))
def test_an_answer_both_parse_is_the_value_json_gives(name: str) -> None:
    """The same value, and the same types in it (an integer stays an integer)."""
    raw = BOTH_PARSE[name]
    got = _loads(raw)
    assert got == json.loads(raw)
    assert [type(item) for item in _walk(got)] == [type(item) for item in _walk(json.loads(raw))]


@pytest.mark.parametrize("raw", [b"", b"{", b'{"a": 1,}', b"nul", b"[1] [2]", b"\xff"])
def test_what_neither_parses_is_refused_as_before(raw: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(raw)
    with pytest.raises(ValueError):
        _loads(raw)


def test_nesting_past_orjsons_limit_is_json_s_to_decide() -> None:
    raw = b"[" * 5000 + b"]" * 5000
    with pytest.raises(RecursionError):
        json.loads(raw)
    with pytest.raises(RecursionError):
        _loads(raw)


def _walk(value: object) -> list[object]:
    """``value`` and everything inside it, depth first."""
    found = [value]
    if isinstance(value, dict):
        for key, item in value.items():
            found += [key, *_walk(item)]
    elif isinstance(value, list):
        for item in value:
            found += _walk(item)
    return found
