"""The examples in the package's docstrings run and hold."""

from __future__ import annotations

import doctest

import pytest

from ...sources import source_module

MODULES = ["", ".book", ".bots", ".game", ".params", ".render", ".state"]


@pytest.mark.parametrize("name", MODULES, ids=lambda name: name or "__init__")
def test_docstring_examples(name: str) -> None:
    module = source_module("fairdeal.games.wyrdstone" + name)
    failed, attempted = doctest.testmod(module)
    assert attempted > 0 and failed == 0
