"""The browser verifier's runtime: Pyodide from the npm registry, and fairdeal's own pure
packages (verifier, games) as one zip — with every game plug-in installed from a package of its
own, and its entry points — both served by fairdeal itself, never a CDN.

Fetch the runtime once (``make pyodide`` does this; it needs ``npm``)::

    python -m fairdeal.web.viewer.runtime [--dir DIR]

It runs ``npm pack pyodide@VERSION``, checks the tarball against the pinned integrity hash and
keeps only the five files the browser loads. The folder is ``FAIRDEAL_PYODIDE_DIR`` (app config
or environment), else ``static/pyodide/`` beside this module (gitignored, never committed).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ARCHIVE_NAME", "PYODIDE_FILES", "PYODIDE_VERSION", "PluginPackage", "archive_files",
           "archive_sha256", "build_archive", "fairdeal_version", "fetch_runtime",
           "installed_plugins", "installed_roots", "package_archive", "plugin_entries",
           "runtime_dir", "runtime_ready"]

#: the pinned runtime: npm's version and the tarball's integrity (sha512) as npm prints it
PYODIDE_VERSION = "0.29.5"
PYODIDE_INTEGRITY = ("sha512-TkYrUv9m8QmfImADKRmpwZulL48E0uUaBSO+dvRQKyAJc0qh9gu7jn8btyHPh3N"
                     "Zm1r2IH2YrJhIr7Q2B9urAw==")
#: what loadPyodide fetches: the loader, the Emscripten glue, the interpreter, the standard
#: library and the lock file (read even when no package is loaded)
PYODIDE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
_STAMP = "VERSION"
_DEFAULT = Path(__file__).resolve().parent / "static" / "pyodide"
#: fairdeal's packages the browser runs: pure Python, no I/O (DESIGN.md)
_PACKAGES = ("verifier", "games")


def runtime_dir(configured: str | os.PathLike[str] | None = None) -> Path:
    """Where the runtime's files live: the given folder, FAIRDEAL_PYODIDE_DIR, or the default."""
    chosen = configured or os.environ.get("FAIRDEAL_PYODIDE_DIR")
    return Path(chosen) if chosen else _DEFAULT


def runtime_ready(folder: Path) -> bool:
    """True when every file is there, from the pinned version."""
    stamp = folder / _STAMP
    if not stamp.is_file() or stamp.read_text().strip() != PYODIDE_VERSION:
        return False
    return all((folder / name).is_file() for name in PYODIDE_FILES)


class FetchError(RuntimeError):
    """The runtime could not be fetched; the message says what to do."""


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def fetch_runtime(folder: Path, npm: str | None = None) -> Path:
    """Fetch the pinned Pyodide into ``folder`` (nothing to do if it is there already)."""
    if runtime_ready(folder):
        return folder
    npm = npm or shutil.which("npm")
    if npm is None:
        raise FetchError("npm is not installed: install it (Debian: apt-get install npm), "
                         "then run `make pyodide`")
    with tempfile.TemporaryDirectory() as work:
        done = subprocess.run([npm, "pack", f"pyodide@{PYODIDE_VERSION}", "--silent",
                               "--pack-destination", work], capture_output=True, text=True)
        if done.returncode != 0:
            raise FetchError(f"npm pack pyodide@{PYODIDE_VERSION} failed: "
                             f"{done.stderr.strip() or done.stdout.strip()}")
        tarball = Path(work) / f"pyodide-{PYODIDE_VERSION}.tgz"
        data = tarball.read_bytes()
        if _integrity(data) != PYODIDE_INTEGRITY:
            raise FetchError(f"pyodide-{PYODIDE_VERSION}.tgz does not match the pinned "
                             "integrity hash: refusing to serve it")
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for name in PYODIDE_FILES:
                member = archive.extractfile(f"package/{name}")
                if member is None:
                    raise FetchError(f"the pyodide package has no {name}")
                (folder / name).write_bytes(member.read())
    (folder / _STAMP).write_text(PYODIDE_VERSION + "\n")
    return folder


