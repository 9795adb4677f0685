"""Hypothesis strategies built from the bundle format: JSON values with hostile leaves, events
of every type with each field either of its right shape or hostile, whole bundles, and request
bodies of every API call. The test suite runs them briefly (tests/hostile/test_fuzz_short.py);
``make fuzz`` runs them longer (``run_hypothesis``).
"""

from __future__ import annotations

import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.verifier.protocol import BUNDLE_FORMAT, PROTOCOL

from .mutate import HOSTILE_VALUES

__all__ = ["api_requests", "bundles", "events", "json_values", "run_hypothesis"]

HEX = "0123456789abcdef"
hostile = st.sampled_from(HOSTILE_VALUES)
integers = st.one_of(st.integers(-(2**64), 2**64), st.sampled_from([0, 1, -1, 2**63 - 1]))
texts = st.one_of(st.text(max_size=40), st.text(alphabet=string.ascii_letters, max_size=12),
                  st.sampled_from(["\ud800", "\udfff", "a\ud83c", "\u0000", "x" * 300]))
leaves = st.one_of(st.none(), st.booleans(), integers, texts, hostile)


def json_values(max_leaves: int = 30) -> st.SearchStrategy[Any]:
    """Any JSON value (no floats: the encoder would write them, and they are refused anyway)."""
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(texts, inner, max_size=6)),
        max_leaves=max_leaves)


def _hex(size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=HEX, min_size=size, max_size=size)


def _maybe(right: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right shape, sometimes a hostile value in its place."""
    return st.one_of(right, right, right, hostile, json_values(6))


_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "seq": st.integers(0, 40), "prev": _hex(64), "ts": st.integers(0, 2**45),
    "protocol": st.just(PROTOCOL), "match_id": st.text(alphabet=HEX, min_size=1, max_size=16),
    "game": st.sampled_from(["arcomage", "toybattle", "wyrdstone", "chess"]),
    "rules_version": st.text(max_size=12), "rules_hash": _hex(64),
    "params": st.dictionaries(st.sampled_from(["A", "B", "deck", "battlefield", "board",
                                               "training"]), json_values(8), max_size=3),
    "turn_limit_ms": st.one_of(st.none(), st.integers(1, 10**6)),
    "seats": st.lists(st.fixed_dictionaries({"name": texts}), min_size=2, max_size=2),
    "server_key_id": _hex(16), "commitment": _hex(64), "seat": st.integers(0, 2),
    "public_key": _hex(64).map(lambda h: "ed25519:" + h),
    "client_seed": st.one_of(st.none(), _hex(64)),
    "action": json_values(10), "action_id": texts, "sig": _hex(128),
    "server_seed": _hex(64),
    "result": st.fixed_dictionaries({"winner": st.one_of(st.none(), st.integers(0, 2)),
                                     "reason": texts}),
}
_TYPE_FIELDS = {
    "genesis": ["protocol", "match_id", "game", "rules_version", "rules_hash", "params",
                "turn_limit_ms", "seats", "server_key_id", "commitment"],
    "seat_key": ["seat", "public_key"], "client_seed": ["seat", "client_seed"],
    "move": ["seat", "action", "action_id"], "timeout": ["seat"], "resign": ["seat"],
    "reveal": ["server_seed", "result"],
}


@st.composite
def events(draw: st.DrawFn, kind: str | None = None) -> Any:
    """An event of ``kind`` (or any type), each field of its shape or hostile."""
    kind = kind or draw(st.sampled_from(sorted(_TYPE_FIELDS)))
    names = ["seq", "prev", "ts", *_TYPE_FIELDS.get(kind, [])]
    event = {name: draw(_maybe(_FIELDS[name])) for name in names}
    event["type"] = draw(st.one_of(st.just(kind), st.just(kind), hostile))
    if draw(st.integers(0, 9)) == 0:
        event.pop(draw(st.sampled_from(sorted(event))))
    return event


@st.composite
def bundles(draw: st.DrawFn) -> Any:
    """A bundle: a genesis, some events of any type, a reveal and a signature."""
    middle = draw(st.lists(events(), max_size=6))
    bundle = {
        "format": draw(st.one_of(st.just(BUNDLE_FORMAT), st.just(BUNDLE_FORMAT), hostile)),
        "events": [draw(events("genesis")), *middle, draw(events("reveal"))],
        "signature": {"key": "ed25519:" + draw(_hex(64)), "sig": draw(_hex(128))},
    }
    if draw(st.integers(0, 9)) == 0:
        bundle = draw(json_values())
    return bundle


#: the writes of the API and the fields of each body
_BODIES = {
    "matches": {"game": st.sampled_from(["arcomage", "toybattle", "wyrdstone"]),
                "params": _FIELDS["params"], "turn_limit_ms": _FIELDS["turn_limit_ms"],
                "seed_deadline_ms": st.integers(1, 10**6), "seats": _FIELDS["seats"]},
    "seed": {"client_seed": _FIELDS["client_seed"]},
    "seat-key": {"public_key": _FIELDS["public_key"]},
    "actions": {"action": json_values(10), "expected_seq": st.integers(0, 50),
                "action_id": texts, "ts": st.integers(0, 2**45), "sig": _FIELDS["sig"]},
    "resign": {"expected_seq": st.integers(0, 50), "ts": st.integers(0, 2**45),
               "sig": _FIELDS["sig"]},
}


@st.composite
def api_requests(draw: st.DrawFn) -> tuple[str, Any]:
    """(call, body) of an API write: its fields, each of its shape or hostile, some left out,
    sometimes an unknown one added."""
    call = draw(st.sampled_from(sorted(_BODIES)))
    fields = _BODIES[call]
    body = {name: draw(_maybe(value)) for name, value in fields.items()
            if draw(st.booleans()) or name in ("game", "action", "action_id")}
    if draw(st.integers(0, 9)) == 0:
        body[draw(texts)] = draw(leaves)
    return call, body


def run_hypothesis(examples: int) -> dict[str, Any]:
    """``examples`` bundles against the verifier and the import, and ``examples`` request
    bodies against the API; the count of problems."""
    import json

    from .targets import ApiBodies, ApiBundles, Verifier

    verifier, importer, api = Verifier(), ApiBundles(), ApiBodies()
    problems: list[str] = []
    config = settings(max_examples=examples, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))

    @config
    @given(bundles())
    def bundle_case(bundle: Any) -> None:
        data = json.dumps(bundle).encode()
        for target in (verifier, importer):
            problem = target.run(data)
            if problem:
                problems.append(problem)

    @config
    @given(api_requests())
    def request_case(request: tuple[str, Any]) -> None:
        call, body = request
        match = api.playing if call in ("actions", "resign") else api.seating
        path = "/api/v1/matches" if call == "matches" else \
            f"/api/v1/matches/{match['id']}/{call}"
        token = match["tokens"][0]
        response = api.client.post(path, data=json.dumps(body).encode(),
                                   headers={"Authorization": f"Bearer {token}"})
        problem = api.check(response, f"POST {path}")
        if problem:
            problems.append(problem)

    bundle_case()
    request_case()
    for target in (verifier, importer, api):
        target.close()
    return {"examples": 2 * examples, "problems": len(problems), "first": problems[:3]}
