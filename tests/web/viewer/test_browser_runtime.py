"""What the browser verifier is served: the pinned runtime, fairdeal's packages as one zip, the
worker under its own policy, and a page that says how to enable it when the runtime is absent."""

from __future__ import annotations

import io
import json
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from fairdeal.verifier.verify import verify_bytes
from fairdeal.web.viewer import runtime
from fairdeal.web.viewer.runtime import (
    PYODIDE_FILES,
    PYODIDE_VERSION,
    FetchError,
    fetch_runtime,
    package_archive,
    runtime_ready,
)
from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app

ROOT = Path(__file__).resolve().parents[3]
HONEST = ROOT / "fixtures" / "bundles" / "honest"
TAMPERED = ROOT / "fixtures" / "bundles" / "tampered"


def _id(bundle: dict[str, Any]) -> str:
    return str(bundle["events"][0]["match_id"])


@pytest.fixture()
def fake_runtime(tmp_path: Path) -> Path:
    """A runtime folder with the pinned version's file names (contents do not matter here)."""
    for name in PYODIDE_FILES:
        (tmp_path / name).write_bytes(b"\0asm" if name.endswith(".wasm") else b"{}")
    (tmp_path / "VERSION").write_text(PYODIDE_VERSION + "\n")
    return tmp_path


def _client(store: MemoryLedger, folder: Path) -> Any:
    return create_viewer_app(store, {"FAIRDEAL_PYODIDE_DIR": str(folder)}).test_client()


def test_the_archive_alone_runs_the_verifier_without_site_packages(tmp_path: Path) -> None:
    data, etag = package_archive()
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "fairdeal/verifier/verify.py" in names and "fairdeal/verifier/ed25519.py" in names
    assert any(name.startswith("fairdeal/games/wyrdstone/") for name in names)
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    assert not [name for name in names if name.startswith("fairdeal/")
                and name.split("/")[1] not in ("verifier", "games")]
    # beside fairdeal/, only the game plug-ins installed from packages of their own
    plugins = {name for plugin in runtime.installed_plugins() for name in plugin.packages}
    assert {name.split("/")[0] for name in names if not name.startswith("fairdeal/")
            and ".dist-info/" not in name} == plugins
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path)
    bundle = HONEST / "arcomage-signed-moves.json"
    # -S: no site-packages at all, so neither the installed fairdeal nor cryptography
    script = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
              "from fairdeal.verifier.verify import verify_bytes; "
              "import fairdeal.verifier.keys as keys; "
              "print(json.dumps([keys.signature_backend(), "
              "verify_bytes(open(sys.argv[2], 'rb').read()).to_json()]))")
    out = subprocess.run([sys.executable, "-S", "-c", script, str(tmp_path), str(bundle)],
                         check=True, capture_output=True, text=True).stdout
    backend, report = json.loads(out)
    assert backend == "pure-python"
    assert report == verify_bytes(bundle.read_bytes()).to_json()
    assert len(etag) == 32


def test_the_archive_is_cached_and_revalidated(store: MemoryLedger, fake_runtime: Path) -> None:
    client = _client(store, fake_runtime)
    data, etag = package_archive()
    first = client.get(f"/pyodide/fairdeal.zip?v={etag}")
    assert first.data == data and first.mimetype == "application/zip"
    assert "immutable" in first.headers["Cache-Control"]
    again = client.get("/pyodide/fairdeal.zip", headers={"If-None-Match": f'"{etag}"'})
    assert again.status_code == 304 and again.headers["Cache-Control"] == "no-cache"


def test_runtime_files_are_served_pinned_with_their_types(store: MemoryLedger,
                                                          fake_runtime: Path) -> None:
    client = _client(store, fake_runtime)
    wasm = client.get(f"/pyodide/{PYODIDE_VERSION}/pyodide.asm.wasm")
    assert wasm.status_code == 200 and wasm.mimetype == "application/wasm"
    assert "immutable" in wasm.headers["Cache-Control"]
    assert client.get(f"/pyodide/{PYODIDE_VERSION}/pyodide.js").mimetype == "text/javascript"
    assert client.get("/pyodide/0.0.1/pyodide.js").status_code == 404
    assert client.get(f"/pyodide/{PYODIDE_VERSION}/console.html").status_code == 404
    assert client.get(f"/pyodide/{PYODIDE_VERSION}/..%2Fruntime.py").status_code == 404


