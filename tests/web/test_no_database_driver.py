"""web/ knows no database: no module of it imports a database driver or SQLAlchemy (the store
raises its own errors, ledger.storeerrors), and none reaches into an engine (``.engine``)."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
#: the packages that mean "this module talks to a database"
DRIVERS = ("sqlite3", "psycopg", "psycopg2", "sqlalchemy", "sqlmodel")


def database_imports(source: str) -> list[str]:
    """The database packages a module's source imports, function-level imports included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [name for name in names if name.split(".")[0] in DRIVERS]
    return found


def engine_uses(source: str) -> list[int]:
    """The lines where a module reads an ``engine`` attribute (``ledger.store.engine``)."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr == "engine"]


def test_the_checks_see_what_they_look_for() -> None:
    source = ("import sqlite3\nfrom sqlalchemy.exc import OperationalError\n"
              "def f():\n    import psycopg\n    return ledger.store.engine\n"
              "from fairdeal.ledger.storeerrors import StoreError\n")
    assert database_imports(source) == ["sqlite3", "sqlalchemy.exc", "psycopg"]
    assert engine_uses(source) == [5]


def test_no_module_of_web_imports_a_database_driver_or_reaches_an_engine() -> None:
    modules = sorted(WEB.rglob("*.py"))
    assert len(modules) > 10 and WEB / "faults.py" in modules
    offenders = {str(path.relative_to(WEB)): found for path in modules
                 if (found := database_imports(path.read_text(encoding="utf-8")))}
    assert offenders == {}
    reaching = {str(path.relative_to(WEB)): lines for path in modules
                if (lines := engine_uses(path.read_text(encoding="utf-8")))}
    assert reaching == {}
