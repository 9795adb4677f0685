"""verifier.logscan: leaves in, findings out. Each finding the monitor raises, from leaves alone;
the scan kept across runs (its state) gives the same findings as one scan of the whole log; a
damaged state is refused in words; the frontier's root is the tree's."""

from __future__ import annotations

import pytest

from fairdeal.verifier.logleaf import seal_leaf
from fairdeal.verifier.logscan import LogScan, ScanError
from fairdeal.verifier.merkle import MemoryTree


def genesis(match_id: str) -> bytes:
    return (b'{"event":"' + b"0" * 64 + b'","game":"arcomage","kind":"genesis","leaf":'
            b'"fairdeal.log/1","match_id":"' + match_id.encode() + b'","seats":["a","b"],'
            b'"ts":1}')


def scan(leaves: list[bytes], every: int = 0) -> tuple[LogScan, list[tuple[int, str, int | None]]]:
    """Scan ``leaves``; with ``every``, reload the state from JSON every that many leaves."""
    state, found = LogScan(), []
    for index, body in enumerate(leaves):
        findings, _ = state.add(index, body)
        found += [(f.index, f.message, f.other) for f in findings]
        if every and index % every == 0:
            state = LogScan.from_json(state.to_json())
    return state, found


def test_an_honest_log_raises_nothing_and_its_root_is_the_tree_s() -> None:
    leaves = [genesis("m1"), genesis("m2"), seal_leaf("m1", 9, "ab" * 32, 0),
              seal_leaf("m2", 9, "ab" * 32)]  # an old-format seal closes its match's genesis
    state, found = scan(leaves)
    assert found == [] and state.counts() == (2, 2)
    tree = MemoryTree()
    for body in leaves:
        tree.append(body)
    assert state.root() == tree.root()


def test_a_match_id_dealt_twice_is_found_with_both_leaves() -> None:
    _, found = scan([genesis("m"), genesis("x"), genesis("m"), seal_leaf("m", 9, "ab" * 32, 2)])
    assert found == [
        (2, "match 'm' has a second genesis leaf 2; its first is leaf 0: the server dealt this "
            "match id twice", 0),
        (3, "seal leaf 3 of match 'm' names genesis leaf 2, which is not the match's genesis "
            "(leaf 0)", 2)]


@pytest.mark.parametrize(("leaves", "message"), [
    ([seal_leaf("m", 9, "ab" * 32)],
     "seal leaf 0 of match 'm' closes no genesis leaf: the log holds no genesis of this match "
     "before it"),
    ([genesis("m"), seal_leaf("m", 9, "ab" * 32, 0), seal_leaf("m", 9, "ab" * 32, 0)],
     "match 'm' is sealed twice: seal leaves 1 and 2"),
    ([genesis("m"), b"not json"],
     "leaf 1 is not a fairdeal log leaf: a log leaf is canonical JSON"),
    ([genesis("m"), b'{"event":"e","genesis":true,"kind":"seal","leaf":"fairdeal.log/2",'
                    b'"match_id":"m","seq":1}'],
     "leaf 1 is not a fairdeal log leaf: a seal leaf of format 'fairdeal.log/2' names the index "
     "of its genesis leaf (an integer from 0)"),
])
def test_each_leaf_no_honest_log_holds_is_found(leaves: list[bytes], message: str) -> None:
    _, found = scan(leaves)
    assert [text for _, text, _ in found] == [message]


def test_a_scan_kept_across_runs_finds_what_one_scan_finds() -> None:
    leaves = [genesis(f"m{i % 7}") if i % 3 else seal_leaf(f"m{i % 5}", 1, "ab" * 32)
              for i in range(40)]
    whole, found = scan(leaves)
    kept, found_kept = scan(leaves, every=3)
    assert found == found_kept and whole.root() == kept.root() and found


@pytest.mark.parametrize(("state", "message"), [
    ([], "the scan is not an object"),
    ({"size": -1, "frontier": [], "matches": {}}, "size is not a leaf count"),
    ({"size": 3, "frontier": ["00" * 32], "matches": {}}, "frontier is not 2 hashes"),
    ({"size": 1, "frontier": ["zz"], "matches": {}}, "not hex hashes"),
    ({"size": 1, "frontier": ["00" * 32], "matches": {"m": [5, None]}},
     "entry for match 'm' is not"),
])
def test_a_damaged_state_is_refused_in_words(state: object, message: str) -> None:
    with pytest.raises(ScanError, match=message):
        LogScan.from_json(state)
    with pytest.raises(ScanError, match="leaf 3 given where leaf 0 is next"):
        LogScan().add(3, genesis("m"))
