"""fairdeal.verifier's public face: the package re-exports what a caller needs, its docstring's
example runs, and every error the verifier raises belongs to one family."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import fairdeal.verifier
from fairdeal.verifier import FairdealError
from fairdeal.verifier import errors as errors_module

from ..sources import source_module

ROOT = Path(__file__).parents[2]


def test_the_docstring_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the example reads fixtures/bundles
    for module in (fairdeal.verifier, source_module(errors_module.__name__)):
        result = doctest.testmod(module, raise_on_error=False)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_every_exported_name_is_there() -> None:
    assert sorted(fairdeal.verifier.__all__) == sorted(set(fairdeal.verifier.__all__))
    for name in fairdeal.verifier.__all__:
        assert hasattr(fairdeal.verifier, name), name


def _verifier_modules() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(fairdeal.verifier.__path__,
                                                       "fairdeal.verifier.")]


def test_every_error_class_in_the_verifier_is_a_fairdeal_error() -> None:
    """Every exception class defined in verifier/ derives from FairdealError, which stays a
    ValueError (so every `except ValueError` written before the family existed still works)."""
    assert issubclass(FairdealError, ValueError)
    found = []
    for name in _verifier_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__ == name and value is not FairdealError):
                found.append(value)
                assert issubclass(value, FairdealError), f"{name}.{value.__name__}"
    assert len(found) >= 18


def test_no_class_in_the_verifier_derives_from_value_error_directly() -> None:
    """Read from the source, so a new error class written as `(ValueError)` fails here."""
    for path in sorted(Path(fairdeal.verifier.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name != "FairdealError":
                bases = [ast.unparse(base) for base in node.bases]
                assert "ValueError" not in bases, f"{path.name}: {node.name}"


def test_messages_are_unchanged_by_the_base() -> None:
    from fairdeal.verifier import InvalidBundle, VerificationError
    assert str(InvalidBundle("the file is not JSON")) == "the file is not JSON"
    error = VerificationError("chain", "the link is broken", 3)
    assert (error.check, error.reason, error.seq) == ("chain", "the link is broken", 3)
    assert str(error) == "chain: event 3: the link is broken"
