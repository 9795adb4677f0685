"""The examples in the viewer's docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["animation", "matches", "page", "present", "preview", "sources"])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"fairdeal.web.viewer.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