#: what the browser archive holds of each package: the files a wheel installs for it
#: (pyproject.toml: every module, plus package data ``py.typed`` and ``*.json``)
_DATA_NAMES = ("py.typed",)
#: every entry's fixed metadata: a date (the zip format's epoch; the clock of the machine that
#: built it never enters), regular-file permissions rw-r--r--, "made on Unix"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_ZIP_MODE = 0o100644
_ZIP_UNIX = 3
ARCHIVE_NAME = "fairdeal.zip"

_archive: dict[str, tuple[bytes, str]] = {}
_digest: dict[str, str] = {}
_archive_lock = threading.Lock()


def _archived(path: Path) -> bool:
    return path.suffix in (".py", ".json") or path.name in _DATA_NAMES


@dataclass(frozen=True)
class PluginPackage:
    """A game plug-in installed from a distribution of its own (outside ``fairdeal.*``): the
    browser archive holds its packages, and a ``.dist-info`` with its ``fairdeal.games`` entry
    points, so that the registry finds it there as it does on the server.

    ``packages``: each top-level package the entry points import, by name: its folder (or,
    for a plug-in that is one module, its file).
    ``entry_points``: (name, ``module:attribute``) pairs, sorted."""

    distribution: str
    version: str
    packages: Mapping[str, Path]
    entry_points: tuple[tuple[str, str], ...]


def _walk(folder: Path, prefix: str, found: dict[str, Path]) -> None:
    """A package's modules and package data, and those of every subpackage (a folder with an
    ``__init__.py``), into ``found`` by their name in the archive."""
    for path in folder.iterdir():
        if path.is_dir():
            if (path / "__init__.py").is_file() and path.name != "__pycache__":
                _walk(path, f"{prefix}{path.name}/", found)
        elif path.is_file() and _archived(path):
            found[f"{prefix}{path.name}"] = path


def archive_files(roots: Mapping[str, Path], plugins: Sequence[PluginPackage] = ()
                  ) -> dict[str, Path]:
    """The files of the browser archive, by their name in it (``fairdeal/verifier/verify.py``):
    for each package in ``roots`` (``{"verifier": folder}``), its modules and package data and
    those of every subpackage (a folder with an ``__init__.py``), as a wheel installs them; the
    same for each plug-in's packages, at the archive's top (``their_game/rules.py``). A
    ``__pycache__``, a stray folder that is no package, an editor's ``.orig`` are left out."""
    found: dict[str, Path] = {}
    for name, root in roots.items():
        _walk(root, f"fairdeal/{name}/", found)
    for plugin in plugins:
        for name, root in plugin.packages.items():
            if root.is_file():  # a plug-in that is one module, not a package
                found[f"{name}.py"] = root
            else:
                _walk(root, f"{name}/", found)
    return found


def plugin_entries(plugins: Sequence[PluginPackage]) -> dict[str, bytes]:
    """Each plug-in's ``<name>-<version>.dist-info/`` ``METADATA`` and ``entry_points.txt``,
    as importlib.metadata reads them from a folder on ``sys.path`` (the browser's)."""
    from fairdeal.games import ENTRY_POINT_GROUP

    entries: dict[str, bytes] = {}
    for plugin in plugins:
        folder = f"{plugin.distribution.replace('-', '_')}-{plugin.version}.dist-info"
        entries[f"{folder}/METADATA"] = (f"Metadata-Version: 2.1\nName: {plugin.distribution}\n"
                                         f"Version: {plugin.version}\n").encode()
        points = "".join(f"{name} = {target}\n" for name, target in plugin.entry_points)
        entries[f"{folder}/entry_points.txt"] = f"[{ENTRY_POINT_GROUP}]\n{points}".encode()
    return entries


