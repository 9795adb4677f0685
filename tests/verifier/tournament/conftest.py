"""The tournament tests' fixtures: fixtures/tournaments/make.py (the honest tournaments, played
by bots with the players' keys) loaded as a module, and one small round-robin played once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parents[3]


def load_make() -> ModuleType:
    """fixtures/tournaments/make.py, imported once."""
    if "tournament_make" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "tournament_make", ROOT / "fixtures" / "tournaments" / "make.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["tournament_make"] = module
        spec.loader.exec_module(module)
    return sys.modules["tournament_make"]


@pytest.fixture(scope="session")
def make() -> ModuleType:
    return load_make()
