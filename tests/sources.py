"""A module's Python source as a module object, whichever build is installed.

doctest finds the examples of a module by walking its functions and classes; in the compiled
build (docs/compiled.md) those are built-ins, which carry no examples to find. The docstring
tests run the examples on the source instead: the ``.py`` file loaded under a private name
beside the real module, in the same package, so its relative imports reach the same siblings
(compiled or not) and nothing else is replaced.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import ModuleType


def source_module(name: str) -> ModuleType:
    """The module ``name`` executed from its ``.py`` source (the real one stays imported)."""
    real = importlib.import_module(name)
    if hasattr(real, "__path__"):
        return real  # a package: its __init__ is never compiled
    # beside the module in its package's folder (a compiled module's own __file__ names the
    # build's shared library's folder, so it is not asked)
    package, _, leaf = name.rpartition(".")
    path = os.path.join(importlib.import_module(package).__path__[0], leaf + ".py")
    private = f"{name}__source"
    loaded = sys.modules.get(private)
    if loaded is not None:
        return loaded
    source_spec = importlib.util.spec_from_file_location(private, path)
    assert source_spec is not None and source_spec.loader is not None, path
    module = importlib.util.module_from_spec(source_spec)
    module.__package__ = real.__package__
    sys.modules[private] = module  # dataclasses and typing look the module up by name
    source_spec.loader.exec_module(module)
    return module
