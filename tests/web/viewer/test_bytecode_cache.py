"""The browser verifier's bytecode cache (web/viewer/static/bytecode_cache.py), run here as what
the worker makes it under Pyodide: the interpreter's ``sitecustomize``, in a real CPython
started for each visit, over modules in a folder and in a zip (Pyodide's standard library is a
zip). Code kept from an earlier visit is used only for the very source it was compiled from."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fairdeal.web.viewer as viewer
from fairdeal.web.viewer.runtime import (
    PYODIDE_VERSION,
    fetch_runtime,
    runtime_dir,
    runtime_ready,
)

from .browsing import CHROMIUM, CHROMIUM_ARGS, serving
from .test_browser_verify import SIGNED, SLOW, _cli_reports, _without_browser

CACHE_PY = Path(viewer.__file__).resolve().parent / "static" / "bytecode_cache.py"

#: one visit: import what the verifier would, say what came from where, keep the bytes
VISIT = """
import json, sys
import sitecustomize as s
import plain, zipped.inner
from importlib.resources import files
data = files("zipped").joinpath("data.json").read_text()
values = [plain.VALUE, zipped.inner.VALUE, zipped.later()]  # .later imports zipped.lazy
blob = s.CACHE.blob()
if blob is not None:
    open(sys.argv[1], "wb").write(blob)
print(json.dumps({"values": values, "data": data,
                  "cached": s.CACHE.cached, "compiled": s.CACHE.compiled,
                  "kept": blob is not None, "loader": type(plain.__loader__).__name__}))
