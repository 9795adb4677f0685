"""RFC 9162 Merkle proofs: reference values, the RFC's recursive definitions, and a mutation
corpus every proof must fail (one cheat, one assertion; the honest case beside them)."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from fairdeal.verifier.merkle import (
    EMPTY_ROOT,
    MemoryTree,
    ProofError,
    leaf_hash,
    node_hash,
    verify_consistency,
    verify_inclusion,
)

VECTORS = json.loads((Path(__file__).parent / "data" / "merkle_vectors.json").read_text())
LEAVES = [bytes.fromhex(item) for item in VECTORS["leaves_hex"]]


def _b64(items: list[str]) -> list[bytes]:
    return [base64.b64decode(item) for item in items]


def _tree(leaves: list[bytes]) -> MemoryTree:
    tree = MemoryTree()
    for leaf in leaves:
        tree.append(leaf)
    return tree


# --- the RFC's own recursive definitions (section 2.1), written out here -------------------

def _k(n: int) -> int:
    return 1 << ((n - 1).bit_length() - 1)


def mth(d: list[bytes]) -> bytes:
    if not d:
        return hashlib.sha256(b"").digest()
    if len(d) == 1:
        return hashlib.sha256(b"\x00" + d[0]).digest()
    k = _k(len(d))
    return hashlib.sha256(b"\x01" + mth(d[:k]) + mth(d[k:])).digest()


def path(m: int, d: list[bytes]) -> list[bytes]:
    if len(d) <= 1:
        return []
    k = _k(len(d))
    return path(m, d[:k]) + [mth(d[k:])] if m < k else path(m - k, d[k:]) + [mth(d[:k])]


def subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    n = len(d)
    if m == n:
        return [] if b else [mth(d)]
    k = _k(n)
    if m <= k:
        return subproof(m, d[:k], b) + [mth(d[k:])]
    return subproof(m - k, d[k:], False) + [mth(d[:k])]


def test_roots_of_the_reference_tree() -> None:
    tree = _tree(LEAVES)
    for size, expected in enumerate(VECTORS["roots_hex_by_size"]):
        assert tree.root(size).hex() == expected
    assert EMPTY_ROOT.hex() == VECTORS["roots_hex_by_size"][0]


@pytest.mark.parametrize("case", VECTORS["inclusion"], ids=lambda c: f"{c['index']}-of-{c['size']}")
def test_reference_inclusion_proofs(case: dict) -> None:
    tree = _tree(LEAVES)
    proof = _b64(case["proof"])
    root = base64.b64decode(case["root"])
    assert tree.inclusion_proof(case["index"], case["size"]) == proof
    assert leaf_hash(LEAVES[case["index"]]) == base64.b64decode(case["leaf_hash"])
    verify_inclusion(leaf_hash(LEAVES[case["index"]]), case["index"], case["size"], proof, root)


@pytest.mark.parametrize("case", VECTORS["consistency"], ids=lambda c: f"{c['old']}-to-{c['new']}")
def test_reference_consistency_proofs(case: dict) -> None:
    tree = _tree(LEAVES)
    proof = _b64(case["proof"])
    assert tree.consistency_proof(case["old"], case["new"]) == proof
    verify_consistency(case["old"], case["new"], base64.b64decode(case["old_root"]),
                       base64.b64decode(case["new_root"]), proof)


def test_every_proof_up_to_70_leaves_is_the_rfc_recursion() -> None:
    data = [f"leaf {i}".encode() for i in range(70)]
    tree = _tree(data)
    for n in range(1, 71):
        root = tree.root(n)
        assert root == mth(data[:n])
        for m in range(n):
            proof = tree.inclusion_proof(m, n)
            assert proof == path(m, data[:n])
            verify_inclusion(leaf_hash(data[m]), m, n, proof, root)
        for m in range(1, n):
            proof = tree.consistency_proof(m, n)
            assert proof == subproof(m, data[:n], True)
            verify_consistency(m, n, tree.root(m), root, proof)


def test_hashing_is_domain_separated() -> None:
    # a leaf can never pass for an interior node: the prefixes differ
    a, b = leaf_hash(b"a"), leaf_hash(b"b")
    assert node_hash(a, b) != leaf_hash(a + b)
    assert leaf_hash(b"") == hashlib.sha256(b"\x00").digest()


# --- the mutation corpus ---------------------------------------------------------------------

def _flip(value: bytes, bit: int = 0) -> bytes:
    return bytes([value[0] ^ (1 << bit)]) + value[1:]


TREE = _tree([f"m{i}".encode() for i in range(13)])
INDEX, SIZE = 5, 13
HONEST_INCLUSION = (leaf_hash(b"m5"), INDEX, SIZE, TREE.inclusion_proof(INDEX, SIZE),
                    TREE.root(SIZE))

Inclusion = tuple[bytes, int, int, list[bytes], bytes]
INCLUSION_MUTATIONS: dict[str, Callable[[Inclusion], Inclusion]] = {
    "flipped bit in proof[0]": lambda c: (c[0], c[1], c[2], [_flip(c[3][0])] + c[3][1:], c[4]),
    "flipped bit in the last hash": lambda c: (c[0], c[1], c[2], c[3][:-1] + [_flip(c[3][-1], 7)],
                                              c[4]),
    "flipped bit in the leaf": lambda c: (_flip(c[0]), c[1], c[2], c[3], c[4]),
    "extra hash at the end": lambda c: (c[0], c[1], c[2], c[3] + [c[3][0]], c[4]),
    "extra hash at the start": lambda c: (c[0], c[1], c[2], [c[3][0]] + c[3], c[4]),
    "missing last hash": lambda c: (c[0], c[1], c[2], c[3][:-1], c[4]),
    "missing first hash": lambda c: (c[0], c[1], c[2], c[3][1:], c[4]),
    "empty proof": lambda c: (c[0], c[1], c[2], [], c[4]),
    "two hashes swapped": lambda c: (c[0], c[1], c[2], [c[3][1], c[3][0]] + c[3][2:], c[4]),
    "index plus one": lambda c: (c[0], c[1] + 1, c[2], c[3], c[4]),
    "index minus one": lambda c: (c[0], c[1] - 1, c[2], c[3], c[4]),
    "index xor 2": lambda c: (c[0], c[1] ^ 2, c[2], c[3], c[4]),
    "index past the tree": lambda c: (c[0], c[2], c[2], c[3], c[4]),
    "negative index": lambda c: (c[0], -1, c[2], c[3], c[4]),
    # (a size that keeps the proof's shape, 12 or 14 here, proves nothing without the root of
    # that size: the signed checkpoint binds size and root, see test_logcheck)
    "size of another shape": lambda c: (c[0], c[1], 64, c[3], c[4]),
    "size doubled": lambda c: (c[0], c[1], c[2] * 2, c[3], c[4]),
    "size halved": lambda c: (c[0], c[1], c[2] // 2, c[3], c[4]),
    "size zero": lambda c: (c[0], c[1], 0, c[3], c[4]),
    "size zero, index zero, no proof": lambda c: (c[0], 0, 0, [], c[4]),
    "wrong root": lambda c: (c[0], c[1], c[2], c[3], _flip(c[4], 3)),
    "root of a smaller tree": lambda c: (c[0], c[1], c[2], c[3], TREE.root(12)),
    "empty root": lambda c: (c[0], c[1], c[2], c[3], EMPTY_ROOT),
    "leaf passed as the root": lambda c: (c[0], c[1], c[2], c[3], c[0]),
    "short hash in the proof": lambda c: (c[0], c[1], c[2], [c[3][0][:31]] + c[3][1:], c[4]),
}


def test_the_honest_inclusion_proof_passes() -> None:
    verify_inclusion(*HONEST_INCLUSION)


@pytest.mark.parametrize("name", INCLUSION_MUTATIONS)
def test_every_inclusion_mutation_fails(name: str) -> None:
    with pytest.raises(ProofError):
        verify_inclusion(*INCLUSION_MUTATIONS[name](HONEST_INCLUSION))


OLD, NEW = 6, 13
HONEST_CONSISTENCY = (OLD, NEW, TREE.root(OLD), TREE.root(NEW), TREE.consistency_proof(OLD, NEW))
Consistency = tuple[int, int, bytes, bytes, list[bytes]]
CONSISTENCY_MUTATIONS: dict[str, Callable[[Consistency], Consistency]] = {
    "flipped bit in proof[0]": lambda c: (c[0], c[1], c[2], c[3], [_flip(c[4][0])] + c[4][1:]),
    "flipped bit in the last hash": lambda c: (c[0], c[1], c[2], c[3],
                                              c[4][:-1] + [_flip(c[4][-1], 5)]),
    "extra hash": lambda c: (c[0], c[1], c[2], c[3], c[4] + [c[4][0]]),
    "extra hash first": lambda c: (c[0], c[1], c[2], c[3], [c[2]] + c[4]),
    "missing hash": lambda c: (c[0], c[1], c[2], c[3], c[4][:-1]),
    "missing first hash": lambda c: (c[0], c[1], c[2], c[3], c[4][1:]),
    "empty proof": lambda c: (c[0], c[1], c[2], c[3], []),
    "old size plus one": lambda c: (c[0] + 1, c[1], c[2], c[3], c[4]),
    "old size minus one": lambda c: (c[0] - 1, c[1], c[2], c[3], c[4]),
    "new size of another shape": lambda c: (c[0], 40, c[2], c[3], c[4]),
    "new size doubled": lambda c: (c[0], c[1] * 2, c[2], c[3], c[4]),
    "old size zero": lambda c: (0, c[1], c[2], c[3], c[4]),
    "both sizes zero": lambda c: (0, 0, c[2], c[3], c[4]),
    "old larger than new": lambda c: (c[1], c[0], c[3], c[2], c[4]),
    "wrong old root": lambda c: (c[0], c[1], _flip(c[2]), c[3], c[4]),
    "wrong new root": lambda c: (c[0], c[1], c[2], _flip(c[3]), c[4]),
    "roots swapped": lambda c: (c[0], c[1], c[3], c[2], c[4]),
    "one size, two roots": lambda c: (c[1], c[1], c[2], c[3], []),
}


def test_the_honest_consistency_proof_passes() -> None:
    verify_consistency(*HONEST_CONSISTENCY)
    verify_consistency(NEW, NEW, TREE.root(NEW), TREE.root(NEW), [])
    verify_consistency(0, NEW, EMPTY_ROOT, TREE.root(NEW), [])


@pytest.mark.parametrize("name", CONSISTENCY_MUTATIONS)
def test_every_consistency_mutation_fails(name: str) -> None:
    with pytest.raises(ProofError):
        verify_consistency(*CONSISTENCY_MUTATIONS[name](HONEST_CONSISTENCY))


def test_a_forked_tree_is_not_consistent() -> None:
    # the same first 6 leaves, then a different 7th: a fork after size 6
    fork = _tree([f"m{i}".encode() for i in range(6)] + [b"other"] + [b"x"] * 6)
    verify_consistency(6, 13, TREE.root(6), fork.root(13), fork.consistency_proof(6, 13))
    with pytest.raises(ProofError, match="old root"):
        verify_consistency(7, 13, TREE.root(7), fork.root(13), fork.consistency_proof(7, 13))
