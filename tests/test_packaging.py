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
