"""The compiled build: the hot modules of games/, verifier/ and audit/ through mypyc, from the same
source.

Everything else about the package is declared in pyproject.toml; this file only adds the C
extensions (docs/compiled.md). mypyc must see the sources under the names they are imported by
(``fairdeal.games.…``), but the folders are mapped onto that namespace by
``[tool.setuptools.package-dir]``, so it reads them through a tree of links,
build/mypyc/fairdeal/{games,verifier,audit} — the trick ``make lint`` uses for mypy. The extensions
land where the import system finds them for a normal install and for an editable one alike
(setuptools places them by the same package-dir mapping).

The compiled build is the default: every install (``pip install .``, ``make install``) compiles
the modules in COMPILED when a C compiler is there. Nothing is compiled, and the install is the
pure-Python one, when ``FAIRDEAL_PURE=1`` is set, when mypyc cannot be imported or fails, when
there is no C compiler or when the C compile fails; one line says which. ``fairdeal --version``
says which build is running.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import sysconfig
import time
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70 (pyproject.toml asks for 77, an old venv may not)
    from wheel.bdist_wheel import bdist_wheel

ROOT = Path(__file__).resolve().parent
#: where mypyc reads the sources from (links) and writes its C
LINKS = Path("build") / "mypyc"
C_DIR = Path("build") / "mypyc-c"
#: the folders holding the compiled modules, each installed as ``fairdeal.<folder>``
FOLDERS = ("games", "verifier", "audit")
#: the modules compiled: those where verification, replay and simulation spend their time
#: (bench/bench_verify.py under cProfile, all three games: together over 90% of the time spent
#: in our code). The rest stays pure, read once a match or less, so compiling it would only
#: lengthen the install: the games' faces (game.py: plug-ins subclass them and callers hand
#: them anything), bots, pictures, words, the card, board and scroll tables and the match
#: parameters (read once a match, and a large share of the C: about a sixth of the compile), and
#: the verifier's once-a-match parts (log proofs, receipts, disputes, notes, the pure Ed25519
#: the browser uses). verifier/keys.py stays pure as the server hands it request fields as they
#: come (compiled, a non-string key raised TypeError, a 500, where pure says InvalidKey).
#: verifier/rng.py is compiled with RandomStream open to interpreted subclasses (mypyc_attr:
#: the audit's planted-deal streams subclass it); the deal's shuffle and the stream every ply
#: opens run in C. The audit's own part of its per-match map is compiled too (issue 20):
#: re-deriving a match's facts (facts.py, strength.py, the MatchFacts value) and counting them
#: (tally.py, its Tally picklable as a native class, for the process pool and Dask); its
#: statistics, report and pictures run once an audit and stay pure, as does run.py (Filters,
#: the pool and Dask; a few calls a match).
COMPILED = (
    "audit/facts.py",
    "audit/matchfacts.py",
    "audit/strength.py",
    "audit/tally.py",
    "games/arcomage/effects.py",
    "games/arcomage/rules.py",
    "games/arcomage/state.py",
    "games/toybattle/actions.py",
    "games/toybattle/engine.py",
    "games/toybattle/rules.py",
    "games/toybattle/state.py",
    "games/toybattle/troops.py",
    "games/wyrdstone/engine.py",
    "games/wyrdstone/rules.py",
    "games/wyrdstone/state.py",
    "verifier/bundle.py",
    "verifier/canonical.py",
    "verifier/errors.py",
    "verifier/hashing.py",
    "verifier/influence.py",
    "verifier/jsonfast.py",
    "verifier/protocol.py",
    "verifier/replay.py",
    "verifier/report.py",
    "verifier/rng.py",
    "verifier/seating.py",
    "verifier/verify.py",
)
#: never compiled, whatever COMPILED says: the switch that picks the pure or the compiled
#: modules runs before either is imported; typing's @runtime_checkable refuses a compiled
#: class as a Protocol (Rng, Bot)
NEVER = ("games/compiled.py", "games/base.py")
#: gcc's optimisation level for the generated C (FAIRDEAL_OPT_LEVEL overrides it): -O1 gives
#: most of -O3's speed in a fraction of its compile time (docs/compiled.md, "Compile time")
OPT_LEVEL = os.environ.get("FAIRDEAL_OPT_LEVEL", "1")
#: the shared library every compiled module's shim loads: inside a package that both an
#: editable and a normal install map, never a loose top-level module
GROUP_NAME = "fairdeal.games.native"
#: setup.py commands that only write metadata (pip's first calls of a build)
METADATA_COMMANDS = {"egg_info", "dist_info", "sdist"}
#: the commands of an editable install, the one kind that puts extensions in the source folders
EDITABLE_COMMANDS = {"editable_wheel", "develop"}


def say(line: str) -> None:
    """One line on the build's output, which pip shows with ``-v``."""
    print(f"fairdeal build: {line}", file=sys.stderr, flush=True)


def decided(line: str) -> None:
    """Say which build this install makes and why, and keep the line in build/ for ``make
    install`` to repeat (pip hides a build's output unless asked for it)."""
    say(line)
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "build" / "fairdeal-build.txt").write_text(line + "\n", encoding="utf-8")


def c_compiler() -> str | None:
    """The compiler Python's own build names (CC overrides it), or None when it is not on the
    PATH."""
    import shutil

    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return compiler if shutil.which(compiler) is not None else None


