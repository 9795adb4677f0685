"""The browser verifier's archive is reproducible — the same bytes from the same sources on any
machine, whatever the files' mtimes, modes, order on disk or the umask — and holds exactly what
a wheel of this release installs for fairdeal.verifier and fairdeal.games; its SHA-256 is what
`fairdeal verifier-hash` prints and what the pages name (break 12 of issue 18)."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.web.viewer.runtime import (
    PluginPackage,
    archive_files,
    archive_sha256,
    build_archive,
    installed_plugins,
    installed_roots,
    package_archive,
    plugin_entries,
)

ROOT = Path(__file__).resolve().parents[3]
#: builds the archive of the packages under argv[1] (verifier/, games/) in a fresh interpreter
_BUILD = ("import os, sys; from pathlib import Path; os.umask(int(sys.argv[3], 8)); "
          "from fairdeal.web.viewer.runtime import build_archive, installed_plugins; "
          "Path(sys.argv[2]).write_bytes(build_archive("
          "{name: Path(sys.argv[1]) / name for name in ('verifier', 'games')}, "
          "installed_plugins()))")


def _copy(source: Path, target: Path, *, reverse: bool, mode: int, mtime: float) -> None:
    """``source``'s tree at ``target``, files created in sorted or reversed order (so that the
    file system lists them differently), each with ``mode`` and ``mtime``."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir(), reverse=reverse):
        if path.name == "__pycache__":
            continue
        if path.is_dir():
            _copy(path, target / path.name, reverse=reverse, mode=mode, mtime=mtime)
        else:
            shutil.copyfile(path, target / path.name)
            (target / path.name).chmod(mode)
            os.utime(target / path.name, (mtime, mtime))


def _build_in_subprocess(tree: Path, out: Path, umask: str, hash_seed: str) -> bytes:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, TZ="Pacific/Kiritimati" if hash_seed == "1"
               else "America/Adak", SOURCE_DATE_EPOCH="")
    subprocess.run([sys.executable, "-c", _BUILD, str(tree), str(out), umask], check=True,
                   env=env, cwd=tree)
    return out.read_bytes()


def test_the_archive_is_the_same_bytes_from_differently_touched_copies(tmp_path: Path) -> None:
    roots = installed_roots()
    first, second = tmp_path / "first", tmp_path / "second"
    for name, root in roots.items():
        _copy(root, first / name, reverse=False, mode=0o644, mtime=1_000_000_000)
        _copy(root, second / name, reverse=True, mode=0o600, mtime=1_900_000_000.5)
    # what a used checkout also has: compiled files, a folder that is no package, a backup
    (second / "verifier" / "__pycache__").mkdir()
    (second / "verifier" / "__pycache__" / "verify.cpython-311.pyc").write_bytes(b"\0" * 16)
    (second / "games" / "scratch").mkdir()
    (second / "games" / "scratch" / "notes.py").write_text("x = 1\n")
    (second / "verifier" / "verify.py.orig").write_text("old\n")
    a = _build_in_subprocess(first, tmp_path / "a.zip", "022", "1")
    b = _build_in_subprocess(second, tmp_path / "b.zip", "077", "2")
    assert a == b
    # and the same bytes as the installed package's archive, the one the site serves (with
    # every game plug-in installed from a package of its own)
    assert a == package_archive()[0] == build_archive(roots, installed_plugins())
    # every entry's metadata is fixed: no date, owner or mode of the machine that built it
    for info in zipfile.ZipFile(io.BytesIO(a)).infolist():
        assert info.date_time == (1980, 1, 1, 0, 0, 0), info.filename
        assert info.external_attr == 0o100644 << 16, info.filename
        assert info.compress_type == zipfile.ZIP_STORED and info.create_system == 3
        assert info.extra == b"" and info.comment == b""


