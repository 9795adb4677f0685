"""Honest matches (fixed seeds, so deterministic) pass every test, however the work is split."""

from __future__ import annotations

import pytest

from fairdeal.audit import Filters, audit_bundles, run_tests
from fairdeal.audit.report import build_report

from .conftest import START_MS, resigned_bundles


def test_every_test_passes_on_honest_matches(honest_corpus: list[tuple[str, bytes]]) -> None:
    tally = audit_bundles(honest_corpus)
    assert tally.failures == []
    assert tally.matches == len(honest_corpus)
    results = run_tests(tally)
    verdicts = {r.name: r.verdict for r in results}
    assert "FAIL" not in verdicts.values(), [r for r in results if r.verdict == "FAIL"]
    # the tests the issue lists all ran on this corpus
    for name in ("deal-position arcomage/normal deck", "deal-position toybattle blue",
                 "deal-order arcomage/normal deck", "draws arcomage/infinite",
                 "picks wyrdstone", "seat-hands arcomage/normal", "first-mover toybattle",
                 "player-hands", "player-first", "seed-bits", "seed-runs"):
        assert verdicts[name] == "PASS", name
    assert build_report(tally).exit_code == 0


def test_worker_processes_give_the_same_counts(honest_corpus: list[tuple[str, bytes]]) -> None:
    part = honest_corpus[:140]
    serial = audit_bundles(part)
    spread = audit_bundles(iter(part), workers=2, chunk=37)
    assert spread.matches == serial.matches
    assert spread.positions == serial.positions
    assert spread.seat_z.keys() == serial.seat_z.keys()
    assert spread.seeds == serial.seeds
    assert {k: v.first for k, v in spread.players.items()} == \
        {k: v.first for k, v in serial.players.items()}


def test_a_dask_cluster_gives_the_same_counts(honest_corpus: list[tuple[str, bytes]]) -> None:
    distributed = pytest.importorskip("distributed")
    part = honest_corpus[:60]
    serial = audit_bundles(part)
    # a real scheduler on a loopback TCP port, the address --dask takes; workers in-process
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        on_dask = audit_bundles(iter(part), dask_address=cluster.scheduler_address, chunk=50)
    assert on_dask.matches == serial.matches
    assert on_dask.positions == serial.positions
    assert on_dask.seeds == serial.seeds


def test_filters_choose_the_matches() -> None:
    corpus = [*resigned_bundles("arcomage", 20, seed=3, players=("ann", "bob", "cy")),
              *resigned_bundles("arcomage", 10, seed=4, params={"deck": "infinite",
                                                                 "battlefield": "free-steppe"}),
              *resigned_bundles("toybattle", 10, seed=5, params={"board": "castle-field"})]
    toy = audit_bundles(corpus, Filters(game="toybattle"))
    assert toy.matches == 10 and set(toy.first) == {"toybattle"}
    assert audit_bundles(corpus, Filters(deck="infinite")).matches == 10
    cy = audit_bundles(corpus, Filters(player="cy"))
    assert cy.matches == sum(b"cy" in data for _, data in corpus[:20])
    assert cy.skipped == len(corpus) - cy.matches
    assert audit_bundles(corpus, Filters(board="Free Steppe")).matches == 10
    assert audit_bundles(corpus, Filters(board="CASTLE-FIELD")).matches == 10
    assert audit_bundles(corpus, Filters(since=START_MS + 60_000 * 5,
                                         until=START_MS + 60_000 * 8)).matches == 9


def test_a_filter_that_can_never_match_is_refused() -> None:
    with pytest.raises(ValueError, match="deck 'short'"):
        audit_bundles([], Filters(deck="short"))
    with pytest.raises(ValueError, match="date range is empty"):
        audit_bundles([], Filters(since=5, until=5))
