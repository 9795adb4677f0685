"""The report's "log" check, offline: an honest bundle with its tlog proofs passes, and each
cheat — one attack, one assertion — fails the log check with its own message."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.client.simulate import SimulationSettings, simulate_match
from fairdeal.verifier.bundle import Bundle, InvalidBundle
from fairdeal.verifier.checkpoint import Checkpoint, TlogProof
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logleaf import genesis_leaf, seal_leaf
from fairdeal.verifier.merkle import MemoryTree
from fairdeal.verifier.note import Note, sign_note
from fairdeal.verifier.protocol import event_hash
from fairdeal.verifier.verify import verify_bundle

KEY = SigningKey.from_seed(b"\x21" * 32)
OTHER = SigningKey.from_seed(b"\x22" * 32)
ORIGIN = "fairdeal.test/log"


def _bundle() -> dict[str, Any]:
    settings = SimulationSettings("arcomage", {}, ("random", "random"))
    return simulate_match(settings, server_seed=b"\x01" * 32, match_id="logged", server_key=KEY,
                          bot_random=random.Random(3), start_ms=1_767_225_600_000)


BUNDLE = _bundle()
EVENTS = BUNDLE["events"]
GENESIS = genesis_leaf(EVENTS[0])
SEAL = seal_leaf("logged", len(EVENTS) - 1, event_hash(EVENTS[-1]))


def _log(leaves: list[bytes], key: SigningKey = KEY,
         size: int | None = None) -> tuple[MemoryTree, str]:
    tree = MemoryTree()
    for leaf in leaves:
        tree.append(leaf)
    size = tree.size if size is None else size
    note = sign_note(Checkpoint(ORIGIN, size, tree.root(size)).text(), ORIGIN, key).render()
    return tree, note


def _proofs(tree: MemoryTree, note: str, genesis: int, seal: int) -> dict[str, str]:
    size = Checkpoint.from_note(note)[0].size
    return {"genesis": TlogProof(genesis, tuple(tree.inclusion_proof(genesis, size)), note).text(),
            "seal": TlogProof(seal, tuple(tree.inclusion_proof(seal, size)), note).text()}


OTHERS = [f"other {i}".encode() for i in range(5)]
TREE, NOTE = _log([OTHERS[0], GENESIS, OTHERS[1], OTHERS[2], SEAL, OTHERS[3]])
HONEST = {**BUNDLE, "log": _proofs(TREE, NOTE, 1, 4)}


def _report(data: dict[str, Any], checkpoint: str | None = None) -> Any:
    return verify_bundle(Bundle.from_json(data), KEY.public_text, checkpoint=checkpoint)


def test_the_honest_bundle_passes_the_log_check() -> None:
    report = _report(HONEST)
    assert report.ok, report.failure
    log = [check for check in report.checks if check.name == "log"][0]
    assert log.status == "pass" and "genesis leaf 1 and seal leaf 4" in log.detail
    assert _report(HONEST, NOTE).ok


def test_without_proofs_the_check_is_skipped() -> None:
    report = _report(BUNDLE)
    assert report.ok and report.checks[-1].status == "skipped"
    refused = _report(BUNDLE, NOTE)
    assert not refused.ok and refused.failure.check == "log"


def _swap(data: dict[str, Any]) -> None:
    data["log"]["genesis"], data["log"]["seal"] = data["log"]["seal"], data["log"]["genesis"]


def _other_key(data: dict[str, Any]) -> None:
    tree, note = _log([OTHERS[0], GENESIS, OTHERS[1], OTHERS[2], SEAL, OTHERS[3]], OTHER)
    data["log"] = _proofs(tree, note, 1, 4)


def _edited_size(data: dict[str, Any]) -> None:
    # the same proof hashes fit size 7 too; the size line is signed, so editing it fails
    for kind in ("genesis", "seal"):
        data["log"][kind] = data["log"][kind].replace(f"\n{ORIGIN}\n6\n", f"\n{ORIGIN}\n7\n")


def _two_checkpoints(data: dict[str, Any]) -> None:
    tree, note = _log([OTHERS[0], GENESIS, OTHERS[1], OTHERS[2], SEAL, OTHERS[3], OTHERS[4]])
    data["log"]["seal"] = _proofs(tree, note, 1, 4)["seal"]


def _another_match_s_seal(data: dict[str, Any]) -> None:
    other = seal_leaf("logged", len(EVENTS) - 1, "ab" * 32)
    tree, note = _log([OTHERS[0], GENESIS, OTHERS[1], OTHERS[2], other, OTHERS[3]])
    data["log"] = _proofs(tree, note, 1, 4)


def _seal_before_genesis(data: dict[str, Any]) -> None:
    tree, note = _log([SEAL, GENESIS])
    data["log"] = _proofs(tree, note, 1, 0)


def _index(kind: str, index: int) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        proof = TlogProof.from_text(data["log"][kind])
        data["log"][kind] = TlogProof(index, proof.hashes, proof.note).text()
    return change


def _drop_hash(data: dict[str, Any]) -> None:
    proof = TlogProof.from_text(data["log"]["genesis"])
    data["log"]["genesis"] = TlogProof(proof.index, proof.hashes[:-1], proof.note).text()


def _missing(data: dict[str, Any]) -> None:
    del data["log"]["seal"]


def _not_a_proof(data: dict[str, Any]) -> None:
    data["log"]["seal"] = "index 4\n"


MUTATIONS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "proofs swapped": (_swap, "is not in the checkpointed tree"),
    "checkpoint signed by another key": (_other_key, "no known key signed the note"),
    "tree size edited": (_edited_size, "does not verify"),
    "proofs against two checkpoints": (_two_checkpoints, "against different checkpoints"),
    "the log holds another head": (_another_match_s_seal, "the seal leaf (index 4) is not in"),
    "seal before genesis": (_seal_before_genesis, "the seal leaf comes before the genesis"),
    "wrong genesis index": (_index("genesis", 2), "the genesis leaf (index 2) is not in"),
    "index past the tree": (_index("seal", 6), "outside a tree of 6 leaves"),
    "a proof hash missing": (_drop_hash, "fewer hashes than the tree has levels"),
    "no seal proof": (_missing, "no inclusion proof of its seal leaf"),
    "not a tlog proof": (_not_a_proof, "the seal proof: a tlog proof needs an empty line"),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_every_log_cheat_fails_the_log_check(name: str) -> None:
    change, message = MUTATIONS[name]
    data = copy.deepcopy(HONEST)
    change(data)
    report = _report(data)
    assert not report.ok and report.failure.check == "log"
    assert message in report.failure.reason


def test_a_trusted_checkpoint_of_one_size_and_another_root_is_a_fork() -> None:
    _, forked = _log([OTHERS[4], GENESIS, OTHERS[1], OTHERS[2], SEAL, OTHERS[3]])
    report = _report(HONEST, forked)
    assert report.failure.check == "log" and "the log forked" in report.failure.reason
    _, bigger = _log([OTHERS[0], GENESIS, OTHERS[1], OTHERS[2], SEAL, OTHERS[3], OTHERS[4]])
    stale = _report(HONEST, bigger)
    assert "re-export the bundle against it" in stale.failure.reason
    _, foreign = _log([OTHERS[0], GENESIS, OTHERS[1], OTHERS[2], SEAL, OTHERS[3]], OTHER)
    assert "no known key" in _report(HONEST, foreign).failure.reason
    assert "not a signed note" in _report(HONEST, "junk").failure.reason


@pytest.mark.parametrize("log", [[], "text", {"genesis": 1}, {"other": "x"}, {}])
def test_a_malformed_log_field_is_a_format_error(log: Any) -> None:
    with pytest.raises(InvalidBundle, match="log: expected"):
        Bundle.from_json({**BUNDLE, "log": log})


def test_the_note_in_a_proof_is_the_checkpoint_verbatim() -> None:
    assert TlogProof.from_text(HONEST["log"]["seal"]).note == NOTE
    assert Note.parse(NOTE).text == Checkpoint.from_note(NOTE)[0].text()


# --- seal leaves that name their genesis (fairdeal.log/2) beside the older ones --------------

SEAL_V2 = seal_leaf("logged", len(EVENTS) - 1, event_hash(EVENTS[-1]), 1)


def _log_detail(report: Any) -> str:
    return next(check.detail for check in report.checks if check.name == "log")


def test_a_seal_naming_its_genesis_passes_and_an_old_one_still_does() -> None:
    tree, note = _log([OTHERS[0], GENESIS, OTHERS[1], SEAL_V2])
    new = _report({**BUNDLE, "log": _proofs(tree, note, 1, 3)})
    assert new.ok, new.failure
    assert _log_detail(new).startswith("genesis leaf 1 and seal leaf 3 in ")
    old = _report(HONEST)
    assert old.ok, old.failure
    assert "seal leaf 4 (a seal leaf of format 1, which names no genesis leaf) in" \
        in _log_detail(old)


def test_a_seal_that_closes_another_genesis_leaf_fails_the_log_check() -> None:
    """A re-deal under a used id: the bundle's genesis is leaf 2, its seal closes leaf 1 (the
    other deal's). The seal rebuilt from this bundle names leaf 2: it is not in the tree."""
    closes_other = seal_leaf("logged", len(EVENTS) - 1, event_hash(EVENTS[-1]), 1)
    tree, note = _log([OTHERS[0], GENESIS, GENESIS, closes_other])
    report = _report({**BUNDLE, "log": _proofs(tree, note, 2, 3)})
    assert report.failure is not None and report.failure.check == "log"
    assert ("the seal leaf (index 3) is not in the checkpointed tree as the seal of this match "
            "closing its genesis leaf 2") in report.failure.reason