def link_tree() -> list[str]:
    """Lay the compiled folders out as build/mypyc/fairdeal/<folder>; return the .py to compile."""
    namespace = ROOT / LINKS / "fairdeal"
    namespace.mkdir(parents=True, exist_ok=True)
    for folder in FOLDERS:
        link = namespace / folder
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(ROOT / folder, target_is_directory=True)
    missing = [path for path in COMPILED if not (ROOT / path).is_file()]
    if missing:
        raise SystemExit(f"setup.py: COMPILED names files that are not there: {missing}")
    return [str(LINKS / "fairdeal" / path) for path in COMPILED if path not in NEVER]


def remove_compiled() -> None:
    """Delete the extensions an earlier editable install left beside the source.

    The import system prefers them to the ``.py``, so a pure editable install must not leave
    them there, nor a compiled one those of modules it no longer compiles. Only an editable
    install touches them: building a wheel (``pip install .``, ``pip wheel .``) must not turn
    the editable install of the same folder into a pure one.
    """
    if not EDITABLE_COMMANDS & set(sys.argv[1:]):
        return
    for folder in FOLDERS:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            for stale in (ROOT / folder).rglob(f"*{suffix}"):
                stale.unlink()


def pure(reason: str) -> list[object]:
    """The pure-Python build, said in one line."""
    decided(f"{reason}, so the pure-Python build (nothing compiled)")
    remove_compiled()
    return []


def extensions() -> list[object]:
    """The mypyc extensions, or none (the pure build) with the reason said in one line."""
    if sys.argv[1:2] and sys.argv[1] in METADATA_COMMANDS:
        return []  # pip asks for the metadata first: no need to run mypyc for that
    if os.environ.get("FAIRDEAL_PURE") == "1":
        return pure("FAIRDEAL_PURE=1")
    if c_compiler() is None:
        named = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
        return pure(f"no C compiler found ({named} is not on the PATH)")
    try:
        from mypyc.build import mypycify
    except ImportError:
        return pure("mypyc is not installed")
    remove_compiled()  # an earlier build's extensions, of modules this one may not compile
    paths = link_tree()
    decided(f"compiling {len(paths)} modules of games/, verifier/ and audit/ with mypyc "
            f"(-O{OPT_LEVEL}; FAIRDEAL_PURE=1 at install skips it)")
    # mypy resolves fairdeal.* from the link tree, the way `make lint` runs it
    os.environ["MYPYPATH"] = str(LINKS)
    started = time.monotonic()
    try:
        built = mypycify(
            ["--explicit-package-bases", "--namespace-packages", *paths],
            group_name=GROUP_NAME,
            target_dir=str(C_DIR),
            opt_level=OPT_LEVEL,
        )
    except (Exception, SystemExit) as error:  # mypyc exits on a type error it finds
        return pure(f"mypyc failed ({one_line(error)})")
    say(f"mypyc wrote the C in {time.monotonic() - started:.0f} s; the C compiler runs next")
    return list(built)


def one_line(error: BaseException) -> str:
    """An exception in a few words: its last non-empty line, a command's argument list (the
    compiler's, hundreds of characters of flags) shortened to the program's name."""
    import re

    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[-1] if lines else type(error).__name__
    text = re.sub(r"""'\[['"]([^'"]+)['"][^\]]*\]'""",
                  lambda match: Path(match.group(1)).name, text)
    return text if len(text) <= 200 else text[:197] + "..."


class TimedBuildExt(build_ext):
    """build_ext that says how long the C compiler took (the figures in docs/compiled.md), and
    falls back to the pure build when the C compiler fails: the modules are the same source, so
    the install goes on without their extensions, as it does without a compiler."""

    #: set when the compile failed: bdist_wheel then tags the wheel pure
    fell_back = False
    #: set once the compile time was said (the second run finds everything up to date)
    timed = False

    def run(self) -> None:
        started = time.monotonic()
        try:
            super().run()
        except Exception as error:  # CompileError, LinkError, a compiler that cannot start
            self.fall_back(error)
            return
        if self.extensions and not TimedBuildExt.timed:  # a wheel's build runs it twice
            TimedBuildExt.timed = True
            say(f"the C compiler took {time.monotonic() - started:.0f} s")

    def fall_back(self, error: Exception) -> None:
        """Drop the extensions, and any of them the failed build left, and say so."""
        for extension in self.extensions:
            built = Path(self.get_ext_fullpath(extension.name))
            if built.exists():
                built.unlink()
        self.extensions = []
        self.distribution.ext_modules = []
        TimedBuildExt.fell_back = True
        decided(f"the C compile failed ({one_line(error)}), so the pure-Python build "
                "(nothing compiled)")
        remove_compiled()


class PureWhenFallenBack(bdist_wheel):
    """bdist_wheel that builds first, so a compile that fell back makes a pure wheel
    (py3-none-any, Root-Is-Purelib) rather than one tagged for this platform."""

    def run(self) -> None:
        if not self.skip_build:
            # set up as bdist_wheel's own run does, which then finds the build done
            build_scripts = self.reinitialize_command("build_scripts")
            build_scripts.executable = "python"
            build_scripts.force = True
            self.reinitialize_command("build_ext").inplace = False
            self.run_command("build")
        if TimedBuildExt.fell_back:
            self.root_is_pure = True
        super().run()


setup(ext_modules=extensions(),
      cmdclass={"build_ext": TimedBuildExt, "bdist_wheel": PureWhenFallenBack})
