"""The audit's per-player tests name players by the key they sign with (issue 21): a seat that
registered a key counts for its key, whatever name it typed (the names are the key's labels);
a seat without a key counts for its name, as before. Real matches from the real ledger."""

from __future__ import annotations

import itertools

import pytest

from fairdeal.audit import Filters, add_ledger_counts, audit_bundles, key_figures, run_tests
from fairdeal.audit.report import build_report
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey

from ..keyed import ANN, BOB, keyed_match


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Ledger:
    """ann's key: 22 sealed matches, half as "ann", half as "annie", against bob (no key);
    one more left unsealed; and one match of bob's key against "ann" with no key."""
    folder = tmp_path_factory.mktemp("audit-keys")
    clock = itertools.count(1_800_000_000_000, 1000)
    ledger = Ledger(EventStore(open_engine(f"sqlite:///{folder / 'ledger.db'}")),
                    SigningKey.from_seed(b"\x0b" * 32), clock=lambda: next(clock))
    for n in range(22):
        keyed_match(ledger, ("ann" if n % 2 else "annie", "bob"), (ANN, None), loser=n % 2)
    keyed_match(ledger, ("ann", "bob"), (ANN, None), loser=None)
    keyed_match(ledger, ("ann", "bob"), (None, BOB), loser=0)
    return ledger


def _tally(ledger: Ledger, filters: Filters):
    tally = audit_bundles(ledger.sealed_bundles(), filters)
    add_ledger_counts(tally, ledger.player_counts(), filters)
    return tally


def test_a_key_is_one_player_whatever_its_names(ledger: Ledger) -> None:
    tally = _tally(ledger, Filters())
    assert set(tally.keys) == {ANN.key_id, BOB.key_id}
    assert tally.keys[ANN.key_id].matches == 22
    assert tally.key_names[ANN.key_id] == {"ann": 11, "annie": 11}
    # the seats without a key count for their names: bob 22 times, "ann" once (bob's match)
    assert tally.players["bob"].matches == 22 and tally.players["ann"].matches == 1
    assert "annie" not in tally.players
    first = next(r for r in run_tests(tally) if r.name == "player-first")
    # by name neither "ann" nor "annie" reaches 20 matches; by key, ann's does
    assert first.counted == "2 players with 20+ matches"
    assert "seat key" in first.title
    label = f"key {ANN.key_id} (as ann, annie)"
    assert label in tally.identities()


def test_unsealed_matches_count_for_the_key(ledger: Ledger) -> None:
    by_name, by_key = ledger.player_counts()
    assert by_key[ANN.key_id] == (23, 1)
    assert by_key[BOB.key_id] == (1, 0)
    assert by_name["bob"] == (23, 1)  # bob's unkeyed seats; his keyed one counts for his key
    assert "annie" not in by_name and by_name.get("ann", (0, 0))[0] == 1


def test_the_audit_of_one_key(ledger: Ledger) -> None:
    filters = Filters(seat_key=ANN.key_id)
    tally = _tally(ledger, filters)
    assert tally.matches == 22 and tally.skipped == 1  # bob's keyed match is not ann's key's
    assert set(tally.keys) == {ANN.key_id}
    report = build_report(tally, filters, "test").to_json()
    assert report["filters"] == f"seat key {ANN.key_id}"
    assert report["seat_keys"][ANN.key_id]["names"] == {"ann": 11, "annie": 11}
    assert report["seat_keys"][ANN.key_id]["unsealed"] == 1
    figures = {t.name: t for t in key_figures(tally.keys[ANN.key_id], 0.5)}
    assert figures["key-first"].verdict in ("PASS", "FAIL")
    assert figures["key-first"].counted == "22 matches"
    assert figures["key-unsealed"].detail.startswith("1 of 23 never sealed")
    with pytest.raises(ValueError, match="16 lowercase hex"):
        Filters(seat_key="c4b9").check()