def build_archive(roots: Mapping[str, Path], plugins: Sequence[PluginPackage] = ()) -> bytes:
    """The browser archive of the packages in ``roots`` and of the game ``plugins``,
    reproducibly: the same source files give the same bytes on any machine. Entries are sorted
    by name (not the file system's order); every entry has the same date, permissions and
    system whatever the files' mtimes, modes or the umask; entries are stored, not deflated,
    because deflate's output depends on the zlib build (zlib-ng, which some distributions ship
    as zlib, compresses differently)."""
    buffer = io.BytesIO()
    contents = {name: path.read_bytes() for name, path in archive_files(roots, plugins).items()}
    contents.update(plugin_entries(plugins))
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(contents):
            info = zipfile.ZipInfo(name, _ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = _ZIP_UNIX
            info.external_attr = _ZIP_MODE << 16
            archive.writestr(info, contents[name])
    return buffer.getvalue()


def installed_roots() -> dict[str, Path]:
    """The installed packages the browser runs, by name: where ``fairdeal.verifier`` and
    ``fairdeal.games`` are imported from."""
    import fairdeal.games
    import fairdeal.verifier

    packages = {"verifier": fairdeal.verifier, "games": fairdeal.games}
    return {name: Path(next(iter(packages[name].__path__))) for name in _PACKAGES}


def installed_plugins() -> tuple[PluginPackage, ...]:
    """Every game plug-in that loaded from a distribution of its own (its entry point's module
    outside ``fairdeal.*``), by distribution name; one that failed to load is left out, as the
    registry leaves it out."""
    from importlib.metadata import entry_points

    from fairdeal.games import ENTRY_POINT_GROUP, game_names

    loaded = set(game_names())
    found: dict[str, tuple[str, dict[str, Path], list[tuple[str, str]]]] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        top = point.value.partition(":")[0].split(".")[0]
        if top == "fairdeal" or point.name not in loaded:
            continue
        module = importlib.import_module(top)
        dist = point.dist
        name = dist.metadata["Name"] if dist is not None else top
        version, packages, points = found.setdefault(
            name, (dist.version if dist is not None else "0", {}, []))
        packages[top] = (Path(next(iter(module.__path__))) if hasattr(module, "__path__")
                         else Path(str(module.__file__)))
        points.append((point.name, point.value))
    return tuple(PluginPackage(name, version, dict(sorted(packages.items())),
                               tuple(sorted(points)))
                 for name, (version, packages, points) in sorted(found.items()))


def package_archive() -> tuple[bytes, str]:
    """fairdeal's verifier and games as one zip (``fairdeal/verifier/…``, ``fairdeal/games/…``)
    built from the installed package, with every installed game plug-in package, and its ETag.
    Built once per process."""
    with _archive_lock:
        if "zip" not in _archive:
            data = build_archive(installed_roots(), installed_plugins())
            _archive["zip"] = (data, hashlib.sha256(data).hexdigest()[:32])
        return _archive["zip"]


def archive_sha256() -> str:
    """The browser archive's full SHA-256 (hex), as /verify shows it and ``fairdeal
    verifier-hash`` prints it: what a visitor compares with a copy installed from the package
    index."""
    data, _ = package_archive()
    with _archive_lock:
        # every page names it: hashed once per process, as the archive is built once
        if "sha256" not in _digest:
            _digest["sha256"] = hashlib.sha256(data).hexdigest()
        return _digest["sha256"]


def fairdeal_version() -> str:
    """The installed fairdeal's version: what ``pip install fairdeal==VERSION`` takes."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fairdeal")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fetch the pinned Pyodide runtime with npm.")
    parser.add_argument("--dir", help="where to put it (default: FAIRDEAL_PYODIDE_DIR or the "
                        "viewer's static/pyodide/)")
    args = parser.parse_args(argv)
    folder = runtime_dir(args.dir)
    try:
        fetch_runtime(folder)
    except FetchError as e:
        print(f"fairdeal: {e}", file=sys.stderr)
        return 1
    print(f"Pyodide {PYODIDE_VERSION} is in {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
