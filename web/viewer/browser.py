"""Verification in the visitor's browser: the pinned Pyodide runtime and fairdeal's own
packages, served from this origin; the Web Worker that runs them; the /verify page.

Only the worker's script gets ``'wasm-unsafe-eval'`` (a dedicated worker runs under the policy
its own script is served with, and Pyodide compiles its interpreter there); every page keeps
the viewer's strict policy, with no inline script."""

from __future__ import annotations

from typing import Any

from flask import (
    Response,
    abort,
    current_app,
    render_template,
    request,
    send_from_directory,
    url_for,
)

from .blueprint import bp
from .runtime import (
    PYODIDE_FILES,
    PYODIDE_VERSION,
    archive_sha256,
    fairdeal_version,
    package_archive,
    runtime_dir,
    runtime_ready,
)
from .seed import SEED_NAME, seed_version

__all__ = ["WORKER_CSP", "browser_verifier"]

#: the worker loads the runtime from this origin and compiles WebAssembly; nothing else
WORKER_CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'"
_TYPES = {".js": "text/javascript", ".wasm": "application/wasm", ".zip": "application/zip",
          ".json": "application/json"}
#: what a visitor is told when this server has no runtime
ENABLE_HINT = ("Browser verification is not enabled on this site: its operator runs "
               "`make pyodide` (needs npm) to fetch the pinned Pyodide runtime. Until then, "
               "download the bundle and run `fairdeal verify` yourself.")


def _folder() -> Any:
    return runtime_dir(current_app.config.get("FAIRDEAL_PYODIDE_DIR"))


def browser_verifier() -> dict[str, Any]:
    """What a page needs to start the browser verifier, or why it cannot."""
    if not runtime_ready(_folder()):
        return {"enabled": False, "hint": ENABLE_HINT}
    _, etag = package_archive()
    # the folder the worker hands loadPyodide: the address of any runtime file, less its name
    runtime = url_for("viewer.pyodide_file", version=PYODIDE_VERSION,
                      name=PYODIDE_FILES[0]).rsplit("/", 1)[0] + "/"
    packages = url_for("viewer.fairdeal_packages", v=etag)
    bytecode = url_for("viewer.static", filename="bytecode_cache.py")
    extra = {}
    seed = seed_version(_folder())
    if seed is not None:  # the standard library's bytecode, for a first visit (seed.py)
        extra["seed"] = url_for("viewer.pyodide_file", version=PYODIDE_VERSION,
                                name=SEED_NAME, v=seed)
    worker = url_for("viewer.verify_worker", runtime=runtime, packages=packages,
                     bytecode=bytecode, **extra)
    # what this server says its verifier is; the page shows the hash the browser computes over
    # the bytes it loaded, and says so when the two differ
    return {"enabled": True, "worker": worker, "version": PYODIDE_VERSION,
            "script": url_for("viewer.static", filename="browser-verify.js"),
            "archive_sha256": archive_sha256(), "fairdeal_version": fairdeal_version()}


@bp.route("/pyodide/<version>/<name>")
def pyodide_file(version: str, name: str) -> Any:
    """One file of the pinned runtime; the version is in the path, so it is cached for good."""
    if version != PYODIDE_VERSION or name not in PYODIDE_FILES + (SEED_NAME,):
        abort(404, description=f"no runtime file {version}/{name}")
    folder = _folder()
    if not runtime_ready(folder):
        abort(404, description=ENABLE_HINT)
    if name == SEED_NAME:
        return _seed(folder)
    suffix = name[name.rfind("."):]
    response = send_from_directory(folder, name, mimetype=_TYPES[suffix], max_age=31536000)
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


def _seed(folder: Any) -> Any:
    """The bytecode seed: cached for good under its own hash (?v=), revalidated otherwise."""
    version = seed_version(folder)
    if version is None:
        abort(404, description="this site has no bytecode seed (`make pyodide` builds it)")
    response = send_from_directory(folder, SEED_NAME, mimetype="application/octet-stream",
                                   max_age=0)
    if request.args.get("v") == version:
        response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@bp.route("/pyodide/fairdeal.zip")
def fairdeal_packages() -> Any:
    """fairdeal.verifier and fairdeal.games as one zip, built from the installed code."""
    data, etag = package_archive()
    response = Response(data, mimetype="application/zip")
    response.set_etag(etag)
    # the page asks for ?v=<etag>: that URL names these bytes forever
    if request.args.get("v") == etag:
        response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    else:
        response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


@bp.route("/verify-worker.js")
def verify_worker() -> Any:
    """The Web Worker, under the only policy that allows compiling WebAssembly."""
    response = send_from_directory(bp.static_folder or "", "verify-worker.js",
                                   mimetype="text/javascript", max_age=0)
    response.headers["Content-Security-Policy"] = WORKER_CSP
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/verify")
def verify_page() -> Any:
    """Drop or paste bundles; verified in the browser, never uploaded."""
    return render_template("viewer/verify.html", browser=browser_verifier())
