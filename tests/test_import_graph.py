"""No circle of imports among fairdeal's library packages.

Every module of verifier/, games/, audit/, web/, ledger/ and cli/ is parsed (never imported)
and every import in it counts: at module level, inside a function (a "lazy" import hides a
cycle, it does not break it) and under ``if TYPE_CHECKING:`` (the type checker follows it).
The graph of fairdeal module → fairdeal module must be acyclic; a failure prints the circle.

Two conventions decide what an edge is:

- ``from package import name`` is an edge to ``package.name`` when that is a module, else to
  the package's ``__init__``;
- importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, but that is not counted as
  an edge from the importer: otherwise every package whose ``__init__`` re-exports its modules
  (verifier/'s public face) would be a circle with each of them. A module importing a name
  *from* its package's ``__init__`` is counted, as any other import.

Each package imports only the layers below it (``LAYERS``, the arrows of ../shared/DESIGN.md):
games/ nothing of fairdeal's; verifier/ the games; audit/, ledger/ and client/ the verifier and
the games (client/ is the other side of the API, so the server never imports it, nor it the
server); web/ and cli/ anything below them.

cli/ is read too: its group (cli/group.py) and shared helpers (cli/common.py) import no
command module, each command module registers itself on the group, and only the entry point
cli/main.py imports the command modules.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).parents[1]

#: the top-level folders read, each installed as ``fairdeal.<folder>``
PACKAGES = ("verifier", "games", "audit", "web", "ledger", "client", "cli")

#: the other packages each package may import (../shared/DESIGN.md, "The next shape")
LAYERS = {
    "games": set(),
    "verifier": {"games"},
    "audit": {"verifier", "games"},
    "ledger": {"verifier", "games"},
    "client": {"verifier", "games"},
    "web": {"audit", "ledger", "client", "verifier", "games"},
    "cli": {"web", "audit", "ledger", "client", "verifier", "games"},
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("fairdeal", *parts))


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name a (possibly relative) ``from … import`` names."""
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def _imports(name: str, path: Path, modules: Iterable[str]) -> set[str]:
    """The fairdeal modules that module ``name`` imports, wherever in it the import is."""
    known = set(modules)
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(name, is_package, node.level, node.module)
            for alias in node.names:
                child = f"{source}.{alias.name}"
                targets.add(child if child in known else source)
    return {target for target in targets if target in known and target != name}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph (its modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state and (cycle := visit(target)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def test_the_library_packages_import_without_a_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 100  # every package was read
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def layer_crossings(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a package ``LAYERS`` does not allow its importer, as ``a imports b``."""
    return sorted(
        f"{importer} imports {target}"
        for importer, targets in graph.items() for target in targets
        if (into := target.split(".")[1]) != (source := importer.split(".")[1])
        and into not in LAYERS[source])


def test_each_package_imports_only_the_layers_below_it() -> None:
    """The server (ledger/) and the client (client/) each import the verifier and the games,
    never each other; web/ and cli/ import any of them. Every import counts, as above."""
    assert set(LAYERS) == set(PACKAGES)
    assert layer_crossings(import_graph()) == []


def test_a_layer_crossing_is_seen() -> None:
    """The server importing the client, or the client the server, is a crossing; the CLI
    importing either is not."""
    graph = {"fairdeal.ledger.live": {"fairdeal.client.bots", "fairdeal.verifier.chain"},
             "fairdeal.client.bots": {"fairdeal.ledger.store", "fairdeal.games"},
             "fairdeal.cli.log": {"fairdeal.client.monitor", "fairdeal.ledger.service"}}
    assert layer_crossings(graph) == ["fairdeal.client.bots imports fairdeal.ledger.store",
                                      "fairdeal.ledger.live imports fairdeal.client.bots"]


def test_function_level_and_type_checking_imports_are_edges(tmp_path: Path) -> None:
    """The reader sees the imports a cycle hides in: inside a function, under TYPE_CHECKING,
    and relative ones (``from . import x``, ``from ..pkg import y``)."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from .b import g\n    return g\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from . import a\n")
    (package / "sub" / "__init__.py").write_text("from .. import b\n")
    modules = {"fairdeal.pkg": package / "__init__.py", "fairdeal.pkg.a": package / "a.py",
               "fairdeal.pkg.b": package / "b.py",
               "fairdeal.pkg.sub": package / "sub" / "__init__.py"}
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert graph == {"fairdeal.pkg": set(), "fairdeal.pkg.a": {"fairdeal.pkg.b"},
                     "fairdeal.pkg.b": {"fairdeal.pkg.a"}, "fairdeal.pkg.sub": {"fairdeal.pkg.b"}}
    assert find_cycle(graph) == ["fairdeal.pkg.a", "fairdeal.pkg.b", "fairdeal.pkg.a"]


def test_the_cli_imports_no_private_name_across_files() -> None:
    """What one module of cli/ takes from another is public (``game_choice``, ``read_file``,
    ``open_ledger`` ...): a ``_name`` is its own module's."""
    private = []
    for name, path in _modules().items():
        if not name.startswith("fairdeal.cli"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "")
                                                     .startswith("fairdeal.")):
                private += [f"{name}: {alias.name}" for alias in node.names
                            if alias.name.startswith("_") and alias.name != "__future__"]
    assert private == []


def test_the_cli_group_and_helpers_import_no_command_module() -> None:
    """cli/group.py and the helper modules import no module that registers commands, and only
    cli/main.py (the entry point) and cli/__main__.py import cli/main.py."""
    graph = import_graph()
    commands = {name for name, path in _modules().items()
                if name.startswith("fairdeal.cli.")
                and re.search(r"^@cli\.(command|group)\(", path.read_text(), re.MULTILINE)}
    assert "fairdeal.cli.verify" in commands and "fairdeal.cli.service" in commands
    helpers = {name for name in graph if name.startswith("fairdeal.cli.")} - commands - {
        "fairdeal.cli.main", "fairdeal.cli.__main__"}
    assert {"fairdeal.cli.group", "fairdeal.cli.common"} <= helpers
    for helper in sorted(helpers):
        assert graph[helper] & commands == set(), helper
    assert {name for name, targets in graph.items() if "fairdeal.cli.main" in targets} == {
        "fairdeal.cli.__main__"}
