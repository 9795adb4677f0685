"""The browser verifier's runtime: Pyodide from the npm registry, and fairdeal's own pure
packages (verifier, games) as one zip, both served by fairdeal itself — never a CDN.

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
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import zipfile
from pathlib import Path

__all__ = ["PYODIDE_FILES", "PYODIDE_VERSION", "fetch_runtime", "package_archive",
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
_SOURCE_SUFFIXES = (".py", ".json", ".typed")


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


_archive: dict[str, tuple[bytes, str]] = {}
_archive_lock = threading.Lock()


def package_archive() -> tuple[bytes, str]:
    """fairdeal's verifier and games as one zip (``fairdeal/verifier/…``, ``fairdeal/games/…``)
    built from the installed package, and its ETag. Built once per process."""
    with _archive_lock:
        if "zip" not in _archive:
            import fairdeal.games
            import fairdeal.verifier

            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, package in zip(_PACKAGES, (fairdeal.verifier, fairdeal.games),
                                         strict=True):
                    root = Path(next(iter(package.__path__)))
                    for path in sorted(root.rglob("*")):
                        if path.suffix not in _SOURCE_SUFFIXES or "__pycache__" in path.parts:
                            continue
                        # a fixed date keeps the bytes (and the ETag) the same for the same code
                        info = zipfile.ZipInfo(f"fairdeal/{name}/{path.relative_to(root)}",
                                               (2020, 1, 1, 0, 0, 0))
                        info.compress_type = zipfile.ZIP_DEFLATED
                        archive.writestr(info, path.read_bytes())
            data = buffer.getvalue()
            _archive["zip"] = (data, hashlib.sha256(data).hexdigest()[:32])
        return _archive["zip"]


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
