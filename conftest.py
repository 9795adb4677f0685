"""The suite's schedule (issue 20): the slowest test modules first.

`make test` hands the tests to two pytest-xdist workers (``--dist worksteal``): each starts on
its half of the collected list, and whichever runs out takes half of what the other has left.
So the run ends when the last test taken ends: collected in file order, that was a browser or
process test of half a minute from tests/web/ (the end of the list), run alone while the other
core idled. Collected slowest module first, the last tests taken are the quick ones. Each
module's tests keep their order, and stay together, so module fixtures (a Chromium, a server)
still start once per module and worker.
"""

from __future__ import annotations

import pytest

#: the slowest modules, slowest first (the sum of their tests' durations in `make test`, measured
#: on 2026-12-03 with pytest's --durations); the others follow in their collected order
SLOWEST = (
    "tests/web/api/test_server_process.py",
    "tests/web/viewer/test_browser_verify.py",
    "tests/web/viewer/test_audit_imported.py",
    "tests/test_compiled.py",
    "tests/web/viewer/test_browser_snags.py",
    "tests/web/viewer/test_without_npm.py",
    "tests/hostile/test_int_bounds.py",
    "tests/web/viewer/test_bytecode_cache.py",
    "tests/web/api/test_stream.py",
    "tests/web/api/test_log_workers.py",
    "tests/web/viewer/test_browser.py",
    "tests/test_readme.py",
    "tests/web/viewer/test_browser_phone.py",
    "tests/ledger/test_tournament_verified.py",
    "tests/client/test_tournament_client.py",
    "examples/crazy-eights/tests/test_live.py",
    "tests/adversary/test_receipts_bound.py",
    "tests/web/viewer/test_fixtures.py",
    "tests/ledger/test_tournaments.py",
    "tests/test_packaging.py",
    "tests/cli/test_watch_cli.py",
    "tests/cli/test_verify_cli.py",
    "tests/ledger/test_tournament_keys.py",
    "tests/ledger/test_tlog.py",
    "tests/ledger/test_tournament_finish.py",
    "tests/hostile/test_fuzz_short.py",
    "tests/verifier/test_ed25519.py",
    "tests/verifier/test_canonical.py",
)
RANK = {path: rank for rank, path in enumerate(SLOWEST)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest modules first; a stable sort, so the rest keep their order. Every worker
    sorts the same collection alike, as xdist requires."""
    items.sort(key=lambda item: RANK.get(item.nodeid.split("::", 1)[0], len(SLOWEST)))
