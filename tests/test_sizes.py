"""No function over 60 lines and no class over 400 in fairdeal's code (issue 19).

Every ``.py`` file of the library packages, the fixtures' and fuzzers' builders, the benchmarks
and the example games is parsed (never imported). A function's or a class's size is its
``def``/``class`` line to its last line, as ``ast`` gives them (decorators not counted; a
method counts inside its class, a nested function inside its function as well as on its own).
A failure names each offender as ``file:line: name``, so the one to split is at hand.

Only a pure data table may be longer, and only by name in ``_DATA_TABLES`` with the reason;
there is none today: a table is a module-level constant (fixtures/build.py's ``TAMPERS``), or
a function that assembles a document from its sections (web/api/openapi.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parents[1]

MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES = 400

#: the top-level folders read; client/ and examples/ once they exist
FOLDERS = ("verifier", "games", "audit", "web", "ledger", "cli", "client", "fixtures",
           "fuzzing", "bench", "examples")

#: folders never read: what set-up fetches or builds (the browser's Pyodide runtime, a
#: package's own virtual environment or build output), not code of ours
_NOT_OURS = frozenset({"pyodide", "node_modules", "build", "dist", "__pycache__"})

#: pure data tables allowed to be longer, as "file:name" → why it is data: none
_DATA_TABLES: dict[str, str] = {}



def source_files() -> list[Path]:
    """Every ``.py`` file under FOLDERS, in a stable order, skipping what is not ours."""
    files = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if not any(part in _NOT_OURS or part.startswith(".") for part in parts[:-1]):
                files.append(path)
    return files


def oversized(source: str, filename: str) -> Iterator[tuple[int, str, str, int]]:
    """(line, qualified name, "function" or "class", lines) of every function over
    MAX_FUNCTION_LINES and every class over MAX_CLASS_LINES in ``source``."""

    def visit(node: ast.AST, prefix: str) -> Iterator[tuple[int, str, str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                lines = (child.end_lineno or child.lineno) - child.lineno + 1
                is_class = isinstance(child, ast.ClassDef)
                limit = MAX_CLASS_LINES if is_class else MAX_FUNCTION_LINES
                if lines > limit:
                    yield child.lineno, name, "class" if is_class else "function", lines
                yield from visit(child, name + ".")
            else:
                yield from visit(child, prefix)

    yield from visit(ast.parse(source, filename), "")


def offenders() -> list[str]:
    """``file:line: name`` for every oversized function or class, outside the allow-lists."""
    found = []
    for path in source_files():
        relative = path.relative_to(ROOT).as_posix()
        for line, name, kind, lines in oversized(path.read_text(), relative):
            if f"{relative}:{name}" not in _DATA_TABLES:
                limit = MAX_CLASS_LINES if kind == "class" else MAX_FUNCTION_LINES
                found.append(f"{relative}:{line}: {kind} {name} is {lines} lines "
                             f"(at most {limit})")
    return found


def test_no_function_over_60_lines_and_no_class_over_400() -> None:
    found = offenders()
    assert not found, "split these into well-named parts:\n" + "\n".join(found)


def test_every_package_is_read() -> None:
    """The check reads the code it is meant to: a folder missing from the walk (or a walk
    that finds nothing) would let it pass on no code at all."""
    read = {path.relative_to(ROOT).parts[0] for path in source_files()}
    expected = {folder for folder in FOLDERS if (ROOT / folder).is_dir()}
    assert read == expected
    names = {path.relative_to(ROOT).as_posix() for path in source_files()}
    assert {"verifier/replay.py", "fixtures/build.py", "bench/bench_verify.py"} <= names
    assert not any("/pyodide/" in name for name in names)


def test_the_check_measures_from_def_to_the_last_line() -> None:
    """A function of exactly 60 lines passes and one of 61 fails; likewise a class of 400 and
    401; a nested function and a method are named by their qualified names."""

    def function(name: str, lines: int, indent: str = "") -> str:
        body = "".join(f"{indent}    x = {i}\n" for i in range(lines - 1))
        return f"{indent}def {name}():\n{body}"

    def klass(name: str, lines: int) -> str:
        return f"class {name}:\n" + "".join(f"    y{i} = {i}\n" for i in range(lines - 1))

    source = (function("fits", 60) + function("too_long", 61) + klass("Fits", 400)
              + klass("Big", 401 - 61) + function("method", 61, "    "))
    assert [(name, kind, lines) for _, name, kind, lines in oversized(source, "t.py")] == [
        ("too_long", "function", 61), ("Big", "class", 401), ("Big.method", "function", 61)]
    nested = "def outer():\n" + function("inner", 61, "    ")
    assert [name for _, name, _, _ in oversized(nested, "t.py")] == ["outer", "outer.inner"]
