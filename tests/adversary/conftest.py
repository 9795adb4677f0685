"""Fixtures of the adversarial suite: the real ledger on a real SQLite file, its clock and the
server key the cheater holds. The cheater's tools are in cheats.py; the Hypothesis profiles of
the adversary property (test_property.py) and its tally are in campaign.py, whose summary line
ends the run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import campaign  # noqa: E402
from cheats import Clock  # noqa: E402

from fairdeal.ledger.service import Ledger  # noqa: E402
from fairdeal.verifier.keys import SigningKey  # noqa: E402


def pytest_terminal_summary(terminalreporter: Any) -> None:
    line = campaign.summary()
    if line is not None:
        terminalreporter.write_line(line)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ledger(tmp_path: Path, clock: Clock) -> Ledger:
    """The real ledger on a real SQLite file, with the test's clock."""
    return Ledger.open(tmp_path, clock=clock)


@pytest.fixture
def server_key(ledger: Ledger) -> SigningKey:
    """The cheater has it: the server's own key."""
    return ledger.server_key