def test_only_the_worker_may_compile_webassembly(store: MemoryLedger, fake_runtime: Path,
                                                 arcomage_bundles: Any) -> None:
    client = _client(store, fake_runtime)
    page = client.get(f"/m/{_id(arcomage_bundles[0])}")
    assert "wasm-unsafe-eval" not in page.headers["Content-Security-Policy"]
    assert "script-src 'self';" in page.headers["Content-Security-Policy"]
    html = page.get_data(as_text=True)
    assert 'id="browser-verify"' in html and "browser-verify.js" in html
    assert "<script>" not in html  # no inline script, ever
    worker = client.get("/verify-worker.js?runtime=/pyodide/x/&packages=/p.zip")
    assert worker.status_code == 200 and worker.mimetype == "text/javascript"
    assert "'wasm-unsafe-eval'" in worker.headers["Content-Security-Policy"]
    assert "default-src 'none'" in worker.headers["Content-Security-Policy"]
    verify = client.get("/verify")
    assert "wasm-unsafe-eval" not in verify.headers["Content-Security-Policy"]
    assert 'data-worker="/verify-worker.js?' in verify.get_data(as_text=True)


def test_without_the_runtime_the_pages_say_how_to_enable_it(store: MemoryLedger,
                                                            tmp_path: Path,
                                                            arcomage_bundles: Any) -> None:
    client = _client(store, tmp_path / "none")
    page = client.get(f"/m/{_id(arcomage_bundles[0])}").get_data(as_text=True)
    assert "Browser verification is not enabled on this site" in page
    assert "make pyodide" in page and "browser-verify.js" not in page
    assert "✓ every check passed" in page  # the server's verdict is still there
    verify = client.get("/verify").get_data(as_text=True)
    assert "make pyodide" in verify and "browser-verify.js" not in verify
    missing = client.get(f"/pyodide/{PYODIDE_VERSION}/pyodide.js")
    assert missing.status_code == 404 and "make pyodide" in missing.get_data(as_text=True)


def test_a_live_match_has_no_browser_check_yet(store: MemoryLedger, fake_runtime: Path,
                                               helpers: Any) -> None:
    live = helpers.simulate("arcomage", 1, seed="live-in-browser")[0]
    store.add_live(live["events"][:6])
    client = _client(store, fake_runtime)
    page = client.get(f"/m/{_id(live)}").get_data(as_text=True)
    assert "not yet verifiable" in page
    assert 'id="browser-verify"' not in page and "browser-verify.js" not in page


def _fake_npm(folder: Path, tarball: bytes) -> str:
    """An `npm` that "packs" the given bytes: to prove the integrity check refuses them."""
    (folder / "payload.tgz").write_bytes(tarball)
    script = folder / "npm"
    script.write_text("#!/bin/sh\n# npm pack NAME --silent --pack-destination DIR\n"
                      f'cp "{folder / "payload.tgz"}" "$5/pyodide-{PYODIDE_VERSION}.tgz"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_fetch_refuses_a_tarball_that_is_not_the_pinned_one(tmp_path: Path) -> None:
    npm = _fake_npm(tmp_path, b"not the pyodide you pinned")
    with pytest.raises(FetchError, match="does not match the pinned integrity"):
        fetch_runtime(tmp_path / "runtime", npm)
    assert not runtime_ready(tmp_path / "runtime")


def test_fetch_without_npm_says_how(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FetchError, match="apt-get install npm"):
        fetch_runtime(tmp_path / "runtime")
    assert runtime.main(["--dir", str(tmp_path / "runtime")]) == 1


def test_the_runtime_folder_follows_the_setting(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRDEAL_PYODIDE_DIR", str(tmp_path))
    assert runtime.runtime_dir() == tmp_path
    assert runtime.runtime_dir(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("FAIRDEAL_PYODIDE_DIR")
    assert runtime.runtime_dir().parts[-3:] == ("viewer", "static", "pyodide")


def test_the_server_s_panel_says_who_could_have_influenced_the_deal(
        store: MemoryLedger, fake_runtime: Path, arcomage_bundles: Any) -> None:
    data = _bundle_bytes(arcomage_bundles[0])
    text = verify_bytes(data).facts["deal_influence"]["text"]
    page = _client(store, fake_runtime).get(f"/m/{_id(arcomage_bundles[0])}").get_data(
        as_text=True)
    assert "Who could have influenced this deal:" in page
    assert f'<span id="server-influence">{escape(text)}</span>' in page


def _bundle_bytes(bundle: dict[str, Any]) -> bytes:
    return json.dumps(bundle, separators=(",", ":")).encode()
