"""fairdeal's bytecode cache under Pyodide: verify-worker.js installs this file as the
interpreter's ``sitecustomize`` (which site.py imports while Python starts).

Pyodide's standard library and fairdeal's archive are Python source: every visit compiled them
again, most of Python's start in the browser. Here each module's code, compiled by this very
interpreter, is kept with the hash of the source it came from; on the next visit it is used
only where the source on the path still has that hash (CPython's own check for hash-based .pyc
files), and compiled afresh otherwise. Finding a module is untouched: the path finder finds it,
only the compiling is skipped."""

import _frozen_importlib_external as _external
import _imp
import marshal
import os
import sys
import zlib

#: where the worker puts the bytes an earlier visit kept (absent on a first visit)
STORED = os.environ.get("FAIRDEAL_BYTECODE", "/lib/fairdeal-bytecode")
#: on a first visit, the server's seed instead: the standard library's code, compiled by this
#: runtime when the server fetched it; only its standard library entries are ever used, so
#: fairdeal's own modules always run code compiled here, from the archive whose hash is shown
SEED = STORED + "-seed"
_MAGIC = _external.MAGIC_NUMBER


def stdlib_zip():
    """The standard library's zip on the path (Pyodide: /lib/python313.zip), or None."""
    name = f"python{sys.version_info[0]}{sys.version_info[1]}.zip"
    return next((entry for entry in sys.path if entry.endswith("/" + name)), None)


def _source_hash(source):
    return _imp.source_hash(_external._RAW_MAGIC_NUMBER, source)


def _read(path, compressed=False):
    try:
        with open(path, "rb") as stored:
            data = stored.read()
    except OSError:
        return {}
    if data[:len(_MAGIC)] != _MAGIC:  # another Python's bytecode: never used
        return {}
    try:
        data = data[len(_MAGIC):]
        entries = marshal.loads(zlib.decompress(data) if compressed else data)
    except (EOFError, ValueError, TypeError, zlib.error):
        return {}
    return entries if isinstance(entries, dict) else {}


class BytecodeCache:
    """origin -> (source hash, marshalled code), read from STORED, grown by every compile."""

    def __init__(self, path, seed=None):
        self.used = {}
        self.compiled_here = []  # the origins this visit compiled, in order
        self.cached = 0
        self.compiled = 0
        self.entries = _read(path)
        if not self.entries and seed:
            stdlib = stdlib_zip()
            self.entries = {origin: entry for origin, entry in _read(seed, True).items()
                            if stdlib and isinstance(origin, str)
                            and origin.startswith(stdlib + "/")}

    def code(self, origin, source):
        digest = _source_hash(source)
        entry = self.entries.get(origin)
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == digest:
            self.cached += 1
            self.used[origin] = entry
            return marshal.loads(entry[1])
        code = compile(source, origin, "exec", dont_inherit=True)
        self.compiled += 1
        self.compiled_here.append(origin)
        self.used[origin] = (digest, marshal.dumps(code))
        return code

    def blob(self, only=None):
        """What to keep for the next visit: the modules this visit imported (None when every
        one came from the cache already). ``only``: a seed, of the modules whose path starts
        so, compressed (it travels; the cache stays in the browser)."""
        if not self.compiled:
            return None
        if only is None:
            return _MAGIC + marshal.dumps(self.used)
        seed = {origin: entry for origin, entry in self.used.items() if origin.startswith(only)}
        return _MAGIC + zlib.compress(marshal.dumps(seed), 9)


class CachedLoader:
    """The path finder's own loader, with the compiling done through the cache."""

    def __init__(self, loader, origin):
        self._loader = loader
        self._origin = origin

    def __getattr__(self, name):  # resources, get_source, is_package...: the original's
        return getattr(self._loader, name)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        source = self._loader.get_data(self._origin)
        exec(CACHE.code(self._origin, source), module.__dict__)


class CachedFinder:
    """Just before the path finder: finds what it finds, loads it through the cache."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        spec = _external.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not spec.has_location:
            return spec
        if not (spec.origin or "").endswith(".py") or not hasattr(spec.loader, "get_data"):
            return spec
        spec.loader = CachedLoader(spec.loader, spec.origin)
        return spec

    @classmethod
    def invalidate_caches(cls):
        pass


CACHE = BytecodeCache(STORED, SEED)
if __name__ == "sitecustomize":  # only where the worker installed it: imported elsewhere, inert
    sys.meta_path.insert(sys.meta_path.index(_external.PathFinder), CachedFinder)
