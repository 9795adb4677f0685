"""RFC 9162 Merkle trees: hashing, inclusion and consistency proofs. Pure: bytes in, bytes out.

    leaf_hash(data)      = SHA-256(0x00 ‖ data)
    node_hash(left, right) = SHA-256(0x01 ‖ left ‖ right)

The tree over n leaves splits at the largest power of two below n (RFC 9162 section 2.1.1), so
every tree is a row of *complete* subtrees, and every subtree a proof needs is either complete
(a node a log stores once and never changes) or the right edge, folded from complete ones.
Nodes are named ``(level, index)``: the node at level k, index i covers leaves
[i·2^k, (i+1)·2^k). The proof builders below name the nodes they need (``*_nodes``), so a store
can fetch them in one query, then ``fold`` them; ``MemoryTree`` does that from a dict.

Verification follows RFC 9162 sections 2.1.3.2 and 2.1.4.2 step by step and raises
``ProofError`` with a short, stable message; it never returns False.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence

from .errors import FairdealError

__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "MemoryTree",
    "Node",
    "ProofError",
    "consistency_nodes",
    "fold",
    "frontier",
    "inclusion_nodes",
    "leaf_hash",
    "new_nodes",
    "node_hash",
    "root_nodes",
    "verify_consistency",
    "verify_inclusion",
]

HASH_SIZE = 32
#: the root of the empty tree: SHA-256 of the empty string (RFC 9162 section 2.1.1)
EMPTY_ROOT = hashlib.sha256(b"").digest()

#: (level, index): the complete subtree over leaves [index·2^level, (index+1)·2^level)
Node = tuple[int, int]


class ProofError(FairdealError):
    """A proof that does not prove what it claims; the message says which step refused it."""


def leaf_hash(data: bytes) -> bytes:
    """The hash of one leaf's bytes."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an interior node from its two children."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(size: int) -> int:
    """The largest power of two strictly below ``size`` (size >= 2)."""
    return 1 << ((size - 1).bit_length() - 1)


# --- which nodes a tree, a proof or an append needs -----------------------------------------

def _range_nodes(start: int, end: int) -> list[Node]:
    """The complete subtrees that make up leaves [start, end), left to right. ``start`` is
    aligned the way RFC 9162's recursion leaves it (a multiple of the largest piece)."""
    nodes = []
    while start < end:
        level = (end - start).bit_length() - 1
        # the largest aligned piece that fits: limited by the alignment of start too
        while start % (1 << level):
            level -= 1
        nodes.append((level, start >> level))
        start += 1 << level
    return nodes


def frontier(size: int) -> list[Node]:
    """The complete subtrees of a tree of ``size`` leaves, left to right (one per set bit)."""
    return _range_nodes(0, size)


def root_nodes(size: int) -> list[Node]:
    """The nodes ``fold`` turns into the root of a tree of ``size`` leaves (size >= 1)."""
    return frontier(size)


def fold(hashes: Sequence[bytes]) -> bytes:
    """The hash of a row of complete subtrees, left to right, each at most as large as the one
    before it: the right edge of an RFC 9162 tree, folded from the right."""
    if not hashes:
        raise ValueError("nothing to fold")
    result = hashes[-1]
    for left in reversed(hashes[:-1]):
        result = node_hash(left, result)
    return result


def new_nodes(size: int) -> tuple[list[Node], list[Node]]:
    """Appending leaf number ``size``: the stored nodes it needs (its left siblings, from the
    bottom up) and the nodes it completes (its own leaf first, then upwards)."""
    needs: list[Node] = []
    makes: list[Node] = [(0, size)]
    level, index = 0, size
    while index & 1:
        needs.append((level, index - 1))
        level, index = level + 1, index >> 1
        makes.append((level, index))
    return needs, makes


