"""The quick shape check for moves and timeouts admits exactly what the full checks admit:
every mutation of a well-formed move below is refused, with the full check's words."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from fairdeal.verifier.bundle import Bundle, InvalidBundle

FIXTURE = (Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / "honest"
           / "arcomage-signed-moves.json")


def _bundle() -> dict:
    return json.loads(FIXTURE.read_text())


def _first(bundle: dict, kind: str) -> dict:
    return next(event for event in bundle["events"] if event["type"] == kind)


MUTATIONS = [
    ("seat is a bool", lambda e: e.update(seat=True), "seat: expected an integer"),
    ("negative seq", lambda e: e.update(seq=-1), "seq: expected an integer >= 0"),
    ("ts is text", lambda e: e.update(ts="1"), "ts: expected an integer"),
    ("short prev", lambda e: e.update(prev="ab"), "prev: expected 64 hex digits"),
    ("extra field", lambda e: e.update(note="x"), "unexpected field 'note'"),
    ("no action", lambda e: e.pop("action"), "missing field 'action'"),
    ("bad signature", lambda e: e.update(sig="zz"), "sig: expected 128 hex digits"),
    ("null signature", lambda e: e.update(sig=None), "sig: expected 128 hex digits"),
    ("empty action id", lambda e: e.update(action_id=""), "action_id: expected a non-empty"),
    ("deep action", lambda e: e.update(action={"a": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}),
     "nested deeper than 16"),
]


def test_a_well_formed_bundle_passes() -> None:
    Bundle.from_json(_bundle())


@pytest.mark.parametrize(("what", "mutate", "message"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_malformed_move_is_refused_with_the_full_checks_words(what: str, mutate, message: str
                                                                ) -> None:
    bundle = _bundle()
    mutate(_first(bundle, "move"))
    with pytest.raises(InvalidBundle, match=message):
        Bundle.from_json(copy.deepcopy(bundle))


def test_a_malformed_timeout_is_refused() -> None:
    from fairdeal.client.simulate import SimulationSettings, simulate_matches

    settings = SimulationSettings("arcomage", {}, ("random", "random"), timeout_chance=0.5)
    bundle = next(simulate_matches(settings, 1, seed="shapes", server_key=None))
    Bundle.from_json(copy.deepcopy(bundle))
    _first(bundle, "timeout")["seat"] = "A"
    with pytest.raises(InvalidBundle, match="seat: expected an integer"):
        Bundle.from_json(bundle)
