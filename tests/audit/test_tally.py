"""The tally's counts against the straightforward computation, on real simulated matches.

Tally.add and Tally.merge take shortcuts (the first three items found by ``list.index``, flat
counts added by ``map``); these tests count the same matches the plain way, one item and one
entry at a time, and ask for exactly the same tally: every count, and every float sum to the
last bit (the same additions in the same order).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fairdeal.audit.facts import MatchFacts, match_facts
from fairdeal.audit.tally import TRIPLE_ORDERS, PlayerTally, Tally, dealt_order
from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.verify import verify_replayed


def _facts(items: list[tuple[str, bytes]]) -> list[tuple[MatchFacts, int]]:
    out = []
    for _, data in items:
        bundle = Bundle.from_bytes(data)
        report, replayer = verify_replayed(bundle)
        assert report.ok, report.failure
        facts = match_facts(bundle, replayer)
        if facts is not None:
            out.append((facts, bundle.genesis["ts"]))
    return out


@pytest.fixture(scope="module")
def facts(honest_corpus: list[tuple[str, bytes]]) -> list[tuple[MatchFacts, int]]:
    """Every game and deck of the honest corpus, and signed matches (seat keys)."""
    signed = SimulationSettings("toybattle", {}, ("random", "random"), signed_moves=True)
    items = [(f"signed-{i}", json.dumps(bundle).encode()) for i, bundle in
             enumerate(simulate_matches(signed, 6, seed="tally-signed", server_key=None))]
    return _facts([*honest_corpus, *items])


def plain_positions(facts: list[tuple[MatchFacts, int]]
                    ) -> tuple[dict[str, list[list[int]]], dict[str, list[int]]]:
    """Each order's item × position counts and first-three orders, one item at a time."""
    positions: dict[str, list[list[int]]] = {}
    triples: dict[str, list[int]] = {}
    for match, _ in facts:
        for name, order in match.orders.items():
            key = f"{match.deck_key}:{name}"
            items = list(dealt_order(match.deck_key, name).items)
            table = positions.setdefault(key, [[0] * len(order) for _ in items])
            for position, item in enumerate(order):
                table[items.index(item)][position] += 1
            wanted = items[:3]
            firsts: dict[Any, int] = {}
            for position, item in enumerate(order):
                if item in wanted and item not in firsts:
                    firsts[item] = position
            ranked = tuple(sorted(range(3), key=lambda i: firsts[wanted[i]]))
            triples.setdefault(key, [0] * len(TRIPLE_ORDERS))[TRIPLE_ORDERS.index(ranked)] += 1
    return positions, triples


def plain_add(into: Any, other: Any) -> Any:
    """Counts added entry by entry, nested lists and dicts alike."""
    if isinstance(other, list):
        assert len(into) == len(other)
        return [plain_add(mine, theirs) for mine, theirs in zip(into, other, strict=True)]
    if isinstance(other, dict):
        return {key: plain_add(into[key], other[key]) if key in into and key in other
                else into.get(key, other.get(key)) for key in {**into, **other}}
    return into + other


def test_the_orders_are_counted_as_one_item_at_a_time(
        facts: list[tuple[MatchFacts, int]]) -> None:
    tally = Tally()
    for match, ts in facts:
        tally.add(match, ts)
    positions, triples = plain_positions(facts)
    assert {match.deck_key for match, _ in facts} >= {
        "arcomage/normal", "arcomage/infinite", "toybattle", "wyrdstone"}
    assert positions and tally.positions == positions
    assert tally.triples == triples
    # every order's first three were found: each match counted once in its triple
    for key, counts in triples.items():
        assert sum(counts) == sum(row[0] for row in positions[key])


def test_merged_tallies_are_the_counts_added_entry_by_entry(
        facts: list[tuple[MatchFacts, int]]) -> None:
    parts = []
    for start in range(0, len(facts), 37):
        part = Tally()
        for match, ts in facts[start:start + 37]:
            part.add(match, ts)
        parts.append(part)
    assert len(parts) > 5
    merged = Tally()
    for part in parts:
        merged.merge(part)
    fields = ("first", "positions", "triples", "draws", "picks", "seat_z", "seat_diff",
              "seeds")
    expected: dict[str, Any] = {name: {} for name in fields}
    expected["seeds"] = [0, 0, 0]
    for part in parts:
        for name in fields:
            expected[name] = plain_add(expected[name], getattr(part, name))
    for name in fields:
        assert getattr(merged, name) == expected[name], name
    assert merged.picks and merged.draws and merged.keys  # the corpus has each kind
    for kid, player in merged.keys.items():
        z_hist = [0] * len(player.z_hist)
        for part in parts:
            if kid in part.keys:
                z_hist = plain_add(z_hist, part.keys[kid].z_hist)
        assert player.z_hist == z_hist
    # and the merged tally is the one a single tally of every match gives, field by field
    whole = Tally()
    for match, ts in facts:
        whole.add(match, ts)
    integral = ("matches", "first", "positions", "triples", "draws", "picks", "seeds", "span",
                "seat_raw", "key_names")
    for name in integral:
        assert getattr(merged, name) == getattr(whole, name), name


@pytest.mark.parametrize("mine, theirs", [
    ({"first": {"arcomage": [1, 2]}}, {"first": {"arcomage": [1, 2, 3]}}),
    ({"first": {"arcomage": [1, 2, 3]}}, {"first": {"arcomage": [1, 2]}}),
    ({"positions": {"k:deck": [[1, 2], [3, 4]]}}, {"positions": {"k:deck": [[1, 2], [3]]}}),
    ({"positions": {"k:deck": [[1, 2], [3, 4]]}}, {"positions": {"k:deck": [[1, 2]]}}),
    ({"seeds": [1, 2, 3]}, {"seeds": [1, 2]}),
])
def test_counts_of_different_sizes_are_refused_not_truncated(
        mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    into = Tally(**mine)
    with pytest.raises(ValueError, match="cannot add counts of"):
        into.merge(Tally(**theirs))


def test_a_players_histograms_of_different_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot add counts of 3 entries into counts of 32"):
        PlayerTally().merge(PlayerTally(z_hist=[1, 2, 3]))
