"""Memory stays bounded however many matches: a generator of 40,000 matches goes through the
audit, and the memory held after the first 10,000 does not grow with the other 30,000 (a block
kept per match would be 30,000 blocks). ``make test-long`` runs 100,000
(FAIRDEAL_AUDIT_MATCHES).

Memory is measured by the interpreter's count of allocated blocks and the process's peak
resident size, both free to read (tracemalloc slows every allocation several times over, which
would make this run minutes long on a loaded machine)."""

from __future__ import annotations

import gc
import os
import resource
import sys
from collections.abc import Iterator

from fairdeal.audit import Filters, audit_bundles

from .conftest import resigned_bundles

TOTAL = int(os.environ.get("FAIRDEAL_AUDIT_MATCHES", "40000"))
#: one match in this many is a counted player's; the rest are parsed, checked and filtered out,
#: so the run stays quick while every match still passes through the pipeline
COUNTED_EVERY = 50


def _matches(counted: list[bytes], others: list[bytes]) -> Iterator[tuple[str, bytes]]:
    for index in range(TOTAL):
        if index % COUNTED_EVERY == 0:
            yield f"m{index}", counted[(index // COUNTED_EVERY) % len(counted)]
        else:
            yield f"m{index}", others[index % len(others)]


def test_a_generator_of_many_matches_runs_in_bounded_memory() -> None:
    counted = [data for _, data in resigned_bundles("arcomage", 40, seed=31,
                                                     players=("watched", "rival"))]
    others = [data for _, data in resigned_bundles("arcomage", 10, seed=32)]
    seen = 0
    early: tuple[int, int] | None = None

    def held() -> tuple[int, int]:
        gc.collect()
        return sys.getallocatedblocks(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def progress(done: int) -> None:
        nonlocal seen, early
        seen += done
        if early is None and seen >= 10_000:
            early = held()

    tally = audit_bundles(_matches(counted, others), Filters(player="watched"),
                          chunk=500, progress=progress)
    blocks, peak_kib = held()
    assert seen == TOTAL
    assert tally.matches == TOTAL // COUNTED_EVERY
    assert tally.skipped == TOTAL - TOTAL // COUNTED_EVERY
    assert early is not None
    # the matches after the first 10,000 add nothing that is kept: a few hundred
    # blocks at most (interned strings, caches), and no growth of the peak beyond 4 MiB
    assert blocks - early[0] < 2_000, (early, blocks)
    assert peak_kib - early[1] < 4 * 1024, (early, peak_kib)
