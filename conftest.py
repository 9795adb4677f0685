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

#: the slowest modules, slowest first (the sum of their tests' durations, measured on 2026-12-04
#: with pytest's --durations over the modules measured slowest before and the other browser and
#: process modules, in one process); the others follow in their collected order
SLOWEST = (
    "tests/web/viewer/test_browser_verify.py",
    "tests/web/api/test_server_process.py",
    "tests/test_readme.py",
    "tests/test_packaging.py",
    "tests/web/viewer/test_browser.py",
    "tests/web/viewer/test_bytecode_cache.py",
    "tests/web/viewer/test_browser_snags.py",
    "tests/web/api/test_log_workers.py",
    "tests/test_demo.py",
    "tests/test_compiled.py",
    "tests/web/viewer/test_browser_phone.py",
    "tests/web/api/test_stream.py",
    "tests/web/api/test_fastpath_servers.py",
    "tests/verifier/test_canonical.py",
    "tests/web/viewer/test_without_npm.py",
    "tests/cli/test_verify_cli.py",
    "tests/adversary/test_receipts_bound.py",
    "tests/client/test_tournament_client.py",
    "tests/hostile/test_faults.py",
    "tests/web/viewer/test_audit_imported.py",
    "tests/ledger/test_tournaments.py",
    "tests/web/api/test_stream_servers.py",
    "examples/crazy-eights/tests/test_live.py",
    "tests/cli/test_watch_cli.py",
    "tests/hostile/test_fuzz_short.py",
    "tests/web/viewer/test_browser_keys.py",
    "tests/verifier/test_ed25519.py",
    "tests/web/viewer/test_fixtures.py",
    "tests/ledger/test_tlog.py",
    "tests/web/viewer/test_live_stream.py",
    "tests/hostile/test_int_bounds.py",
    "tests/audit/test_memory.py",
    "tests/web/viewer/test_browser_gif_share.py",
    "tests/web/viewer/test_tournament_pages_browser.py",
    "tests/web/viewer/test_browser_audit.py",
    "tests/ledger/test_tournament_verified.py",
    "tests/ledger/test_tournament_keys.py",
)
RANK = {path: rank for rank, path in enumerate(SLOWEST)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest modules first; a stable sort, so the rest keep their order. Every worker
    sorts the same collection alike, as xdist requires."""
    items.sort(key=lambda item: RANK.get(item.nodeid.split("::", 1)[0], len(SLOWEST)))
