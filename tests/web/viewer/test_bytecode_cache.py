"""The browser verifier's bytecode cache (web/viewer/static/bytecode_cache.py), run here as what
the worker makes it under Pyodide: the interpreter's ``sitecustomize``, in a real CPython
started for each visit, over modules in a folder and in a zip (Pyodide's standard library is a
zip). Code kept from an earlier visit is used only for the very source it was compiled from."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import fairdeal.web.viewer as viewer
from fairdeal.web.viewer.runtime import (
    PYODIDE_FILES,
    PYODIDE_VERSION,
    fetch_runtime,
    runtime_dir,
    runtime_ready,
)
from fairdeal.web.viewer.seed import SEED_NAME, build_seed, seed_version
from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app

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


def test_a_seed_is_used_for_the_standard_library_only(tmp_path: Path) -> None:
    """The server's seed (a first visit's) may not stand in for any module outside the standard
    library's zip: fairdeal's own code always runs as compiled from the archive it hashed."""
    env = _folder(tmp_path)
    first = _visit(tmp_path, env)  # kept: entries for plain.py and lib.zip's modules
    kept = tmp_path / "kept"
    magic, body = kept.read_bytes()[:4], kept.read_bytes()[4:]
    Path(str(kept) + "-seed").write_bytes(magic + zlib.compress(body))
    kept.unlink()
    seeded = _visit(tmp_path, env)
    assert seeded["values"] == [1, "inner", "lazy"]
    # CPython's standard library is no zip here: nothing in the seed is the standard library's
    assert seeded["cached"] == 0 and seeded["compiled"] == first["compiled"]


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
        tmp_path: Path, signed_site: tuple[str, str],
        first_visit: tuple[Path, dict[str, Any]]) -> None:
    """A browser profile on disk, closed and started again, as a visitor's is. The first visit
    takes the standard library's code from the site's seed (built by Pyodide under Node.js),
    compiles fairdeal's own modules, all of them, and keeps a memory snapshot; the second takes
    Pyodide from the HTTP cache and restores the snapshot (nothing compiled, nothing imported
    again); a third, its snapshot gone, takes every module from the bytecode cache (none
    compiled). All give `fairdeal verify --json`'s report."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    url, match_id = signed_site
    profile, first = first_visit
    visits = [first]
    returning = _returning(profile, tmp_path)
    with playwright_api.sync_playwright() as p:
        for visit in range(1, 3):
            context = p.chromium.launch_persistent_context(
                str(returning), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                tab = context.new_page()
                visits.append(_visit_page(tab, f"{url}/m/{match_id}"))
                if visit == 1:  # the bytecode cache alone, as where the snapshot is stale
                    tab.workers[0].evaluate("caches.delete('fairdeal-snapshot')")
            finally:
                context.close()
    cli = _cli_reports([SIGNED])[SIGNED.name]
    first, second, third = visits
    for visit in visits:
        assert _without_browser(visit["report"]) == cli
    counts = first["report"]["browser"]["startup"]["bytecode"]
    assert counts["cached"] > 100  # Pyodide's own modules, from the seed
    # fairdeal's archive is unpacked into Python's working folder, outside the stdlib's zip
    ours = {origin.split("/fairdeal/", 1)[1] for origin in first["compiled"]
            if "/fairdeal/" in origin and ".zip/" not in origin}
    assert len(ours) > 30 and {"verifier/verify.py", "games/plugin.py"} <= ours
    # counted when the worker is ready; the verification imports more as it goes
    assert 0 < counts["compiled"] <= len(first["compiled"])
    assert first["snapshot"] == {"restore": "none", "made": True, "saved": True}
    assert second["snapshot"] == {"restore": "restored", "made": False, "saved": True}
    assert second["report"]["browser"]["startup"]["bytecode"] == {"cached": 0, "compiled": 0}
    assert second["compiled"] == []  # the match's game, imported after the snapshot: cached
    assert third["snapshot"]["restore"] == "none"
    assert third["report"]["browser"]["startup"]["bytecode"] == {
        "cached": counts["cached"] + counts["compiled"], "compiled": 0}
    assert third["compiled"] == []
    runtime = [url for url in first["sizes"]
               if url.split(f"/pyodide/{PYODIDE_VERSION}/")[-1] in PYODIDE_FILES]
    assert len(runtime) == 5 and all(first["sizes"][url] > 0 for url in runtime)
    for visit in (second, third):
        assert all(visit["sizes"][url] == 0 for url in runtime)  # from the HTTP cache
    seed = [url for url in first["sizes"] if SEED_NAME in url]
    assert len(seed) == 1 and seed[0] not in second["sizes"]  # the bytecode cache instead


#: changes an earlier visit's snapshot, in the worker: its bytes (their hash no longer
#: theirs), its first bytes with their hash made to match (Pyodide itself refuses them), or
#: the inputs it says it was made from
TAMPER = """async (kind) => {
  const cache = await caches.open("fairdeal-snapshot");
  const key = (await cache.keys())[0];
  const kept = await cache.match(key);
  const heap = new Uint8Array(await kept.arrayBuffer());
  const headers = {};
  kept.headers.forEach((value, name) => { headers[name] = value; });
  if (kind === "damaged") heap[heap.length >> 1] ^= 1;
  if (kind === "refused") {
    heap[0] ^= 1;
    headers["x-fairdeal-snapshot-sha256"] = hex(await crypto.subtle.digest("SHA-256", heap));
  }
  if (kind === "stale") headers["x-fairdeal-snapshot-of"] = "0".repeat(64);
  await cache.put(key, new Response(heap, { headers: headers }));
}"""


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")
def test_a_snapshot_damaged_refused_or_made_from_other_inputs_is_never_used(
        tmp_path: Path, signed_site: tuple[str, str],
        first_visit: tuple[Path, dict[str, Any]]) -> None:
    """Each visit finds the snapshot the last one kept changed: damaged bytes, bytes whose
    hash was made to match but that Pyodide refuses (another magic number), or made from other
    inputs (another archive, cache or worker). None is restored: Python starts as it always
    did, in the same worker, gives `fairdeal verify --json`'s report, and keeps a new one."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    url, match_id = signed_site
    profile, first = first_visit
    visits = [first]
    returning = _returning(profile, tmp_path)
    with playwright_api.sync_playwright() as p:
        # the first visit's snapshot damaged, from a page of the site that starts no Python
        # (the same origin, so the same cache the worker keeps it in)
        context = p.chromium.launch_persistent_context(
            str(returning), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            tab = context.new_page()
            tab.goto(f"{url}/")
            tab.evaluate(TAMPER, "damaged")
        finally:
            context.close()
        for kind in ("refused", "stale", None):
            context = p.chromium.launch_persistent_context(
                str(returning), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                tab = context.new_page()
                visits.append(_visit_page(tab, f"{url}/m/{match_id}"))
                if kind:
                    tab.workers[0].evaluate(TAMPER, kind)
            finally:
                context.close()
    cli = _cli_reports([SIGNED])[SIGNED.name]
    for visit in visits:
        assert _without_browser(visit["report"]) == cli
    first, damaged, refused, stale = (visit["snapshot"] for visit in visits)
    assert first == {"restore": "none", "made": True, "saved": True}
    assert damaged["restore"] == "failed: damaged: its bytes are not the ones kept"
    assert refused["restore"] == "failed: Snapshot has invalid magic number"
    assert stale["restore"] == "stale"
    assert damaged["made"] and refused["made"] and stale["made"]  # each keeps a new one
    assert all(visit["compiled"] == [] for visit in visits[1:])  # the bytecode cache's code


@pytest.fixture(scope="session")
def seeded_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned runtime's files (linked, not copied) in a folder of their own, with the seed
    built there (by Pyodide under Node.js, a few CPU-seconds: once per test process, as no
    visit changes it)."""
    folder = runtime_dir()
    if not runtime_ready(folder):
        fetch_runtime(folder)
    seeded = tmp_path_factory.mktemp("runtime")
    for name in (*PYODIDE_FILES, "VERSION"):
        (seeded / name).symlink_to((folder / name).resolve())
    build_seed(seeded)
    return seeded


@pytest.fixture(scope="module")
def signed_site(seeded_folder: Path,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The project's app, over SQLite, holding the signed fixture, serving the seeded runtime;
    sealed by the fixtures' key, so its page says "every check passed" and the browser agrees.
    One for the module, on one port: a browser profile's caches are the origin's, so a profile
    kept from one visit is a returning visitor's only on the same address."""
    from fairdeal.ledger.keys import KEY_FILE
    from fairdeal.verifier.keys import SigningKey
    from fairdeal.web.app import create_app

    data_dir = tmp_path_factory.mktemp("data")
    key = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())
    (data_dir / KEY_FILE).write_bytes(key.to_pem())
    (data_dir / KEY_FILE).chmod(0o600)
    app = create_app({"FAIRDEAL_DATA_DIR": str(data_dir), "FAIRDEAL_SWEEPER": False,
                      "FAIRDEAL_PYODIDE_DIR": str(seeded_folder)})
    match_id, report = app.extensions["fairdeal.ledger"].import_bundle(SIGNED.read_bytes())
    assert match_id is not None, report.failure
    with serving(app) as url:
        yield url, match_id


@pytest.fixture(scope="module")
def first_visit(signed_site: tuple[str, str],
                tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A visitor's first visit to the match page, in a browser profile on disk, closed: the
    profile as it left it, and what the visit saw. Both tests above start from a copy of it
    (``_returning``): the cold start, the longest visit, is made once."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    url, match_id = signed_site
    profile = tmp_path_factory.mktemp("first-visit") / "profile"
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            visit = _visit_page(context.new_page(), f"{url}/m/{match_id}")
        finally:
            context.close()
    return profile, visit


def _returning(profile: Path, tmp_path: Path) -> Path:
    """The test's own copy of the first visit's profile (``tmp_path``/profile)."""
    copy = tmp_path / "profile"
    shutil.copytree(profile, copy, symlinks=True)
    return copy


def _visit_page(tab: Any, url: str) -> dict[str, Any]:
    """Open the match page; the browser's report, how many bytes each file the worker
    fetched came over the network with (0: from the HTTP cache), what it compiled and what
    became of the memory snapshot, once the bytecode and the snapshot are kept."""
    tab.goto(url)
    tab.wait_for_function("() => ['agree', 'disagree', 'error'].includes("
                          "document.getElementById('browser-verify').dataset.state)",
                          timeout=SLOW)
    assert tab.evaluate("document.getElementById('browser-verify').dataset.state") == "agree"
    worker = tab.workers[0]
    worker.evaluate("() => new Promise(function wait(done) { self.fairdealBytecode.saved"
                    " || self.fairdealBytecode.error ? done() : setTimeout(wait, 50, done) })")
    assert worker.evaluate("self.fairdealBytecode") == {"saved": True, "saving": True}
    worker.evaluate("() => new Promise(function wait(done) { self.fairdealSnapshot.saved"
                    " || self.fairdealSnapshot.error ? done() : setTimeout(wait, 50, done) })")
    sizes = worker.evaluate("Object.fromEntries(performance.getEntriesByType('resource')"
                            ".map(e => [e.name, e.transferSize]))")
    compiled = json.loads(worker.evaluate(
        "ready.then(py => py.runPython('import json, sitecustomize\\n"
        "json.dumps(sitecustomize.CACHE.compiled_here)'))"))
    return {"report": tab.evaluate("window.fairdealBrowserReport"), "sizes": sizes,
            "compiled": compiled, "snapshot": worker.evaluate("self.fairdealSnapshot")}


# --- the seed: served, named to the worker ----------------------------------------------------

def test_the_seed_is_named_to_the_worker_and_served_cached_for_good(
        store: MemoryLedger, tmp_path: Path) -> None:
    for name in PYODIDE_FILES:
        (tmp_path / name).write_bytes(b"\0asm" if name.endswith(".wasm") else b"{}")
    (tmp_path / "VERSION").write_text(PYODIDE_VERSION + "\n")
    client = create_viewer_app(store, {"FAIRDEAL_PYODIDE_DIR": str(tmp_path)}).test_client()
    match_id = store.list_matches()[0]["match_id"]
    seed_url = f"/pyodide/{PYODIDE_VERSION}/{SEED_NAME}"
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert "seed=" not in page and client.get(seed_url).status_code == 404
    (tmp_path / SEED_NAME).write_bytes(b"seed bytes")
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    head = page.split("</head>")[0]
    # the verifier's script starts from the head, async, with the worker's URL and the seed's
    script = re.search(r'<script src="[^"]*browser-verify\.js" data-worker="([^"]*)" '
                       r'data-bundle-url="[^"]+" async></script>', head)
    assert script is not None, head
    worker = parse_qs(urlsplit(html.unescape(script.group(1))).query)
    assert worker["bytecode"][0].endswith("/bytecode_cache.py")
    version = seed_version(tmp_path)
    assert worker["seed"] == [f"{seed_url}?v={version}"]
    served = client.get(worker["seed"][0])
    assert served.data == b"seed bytes" and served.mimetype == "application/octet-stream"
    assert "immutable" in served.headers["Cache-Control"]
    assert "immutable" not in client.get(seed_url).headers.get("Cache-Control", "")
    assert client.get(worker["bytecode"][0]).data == CACHE_PY.read_bytes()


def test_make_pyodide_says_in_words_when_it_cannot_build_the_seed(tmp_path: Path) -> None:
    """`make pyodide` (fairdeal.web.viewer.seed's main): a runtime whose loader is not
    Pyodide's cannot build a seed; it says so in one line, writes nothing, and succeeds (the
    seed is an optimisation only)."""
    for name in PYODIDE_FILES:
        (tmp_path / name).write_bytes(b"{}")
    (tmp_path / "VERSION").write_text(PYODIDE_VERSION + "\n")
    done = subprocess.run([sys.executable, "-c", "import sys; from fairdeal.web.viewer.seed "
                           "import main; sys.exit(main())", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)  # as the Makefile
    assert done.returncode == 0, done.stderr
    assert f"Pyodide {PYODIDE_VERSION} is in {tmp_path}" in done.stdout
    assert done.stderr.startswith("fairdeal: no bytecode seed, a first visit compiles Python's "
                                  "standard library itself: ")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not list(tmp_path.glob(SEED_NAME + "*"))
