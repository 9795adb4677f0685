"""The compiled build: games/ and verifier/ through mypyc, from the same source as the pure one.

Everything else about the package is declared in pyproject.toml; this file only adds the C
extensions (docs/compiled.md). mypyc must see the sources under the names they are imported by
(``fairdeal.games.…``), but the folders are mapped onto that namespace by
``[tool.setuptools.package-dir]``, so it reads them through a tree of links,
build/mypyc/fairdeal/{games,verifier} — the trick ``make lint`` uses for mypy. The extensions
land where the import system finds them for a normal install and for an editable one alike
(setuptools places them by the same package-dir mapping).

The compiled build is opt-in for now: ``FAIRDEAL_COMPILE=1`` at install asks for it, as the
suite still finds places where compiled code behaves differently (docs/compiled.md, "Not yet
the default"). Nothing is compiled, and the install is the pure-Python one, without it, when
``FAIRDEAL_PURE=1`` is set, when mypyc cannot be imported or when there is no working C
compiler; one line says which.
``fairdeal --version`` says which build is running.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import sysconfig
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
#: where mypyc reads the sources from (links) and writes its C
LINKS = Path("build") / "mypyc"
C_DIR = Path("build") / "mypyc-c"
#: the folders compiled, each installed as ``fairdeal.<folder>``
FOLDERS = ("games", "verifier")
#: modules left pure, with the reason (each path relative to the repository)
PURE_MODULES = {
    # the switch that picks the pure or the compiled modules runs before either is imported
    "games/compiled.py": "chooses between the builds, so it must be importable as source",
    # typing's @runtime_checkable refuses a compiled class as a Protocol
    "games/base.py": "runtime-checkable Protocols (Rng, Bot)",
    # a plug-in narrows its class attributes' declared types (a tuple for a Sequence, a dict
    # for a Mapping), which mypyc refuses; they are read once at start-up, never per event
    "games/plugin.py": "the plug-in base class its games' plug-ins subclass",
    "games/arcomage/plugin.py": "a plug-in (class attributes of narrower types)",
    "games/toybattle/plugin.py": "a plug-in (class attributes of narrower types)",
    "games/wyrdstone/plugin.py": "a plug-in (class attributes of narrower types)",
    # mypyc 2.4.1 stops with an internal error on `x in (*ELEMENTS, SCHOOL)` (a starred
    # expression in a tuple display under `in`); both are read once a match, not per event
    "games/wyrdstone/book.py": "mypyc internal error on a starred tuple display",
    "games/wyrdstone/params.py": "mypyc internal error on a starred tuple display",
    # compiled, a frozen dataclass's ClassVar with a value (``kind``) counts as a field with a
    # default to the dataclass machinery, so the fields after it fail at import
    "games/toybattle/actions.py": "a dataclass ClassVar before its fields",
    # mypyc refuses a lone surrogate in a string literal (the refusal's regular expression)
    "verifier/bundle.py": "a surrogate code point in a string literal",
}
#: the shared library every compiled module's shim loads: inside a package that both an
#: editable and a normal install map, never a loose top-level module
GROUP_NAME = "fairdeal.games.native"
#: setup.py commands that only write metadata (pip's first calls of a build)
METADATA_COMMANDS = {"egg_info", "dist_info", "sdist"}


def say(line: str) -> None:
    """One line on the build's output, which pip shows with ``-v`` and ``make install`` echoes."""
    print(f"fairdeal build: {line}", file=sys.stderr, flush=True)


def have_c_compiler() -> bool:
    """Whether the compiler Python's own build names is on the PATH (CC overrides it)."""
    import shutil

    compiler = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shutil.which(compiler.split()[0]) is not None


def link_tree() -> list[str]:
    """Lay the compiled folders out as build/mypyc/fairdeal/<folder>; return the .py to compile."""
    namespace = ROOT / LINKS / "fairdeal"
    namespace.mkdir(parents=True, exist_ok=True)
    paths = []
    for folder in FOLDERS:
        link = namespace / folder
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(ROOT / folder, target_is_directory=True)
        for source in sorted((ROOT / folder).rglob("*.py")):
            relative = source.relative_to(ROOT).as_posix()
            if source.name == "__init__.py" or relative in PURE_MODULES:
                continue
            paths.append(str(LINKS / "fairdeal" / relative))
    return paths


def remove_compiled() -> None:
    """Delete the extensions an earlier editable install left beside the source.

    The import system prefers them to the ``.py``, so a pure install must not leave them there.
    """
    for folder in FOLDERS:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            for stale in (ROOT / folder).rglob(f"*{suffix}"):
                stale.unlink()


def pure(reason: str) -> list[object]:
    """The pure-Python build, said in one line."""
    say(f"{reason}, so the pure-Python build (nothing compiled)")
    remove_compiled()
    return []


def extensions() -> list[object]:
    """The mypyc extensions, or none (the pure build) with the reason said in one line."""
    if sys.argv[1:2] and sys.argv[1] in METADATA_COMMANDS:
        return []  # pip asks for the metadata first: no need to run mypyc for that
    if os.environ.get("FAIRDEAL_PURE") == "1":
        return pure("FAIRDEAL_PURE=1")
    if os.environ.get("FAIRDEAL_COMPILE") != "1":
        return pure("FAIRDEAL_COMPILE=1 is not set")
    if not have_c_compiler():
        return pure("no C compiler found")
    try:
        from mypyc.build import mypycify
    except ImportError:
        return pure("mypyc is not installed")
    paths = link_tree()
    say(f"compiling {len(paths)} modules of games/ and verifier/ with mypyc")
    # mypy resolves fairdeal.* from the link tree, the way `make lint` runs it
    os.environ["MYPYPATH"] = str(LINKS)
    return mypycify(
        ["--explicit-package-bases", "--namespace-packages", *paths],
        group_name=GROUP_NAME,
        target_dir=str(C_DIR),
        opt_level="3",
    )


setup(ext_modules=extensions())