"""


def _folder(tmp_path: Path, plain: str = "VALUE = 1\n") -> dict[str, str]:
    boot = tmp_path / "boot"
    boot.mkdir(exist_ok=True)
    (boot / "sitecustomize.py").write_bytes(CACHE_PY.read_bytes())
    lib = tmp_path / "lib"
    lib.mkdir(exist_ok=True)
    (lib / "plain.py").write_text(plain)
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as archive:
        archive.writestr("zipped/__init__.py", "def later():\n"
                                               "    from zipped import lazy\n"
                                               "    return lazy.VALUE\n")
        archive.writestr("zipped/inner.py", "VALUE = 'inner'\n")
        archive.writestr("zipped/lazy.py", "VALUE = 'lazy'\n")
        archive.writestr("zipped/data.json", '{"a": 1}')
    path = os.pathsep.join([str(boot), str(lib), str(tmp_path / "lib.zip")])
    return {**os.environ, "PYTHONPATH": path, "FAIRDEAL_BYTECODE": str(tmp_path / "kept"),
            "PYTHONDONTWRITEBYTECODE": "1"}


def _visit(tmp_path: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", VISIT, str(tmp_path / "kept")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    visit: dict[str, object] = json.loads(done.stdout)
    return visit


def test_a_second_visit_compiles_nothing_and_runs_the_same_code(tmp_path: Path) -> None:
    env = _folder(tmp_path)
    first = _visit(tmp_path, env)
    assert first["values"] == [1, "inner", "lazy"] and first["data"] == '{"a": 1}'
    # plain, zipped, .inner, .lazy and the standard library's modules the visit imported
    assert first["cached"] == 0 and isinstance(first["compiled"], int) and first["compiled"] > 4
    assert first["kept"] and first["loader"] == "CachedLoader"
    second = _visit(tmp_path, env)
    assert second["values"] == first["values"] and second["data"] == first["data"]
    assert second["cached"] == first["compiled"] and second["compiled"] == 0
    assert not second["kept"]  # nothing new: the kept bytes stay as they are


def test_code_kept_for_other_source_is_never_used(tmp_path: Path) -> None:
    env = _folder(tmp_path)
    first = _visit(tmp_path, env)
    _folder(tmp_path, plain="VALUE = 2\n")  # same length, another source (a new release)
    changed = _visit(tmp_path, env)
    assert changed["values"] == [2, "inner", "lazy"]
    assert changed["compiled"] == 1 and changed["kept"]
    assert changed["cached"] == first["compiled"] - 1
    again = _visit(tmp_path, env)
    assert again["values"] == [2, "inner", "lazy"] and again["compiled"] == 0


def test_another_python_s_or_damaged_bytes_are_ignored(tmp_path: Path) -> None:
    env = _folder(tmp_path)
    first = _visit(tmp_path, env)
    kept = tmp_path / "kept"
    good = kept.read_bytes()
    for damaged in (b"\x00\x00" + good[2:],   # another interpreter's magic number
                    good[: len(good) // 2],   # cut short
                    b"", b"junk"):
        kept.write_bytes(damaged)
        visit = _visit(tmp_path, env)
        assert visit["values"] == [1, "inner", "lazy"], damaged[:8]
        assert visit["cached"] == 0 and visit["compiled"] == first["compiled"]


def test_imported_under_another_name_it_changes_nothing() -> None:
    done = subprocess.run([sys.executable, "-c",
                           "import sys, runpy\n"
                           f"found = runpy.run_path({str(CACHE_PY)!r})\n"
                           "print(found['CachedFinder'] in sys.meta_path)"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


# --- in the browser: a returning visitor (issue 20) ------------------------------------------

@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")
def test_a_returning_visitor_loads_from_the_caches_and_gets_the_cli_s_verdict(
        tmp_path: Path, signed_site: tuple[str, str]) -> None:
    """A browser profile on disk, closed and started again, as a visitor's is: the second visit
    takes Pyodide from the HTTP cache and every module from the bytecode cache (none compiled),
    and both visits give `fairdeal verify --json`'s report."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    folder = runtime_dir()
    if not runtime_ready(folder):
        fetch_runtime(folder)
    url, match_id = signed_site
    visits = []
    with playwright_api.sync_playwright() as p:
        for _ in range(2):
            context = p.chromium.launch_persistent_context(
                str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                visits.append(_visit_page(context.new_page(), f"{url}/m/{match_id}"))
            finally:
                context.close()
    cli = _cli_reports([SIGNED])[SIGNED.name]
    first, second = visits
    for visit in visits:
        assert _without_browser(visit["report"]) == cli
    counts = first["report"]["browser"]["startup"]["bytecode"]
    assert counts["cached"] == 0 and counts["compiled"] > 100  # Pyodide's own and fairdeal's
    assert second["report"]["browser"]["startup"]["bytecode"] == {
        "cached": counts["compiled"], "compiled": 0}
    runtime = [name for name in first["sizes"] if f"/pyodide/{PYODIDE_VERSION}/" in name]
    assert len(runtime) == 5 and all(first["sizes"][name] > 0 for name in runtime)
    assert all(second["sizes"][name] == 0 for name in runtime)  # from the HTTP cache


@pytest.fixture
def signed_site(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The project's app, over SQLite, holding the signed fixture; sealed by the fixtures' key,
    so its page says "every check passed" and the browser agrees."""
    from fairdeal.ledger.keys import KEY_FILE
    from fairdeal.verifier.keys import SigningKey
    from fairdeal.web.app import create_app

    data_dir = tmp_path / "data"
    data_dir.mkdir()
    key = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())
    (data_dir / KEY_FILE).write_bytes(key.to_pem())
    (data_dir / KEY_FILE).chmod(0o600)
    app = create_app({"FAIRDEAL_DATA_DIR": str(data_dir), "FAIRDEAL_SWEEPER": False})
    match_id, report = app.extensions["fairdeal.ledger"].import_bundle(SIGNED.read_bytes())
    assert match_id is not None, report.failure
    with serving(app) as url:
        yield url, match_id


def _visit_page(tab: Any, url: str) -> dict[str, Any]:
    """Open the match page; the browser's report, and how many bytes each file the worker
    fetched came over the network with (0: from the HTTP cache), once the bytecode is kept."""
    tab.goto(url)
    tab.wait_for_function("() => ['agree', 'disagree', 'error'].includes("
                          "document.getElementById('browser-verify').dataset.state)",
                          timeout=SLOW)
    assert tab.evaluate("document.getElementById('browser-verify').dataset.state") == "agree"
    worker = tab.workers[0]
    worker.evaluate("() => new Promise(function wait(done) { self.fairdealBytecode.saved"
                    " || self.fairdealBytecode.error ? done() : setTimeout(wait, 50, done) })")
    assert worker.evaluate("self.fairdealBytecode") == {"saved": True, "saving": True}
    sizes = worker.evaluate("Object.fromEntries(performance.getEntriesByType('resource')"
                            ".map(e => [e.name, e.transferSize]))")
    return {"report": tab.evaluate("window.fairdealBrowserReport"), "sizes": sizes}