def _wheel_files() -> dict[str, Path]:
    """What a wheel of this checkout installs for fairdeal.verifier and fairdeal.games, read
    from pyproject.toml's own rules: each listed package's modules (its folder's ``*.py``, not
    its subfolders'), and the package data every package gets (``py.typed``, ``*.json``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-data"]["*"] == ["py.typed", "*.json"]
    files: dict[str, Path] = {}
    for package in config["packages"]:
        top = ".".join(package.split(".")[:2])
        if top not in ("fairdeal.verifier", "fairdeal.games"):
            continue
        folder = ROOT / config["package-dir"][top] / Path(*package.split(".")[2:])
        for path in folder.iterdir():
            if path.is_file() and (path.suffix in (".py", ".json") or path.name == "py.typed"):
                files[package.replace(".", "/") + "/" + path.name] = path
    return files


def test_the_archive_holds_exactly_the_installed_package_s_source_files() -> None:
    archive = zipfile.ZipFile(io.BytesIO(package_archive()[0]))
    expected = _wheel_files()
    ours = [name for name in archive.namelist() if name.startswith("fairdeal/")]
    assert sorted(ours) == sorted(expected) == ours
    for name, path in expected.items():
        assert archive.read(name) == path.read_bytes(), name
    # the rest is the game plug-ins installed from packages of their own, and their entry
    # points (each plug-in package's own tests check its files)
    plugins = installed_plugins()
    rest = {name for name in archive.namelist() if not name.startswith("fairdeal/")}
    assert rest == set(archive_files({}, plugins)) | set(plugin_entries(plugins))


def test_verifier_hash_prints_the_served_archive_s_sha256(tmp_path: Path) -> None:
    data, _ = package_archive()
    result = CliRunner().invoke(cli, ["verifier-hash", "-o", str(tmp_path / "fairdeal.zip")])
    assert result.exit_code == 0, result.output
    digest = hashlib.sha256(data).hexdigest()
    assert result.stdout == f"{digest}  fairdeal.zip\n" and archive_sha256() == digest
    assert (tmp_path / "fairdeal.zip").read_bytes() == data
    # the printed line is what `sha256sum -c` checks a downloaded copy against
    if shutil.which("sha256sum"):
        checked = subprocess.run(["sha256sum", "-c"], input=result.stdout, text=True,
                                 cwd=tmp_path, capture_output=True)
        assert checked.stdout == "fairdeal.zip: OK\n"


def test_verifier_hash_says_in_one_line_when_it_cannot_write_the_archive() -> None:
    result = CliRunner().invoke(cli, ["verifier-hash", "-o", "/nonexistent/d/fairdeal.zip"])
    assert result.exit_code == 1
    assert "Could not open file '/nonexistent/d/fairdeal.zip': No such file or directory" \
        in result.output and "Traceback" not in result.output


def test_a_game_plug_in_of_its_own_is_archived_with_its_entry_points(tmp_path: Path) -> None:
    # a plug-in package and a one-module plug-in, as installed_plugins() finds them
    package = tmp_path / "their_game"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text("PLUGIN = None\n")
    (package / "notes.txt").write_text("not archived\n")
    module = tmp_path / "one_game.py"
    module.write_text("PLUGIN = None\n")
    plugins = (PluginPackage("their-game", "2.0", {"their_game": package},
                             (("their", "their_game.plugin:PLUGIN"),)),
               PluginPackage("one-game", "1.0", {"one_game": module},
                             (("one", "one_game:PLUGIN"),)))
    data = build_archive({}, plugins)
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.namelist() == [
        "one_game-1.0.dist-info/METADATA", "one_game-1.0.dist-info/entry_points.txt",
        "one_game.py", "their_game-2.0.dist-info/METADATA",
        "their_game-2.0.dist-info/entry_points.txt", "their_game/__init__.py",
        "their_game/plugin.py"]
    unpacked = tmp_path / "unpacked"
    archive.extractall(unpacked)
    # what the browser's Python reads: the entry points, from the unpacked folder alone
    script = ("import sys; sys.path.insert(0, sys.argv[1]); "
              "from importlib.metadata import entry_points; "
              "print(sorted((p.name, p.value) for p in entry_points(group='fairdeal.games')))")
    out = subprocess.run([sys.executable, "-S", "-c", script, str(unpacked)], check=True,
                         capture_output=True, text=True, cwd=tmp_path).stdout
    assert out == "[('one', 'one_game:PLUGIN'), ('their', 'their_game.plugin:PLUGIN')]\n"