def inclusion_nodes(index: int, size: int) -> list[list[Node]]:
    """The proof of leaf ``index`` in a tree of ``size`` leaves (RFC 9162 PATH), as one group
    of nodes per proof hash, leaf side first; ``fold`` each group to get the hash."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    groups: list[list[Node]] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index - start < k:
            groups.append(_range_nodes(start + k, end))
            end = start + k
        else:
            groups.append(_range_nodes(start, start + k))
            start += k
    groups.reverse()
    return groups


def consistency_nodes(old: int, new: int) -> list[list[Node]]:
    """The proof that a tree of ``old`` leaves is a prefix of one of ``new`` leaves (RFC 9162
    PROOF / SUBPROOF), as groups of nodes to ``fold``. Empty when old is 0 or equals new."""
    if not 0 <= old <= new:
        raise ValueError(f"no consistency proof from size {old} to size {new}")
    if old in (0, new):
        return []
    groups: list[list[Node]] = []
    start, end, whole = 0, new, True
    remaining = old  # how many of the old tree's leaves lie in [start, end)
    while remaining != end - start:
        k = _split(end - start)
        if remaining <= k:
            groups.append(_range_nodes(start + k, end))
            end = start + k
        else:
            groups.append(_range_nodes(start, start + k))
            start, remaining, whole = start + k, remaining - k, False
    if not whole:
        groups.append(_range_nodes(start, end))
    groups.reverse()
    return groups


def _check_hash(value: bytes, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != HASH_SIZE:
        raise ProofError(f"{what} is not a {HASH_SIZE}-byte hash")


# --- verification: RFC 9162 sections 2.1.3.2 and 2.1.4.2 ------------------------------------

def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes],
                     root: bytes) -> None:
    """Check that the leaf hash ``leaf`` sits at ``index`` in the tree of ``size`` leaves whose
    root is ``root``. Raises ProofError; returns nothing."""
    _check_hash(leaf, "the leaf hash")
    _check_hash(root, "the root hash")
    for position, item in enumerate(proof):
        _check_hash(item, f"proof hash {position}")
    # (1) the index must lie inside the tree
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is outside a tree of {size} leaves")
    # (2) fn, sn, r
    fn, sn, r = index, size - 1, leaf
    # (3) climb, one proof hash per level that has a sibling
    for item in proof:
        if sn == 0:
            raise ProofError("the inclusion proof has more hashes than the tree has levels")
        if fn & 1 or fn == sn:
            r = node_hash(item, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, item)
        fn >>= 1
        sn >>= 1
    # (4) every level used, and the root reached
    if sn != 0:
        raise ProofError("the inclusion proof has fewer hashes than the tree has levels")
    if r != root:
        raise ProofError("the inclusion proof does not lead to the root hash")


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes,
                       proof: Sequence[bytes]) -> None:
    """Check that the tree of ``old_size`` leaves with ``old_root`` is a prefix of the tree of
    ``new_size`` leaves with ``new_root``. Raises ProofError; returns nothing."""
    _check_hash(old_root, "the old root hash")
    _check_hash(new_root, "the new root hash")
    for position, item in enumerate(proof):
        _check_hash(item, f"proof hash {position}")
    if not 0 <= old_size <= new_size:
        raise ProofError(f"a tree of {new_size} leaves cannot extend one of {old_size}")
    if old_size == new_size:
        if proof:
            raise ProofError("two trees of one size need an empty consistency proof")
        if old_root != new_root:
            raise ProofError(f"two different roots for one tree size {old_size}")
        return
    if old_size == 0:
        if proof:
            raise ProofError("consistency with the empty tree needs an empty proof")
        if old_root != EMPTY_ROOT:
            raise ProofError("the empty tree's root is not SHA-256 of nothing")
        return
    # (1) a proof between two different non-empty sizes is never empty
    if not proof:
        raise ProofError("the consistency proof is empty")
    path = list(proof)
    # (2) when the old tree is a complete subtree, its root is the first node of the path
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    # (3), (4)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    # (5)
    fr = sr = path[0]
    # (6)
    for item in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof has more hashes than the tree has levels")
        if fn & 1 or fn == sn:
            fr = node_hash(item, fr)
            sr = node_hash(item, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, item)
        fn >>= 1
        sn >>= 1
    # (7)
    if sn != 0:
        raise ProofError("the consistency proof has fewer hashes than the tree has levels")
    if fr != old_root:
        raise ProofError("the consistency proof does not lead to the old root hash")
    if sr != new_root:
        raise ProofError("the consistency proof does not lead to the new root hash")


# --- an in-memory tree: tests, benchmarks and anyone's reference -------------------------------

class MemoryTree:
    """An append-only tree of complete nodes in a dict: the same node layout a log stores.

    >>> tree = MemoryTree()
    >>> tree.append(b"a"); tree.append(b"b")
    0
    1
    >>> tree.root() == node_hash(leaf_hash(b"a"), leaf_hash(b"b"))
    True
    """

    def __init__(self) -> None:
        self.nodes: dict[Node, bytes] = {}
        self.size = 0

    def append(self, data: bytes) -> int:
        """Add a leaf's bytes; return its index."""
        return self.append_hash(leaf_hash(data))

    def append_hash(self, digest: bytes) -> int:
        """Add a leaf by its hash; return its index."""
        index = self.size
        self.nodes.update(zip(*_completed(index, digest, self.nodes.__getitem__), strict=True))
        self.size += 1
        return index

    def root(self, size: int | None = None) -> bytes:
        """The root of the tree's first ``size`` leaves (all of them by default)."""
        size = self.size if size is None else size
        if not 0 <= size <= self.size:
            raise ValueError(f"no tree of size {size}: the log has {self.size} leaves")
        return EMPTY_ROOT if size == 0 else fold([self.nodes[n] for n in root_nodes(size)])

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        size = self.size if size is None else size
        return _fill(inclusion_nodes(index, size), self.nodes)

    def consistency_proof(self, old: int, new: int | None = None) -> list[bytes]:
        new = self.size if new is None else new
        return _fill(consistency_nodes(old, new), self.nodes)


def _completed(index: int, digest: bytes,
               stored: Callable[[Node], bytes]) -> tuple[list[Node], list[bytes]]:
    """The nodes appending the leaf ``digest`` at ``index`` completes, and their hashes."""
    needs, makes = new_nodes(index)
    hashes = [digest]
    for sibling in needs:
        hashes.append(node_hash(stored(sibling), hashes[-1]))
    return makes, hashes


def completed_nodes(index: int, digest: bytes,
                    siblings: Mapping[Node, bytes]) -> list[tuple[Node, bytes]]:
    """What a store writes when leaf ``digest`` is appended at ``index``, given the stored
    left siblings ``new_nodes(index)[0]`` names."""
    makes, hashes = _completed(index, digest, siblings.__getitem__)
    return list(zip(makes, hashes, strict=True))


def _fill(groups: Iterable[Sequence[Node]], nodes: Mapping[Node, bytes]) -> list[bytes]:
    return [fold([nodes[node] for node in group]) for group in groups]
