"""The browser verifier's bytecode seed: the standard library's code, compiled by the pinned
Pyodide itself (run once under Node.js when the runtime is fetched), so that even a visitor's
first visit does not compile Pyodide's standard library from source in the browser.

The seed is the bytecode cache's own format (static/bytecode_cache.py): each module's code
with the hash of the source it was compiled from, used only where the source the browser has
still has that hash, and only for the standard library's zip (never for fairdeal's archive,
whose code the browser always compiles from the bytes whose SHA-256 it shows). It is an
optimisation only: without Node.js, or without the file, the first visit compiles as before.

    make pyodide      # main() here: the runtime (runtime.main), then the seed
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from . import runtime
from .runtime import package_archive

__all__ = ["SEED_NAME", "SeedError", "build_seed", "main", "seed_version"]

#: the seed's file name, in the runtime's folder beside the files loadPyodide fetches
SEED_NAME = "bytecode-seed.bin"
_CACHE_PY = Path(__file__).resolve().parent / "static" / "bytecode_cache.py"
#: Pyodide under Node: the worker's start and imports, then the standard library's bytecode
_NODE_SCRIPT = r"""
const [folder, archive, cachePy, out] = process.argv.slice(2);
const fs = require("fs");
const { loadPyodide } = require(folder + "/pyodide.js");
(async () => {
  const pyodide = await loadPyodide({
    indexURL: folder + "/", fullStdLib: false,
    fsInit: (FS, info) => {
      FS.mkdirTree(info.sitePackages);
      FS.writeFile(info.sitePackages + "/sitecustomize.py", fs.readFileSync(cachePy, "utf8"));
    },
  });
  pyodide.unpackArchive(new Uint8Array(fs.readFileSync(archive)), "zip");
  pyodide.runPython([
    "import json, sys, time, hashlib",
    "from fairdeal.verifier.keys import signature_backend",
    "from fairdeal.verifier.inputs import InvalidInput, verify_with_inputs",
  ].join("\n"));
  const blob = pyodide.runPython("import sitecustomize as s\ns.CACHE.blob(s.stdlib_zip() + '/')");
  fs.writeFileSync(out, blob.toJs());
})().catch((error) => { console.error(String(error)); process.exit(1); });
"""

_versions: dict[Path, tuple[float, str]] = {}
_lock = threading.Lock()


class SeedError(RuntimeError):
    """The seed could not be built; the message says why (the runtime still works)."""


def build_seed(folder: Path, node: str | None = None, timeout: float = 600) -> Path:
    """Run the runtime in ``folder`` under Node.js and write its standard library's bytecode to
    ``folder / SEED_NAME`` (replaced whole, never left half-written)."""
    node = node or shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise SeedError("Node.js is not installed: the browser's first visit compiles the "
                        "standard library itself (install nodejs, then `make pyodide`)")
    with tempfile.TemporaryDirectory() as work:
        archive = Path(work) / "fairdeal.zip"
        archive.write_bytes(package_archive()[0])
        script = Path(work) / "seed.js"
        script.write_text(_NODE_SCRIPT)
        out = Path(work) / SEED_NAME
        try:
            done = subprocess.run([node, str(script), str(folder.resolve()), str(archive),
                                   str(_CACHE_PY), str(out)],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise SeedError(f"Pyodide under Node.js did not finish in {timeout:.0f} s") from None
        if done.returncode != 0 or not out.is_file():
            raise SeedError("Pyodide under Node.js failed: "
                            f"{(done.stderr or done.stdout).strip()[-500:]}")
        target = folder / SEED_NAME
        partial = folder / (SEED_NAME + ".partial")
        shutil.copyfile(out, partial)
        partial.replace(target)
    return target


def seed_version(folder: Path) -> str | None:
    """A short hash of the seed in ``folder`` (its URL's ``v``), or None when there is none;
    hashed again only when the file changes."""
    path = folder / SEED_NAME
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    with _lock:
        known = _versions.get(path)
        if known is None or known[0] != mtime:
            known = (mtime, hashlib.sha256(path.read_bytes()).hexdigest()[:16])
            _versions[path] = known
        return known[1]


def main(argv: list[str] | None = None) -> int:
    """Fetch the runtime (runtime.main) and build its seed when it has none."""
    parser = argparse.ArgumentParser(description="Fetch the pinned Pyodide runtime with npm, "
                                     "then build its bytecode seed with Node.js.")
    parser.add_argument("--dir", help="where to put it (default: FAIRDEAL_PYODIDE_DIR or the "
                        "viewer's static/pyodide/)")
    args = parser.parse_args(argv)
    status = runtime.main(argv)
    if status != 0:
        return status
    folder = runtime.runtime_dir(args.dir)
    if not (folder / SEED_NAME).is_file():
        try:
            build_seed(folder)
        except SeedError as e:  # an optimisation only: the runtime works without it
            print(f"fairdeal: no bytecode seed, a first visit compiles Python's standard "
                  f"library itself: {e}", file=sys.stderr)
            return 0
    print(f"the standard library's bytecode for a first visit: {folder / SEED_NAME}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
