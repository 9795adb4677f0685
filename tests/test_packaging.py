"""The project installs as one namespace, fairdeal.*, never as bare top-level packages."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

BARE = ("games", "verifier", "ledger", "client", "web", "cli", "audit")


def test_no_bare_top_level_module_is_imported() -> None:
    code = (
        "import sys, importlib\n"
        "for name in ('fairdeal.games', 'fairdeal.verifier.verify', 'fairdeal.client.simulate',"
        " 'fairdeal.cli.main', 'fairdeal.web.viewer', 'fairdeal.games.arcomage',"
        " 'fairdeal.games.toybattle', 'fairdeal.audit.html'):\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(set(sys.modules) & set({BARE!r})))\n"
    )
    # run from / so the repository folder is not on sys.path by accident
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_bare_names_are_not_importable_from_the_install() -> None:
    for name in BARE:
        out = subprocess.run([sys.executable, "-c", f"import {name}"], cwd="/",
                             capture_output=True, text=True)
        assert out.returncode != 0, f"bare module {name!r} is importable"


def test_games_and_verifier_do_not_import_the_service_layers() -> None:
    code = (
        "import sys\n"
        "import fairdeal.verifier.verify, fairdeal.games.arcomage, fairdeal.games.toybattle\n"
        "import fairdeal.verifier.dispute, fairdeal.verifier.dispute_html\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('flask', 'sqlmodel', 'sqlalchemy',"
        " 'scipy', 'matplotlib', 'dask', 'distributed')"
        " or m.startswith(('fairdeal.ledger', 'fairdeal.web', 'fairdeal.cli', 'fairdeal.audit'))]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_the_audit_imports_games_and_verifier_only() -> None:
    code = (
        "import sys\n"
        "import fairdeal.audit, fairdeal.audit.html, fairdeal.audit.report\n"
        "import fairdeal.audit.planted\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('flask', 'sqlmodel', 'sqlalchemy')"
        " or m.startswith(('fairdeal.ledger', 'fairdeal.web', 'fairdeal.cli'))]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_the_client_imports_games_and_verifier_only() -> None:
    """The other side of the API runs without the server: no ledger, no web, no database."""
    code = (
        "import sys\n"
        "import fairdeal.client, fairdeal.client.monitor, fairdeal.client.witness\n"
        "import fairdeal.client.simulate\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('flask', 'sqlmodel', 'sqlalchemy',"
        " 'scipy', 'matplotlib', 'click') or m == 'fairdeal.cli'"
        " or m.startswith(('fairdeal.ledger', 'fairdeal.web', 'fairdeal.cli.',"
        " 'fairdeal.audit'))]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_the_wheel_builds_quietly_and_carries_the_viewer_files(tmp_path: Path) -> None:
    """The viewer's templates and static files are declared package data: building the wheel
    prints no setuptools warning (no "absent from the `packages` configuration"), and the
    wheel holds every one of them."""
    root = Path(__file__).resolve().parents[1]
    # the pure build's wheel: the package data is the same in both, and compiling would take
    # minutes (tests/test_compiled.py tests the compiled build)
    env = dict(os.environ, FAIRDEAL_PURE="1")
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path),
                          str(root)], capture_output=True, text=True, check=True, env=env)
    log = out.stdout + out.stderr
    assert "Warning" not in log, log
    wheel = next(tmp_path.glob("fairdeal-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    viewer = root / "web" / "viewer"
    runtime = viewer / "static" / "pyodide"  # fetched by make pyodide, gitignored
    expected = {f"fairdeal/web/viewer/{path.relative_to(viewer).as_posix()}"
                for folder in ("static", "templates") for path in (viewer / folder).rglob("*")
                if path.is_file() and runtime not in path.parents}
    assert expected and expected <= names, sorted(expected - names)
    # the Pyodide runtime is served from where it was fetched, never shipped in the wheel
    assert not [name for name in names if "/static/pyodide/" in name]


def _source_copy(tmp_path: Path) -> Path:
    """The project's files in a fresh folder, so a build there leaves the worktree's build/
    (and the line ``make install`` repeats from it) alone."""
    import shutil

    root = Path(__file__).resolve().parents[1]
    ignore = shutil.ignore_patterns(".git", ".venv", "build", "dist", "node_modules", "pyodide",
                                    "__pycache__", "*.egg-info", ".*_cache", "test-output",
                                    "*.so", "*.db", "*.sqlite")
    return Path(shutil.copytree(root, tmp_path / "src", ignore=ignore))


def _wheel_with(tmp_path: Path, source: Path, **env: str) -> tuple[str, Path]:
    """Build the wheel of source with pip, as a user does (isolated build); its log and file."""
    settings = {key: value for key, value in os.environ.items()
                if key not in ("FAIRDEAL_PURE", "FAIRDEAL_OPT_LEVEL")}
    settings.update(env)
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w",
                          str(tmp_path / "dist"), str(source)],
                         capture_output=True, text=True, env=settings)
    log = out.stdout + out.stderr
    assert out.returncode == 0, log[-4000:]
    return log, next((tmp_path / "dist").glob("fairdeal-*.whl"))


def _assert_pure(wheel: Path) -> None:
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    assert not [name for name in names if name.endswith((".so", ".pyd", ".c"))], names
    assert "fairdeal/verifier/replay.py" in names
    metadata = next(name for name in names if name.endswith(".dist-info/WHEEL"))
    assert "Root-Is-Purelib: true" in archive.read(metadata).decode()


def test_a_failing_c_compile_falls_back_to_the_pure_wheel(tmp_path: Path) -> None:
    """A compiler that is there but fails (here a CC that exits 1) does not fail the install:
    the wheel is the pure one, and one line says why."""
    failing = tmp_path / "failing-cc"
    failing.write_text("#!/bin/sh\necho 'failing-cc: error: this compiler always fails' >&2\n"
                       "exit 1\n", encoding="utf-8")
    failing.chmod(0o755)
    log, wheel = _wheel_with(tmp_path, _source_copy(tmp_path), CC=str(failing))
    assert "fairdeal build: compiling" in log  # mypyc ran: the failure is the C compiler's
    lines = [line for line in log.splitlines() if "fairdeal build: the C compile failed" in line]
    assert len(lines) == 1, log[-4000:]
    # the compiler is named, not its hundreds of characters of flags
    assert "failing-cc returned non-zero exit status 1" in lines[0], lines[0]
    assert "-fPIC" not in lines[0], lines[0]
    assert lines[0].endswith("so the pure-Python build (nothing compiled)"), lines[0]
    _assert_pure(wheel)


def test_a_failing_mypyc_falls_back_to_the_pure_wheel(tmp_path: Path) -> None:
    """mypyc refusing the source (a type error in a compiled module) gives the pure wheel."""
    source = _source_copy(tmp_path)
    errors = source / "verifier" / "errors.py"
    errors.write_text(errors.read_text(encoding="utf-8") + "\nNOT_AN_INT: int = 'text'\n",
                      encoding="utf-8")
    log, wheel = _wheel_with(tmp_path, source)
    lines = [line for line in log.splitlines() if "fairdeal build: mypyc failed" in line]
    assert len(lines) == 1, log[-4000:]
    assert lines[0].endswith("so the pure-Python build (nothing compiled)"), lines[0]
    _assert_pure(wheel)
