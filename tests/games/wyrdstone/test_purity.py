"""The rules package stays pure: no I/O, no clock, no global random, nothing from the layers
above (DESIGN.md). Checked on the source, import by import and call by call."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "games" / "wyrdstone"
SOURCES = sorted(PACKAGE.glob("*.py"))
FORBIDDEN_MODULES = {"os", "sys", "io", "time", "datetime", "pathlib", "socket", "secrets",
                     "flask", "sqlmodel", "sqlalchemy", "requests"}


def test_the_package_has_its_modules() -> None:
    assert {path.stem for path in SOURCES} >= {"__init__", "book", "bots", "engine", "game",
                                               "params", "render", "rules", "state"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_forbidden_import_or_call(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [("." * node.level) + (node.module or "")]
        else:
            names = []
        for name in names:
            top = name.lstrip(".").split(".")[0]
            assert top not in FORBIDDEN_MODULES, (path.name, name)
            assert "verifier" not in name and "ledger" not in name and "web" not in name, name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in ("open", "print", "input"), (path.name, node.func.id)
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == "random"):
            # only the type (bots take a random.Random), never the module's global functions
            assert node.attr == "Random", (path.name, node.attr)
