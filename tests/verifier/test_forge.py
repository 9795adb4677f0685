"""fairdeal.verifier.forge.reseal, the one re-seal helper fixtures, fuzzing and tests use, seals
as the server does: an unedited bundle re-sealed is the same bytes, and an edited one re-sealed
passes the chain and the signature, so only the edit is left for the verifier to find."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

from fairdeal.verifier import verify_bytes
from fairdeal.verifier.forge import reseal
from fairdeal.verifier.keys import SigningKey

ROOT = Path(__file__).parents[2]
HONEST = ROOT / "fixtures" / "bundles" / "honest"
#: the fixtures' server key (fixtures/build.py derives it the same way)
SERVER_KEY = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())


def _load(name: str) -> dict:
    return json.loads((HONEST / f"{name}.json").read_text())


def _bytes(bundle: dict) -> bytes:
    return json.dumps(bundle).encode()


def test_an_unedited_bundle_reseals_to_the_same_bundle() -> None:
    for path in sorted(HONEST.glob("*.json")):
        bundle = json.loads(path.read_text())
        assert reseal(copy.deepcopy(bundle), SERVER_KEY) == bundle, path.name
        assert reseal(copy.deepcopy(bundle), SERVER_KEY, recommit=True) == bundle, path.name


def test_a_dropped_move_resealed_is_left_for_the_replay_to_find() -> None:
    bundle = _load("arcomage-azure-valley-infinite")
    move = next(e["seq"] for e in bundle["events"] if e["type"] == "move")
    del bundle["events"][move]
    assert verify_bytes(_bytes(bundle)).failure.check == "chain"
    report = verify_bytes(_bytes(reseal(bundle, SERVER_KEY)),
                          (HONEST.parent / "server-key.txt").read_text().strip())
    assert [c.name for c in report.checks if c.status == "pass"][:5] == [
        "format", "chain", "signature", "rules", "commitment"]
    assert report.failure is not None and report.failure.check == "moves"


def test_recommit_recomputes_the_commitment_an_edited_genesis_broke() -> None:
    bundle = _load("arcomage-azure-valley-infinite")
    bundle["events"][0]["seats"] = [{"name": "Ada"}, {"name": "Bo"}]
    assert verify_bytes(_bytes(reseal(copy.deepcopy(bundle), SERVER_KEY))).failure.check == (
        "commitment")
    report = verify_bytes(_bytes(reseal(bundle, SERVER_KEY, recommit=True)))
    assert report.ok, report.failure
    assert report.facts["seats"] == ["Ada", "Bo"]


def test_another_key_is_the_signature_checks_to_refuse() -> None:
    bundle = _load("arcomage-azure-valley-infinite")
    other = SigningKey.from_seed(bytes(32))
    report = verify_bytes(_bytes(reseal(bundle, other)))
    assert report.failure is not None and report.failure.check == "signature"
    assert "but the match was created under key" in report.failure.reason


def test_the_docstring_example_runs(monkeypatch) -> None:
    import doctest

    from ..sources import source_module
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(source_module("fairdeal.verifier.forge"))
    assert result.attempted > 0 and result.failed == 0
