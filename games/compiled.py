"""Which build of games/, verifier/ and audit/ runs: the mypyc-compiled one, or the pure-Python
source.

The compiled build (setup.py, docs/compiled.md) places an extension module beside each source
file it compiled, and the import system prefers an extension to a ``.py`` of the same name. So
``FAIRDEAL_PURE=1`` installs a finder, ahead of the others, that finds the modules of those three
packages from their ``.py`` source only. Importing this module chooses: games/'s ``__init__``
imports it before any module of its own, verifier/'s and audit/'s import it first too; it is
never compiled.

>>> build_name() in ("compiled (mypyc)", "pure Python")
True
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TypeVar

__all__ = ["PURE_ENV", "build_name", "choose_build", "is_compiled", "mypyc_attr",
           "pure_requested"]

T = TypeVar("T")


def _read_by_mypyc(*_names: str, **_flags: object) -> Callable[[T], T]:
    """mypyc_attr where mypy_extensions is not installed (a pure install, the browser): mypyc
    reads the decorator when it compiles and an extension class is never decorated at run
    time, so the decorator only ever has to hand the class back."""
    return lambda cls: cls


try:  # the compiled modules' class attributes (verifier/rng.py, audit/tally.py)
    from mypy_extensions import mypyc_attr
except ImportError:
    mypyc_attr = _read_by_mypyc

#: the switch: "1" runs the pure-Python modules even where compiled ones are installed
PURE_ENV = "FAIRDEAL_PURE"
#: the packages the compiled build covers
COMPILED_PACKAGES = ("fairdeal.games.", "fairdeal.verifier.", "fairdeal.audit.")
#: a module the compiled build always compiles, asked which build is running (the compiled
#: modules share one library, so they come compiled all together or not at all)
PROBE_MODULE = "fairdeal.verifier.canonical"


class SourceOnlyFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of the compiled packages from their ``.py`` files, never an extension."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if path is None or not fullname.startswith(COMPILED_PACKAGES):
            return None
        source = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for entry in path:
            spec = importlib.machinery.FileFinder(entry, source).find_spec(fullname)
            if spec is not None:
                return spec
        return None


def pure_requested() -> bool:
    """Whether ``FAIRDEAL_PURE=1`` asks for the pure-Python code: the one reading of the switch,
    for the modules it picks here and for verifier/jsonfast.py's orjson path."""
    return os.environ.get(PURE_ENV) == "1"


def choose_build() -> None:
    """Install the source-only finder when ``FAIRDEAL_PURE=1`` (once, however often called)."""
    if not pure_requested():
        return
    if not any(isinstance(finder, SourceOnlyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, SourceOnlyFinder())


def is_compiled() -> bool:
    """Whether the modules running are the compiled ones (the probe module is an extension)."""
    module = sys.modules.get(PROBE_MODULE) or importlib.import_module(PROBE_MODULE)
    origin = getattr(module, "__file__", None) or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def build_name() -> str:
    """The build in words, as ``fairdeal --version`` says it."""
    return "compiled (mypyc)" if is_compiled() else "pure Python"


choose_build()
