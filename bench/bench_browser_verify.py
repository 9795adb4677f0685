"""Benchmark: time to the browser's verdict on a match page, for a ~300-event match.

Debian's chromium opens the match page of a long two-tower duel (random bots, moves signed by
both seats, so the pure-Python Ed25519 runs on every move) served by the project's app:

- first load: a fresh on-disk browser profile, so Pyodide (~12 MB unpacked) and fairdeal's zip
  come over the loopback, WebAssembly is compiled and Python compiles every module it imports;
- cached: the browser is closed, then started again on that same profile (the folder on disk:
  its HTTP cache, Chromium's compiled-code cache and the verifier's bytecode cache are the ones
  a returning visitor has) and opens the page again.

Each run measures three pages in turn, in the same run: "before" is the page as it was
before issue 20 (its script tag deferred, so the worker starts once the page is parsed; no
bytecode cache), made from today's page by rewriting its HTML on the way to the browser;
"noseed" is today's page on a site without the bytecode seed (no Node.js when the runtime was
fetched); "after" is the page as served, with the seed (built here if the runtime folder has
none: `make pyodide` builds it). The time is from navigation start to the browser's verdict
on the page. The anchor is `verify_bytes` on the same bytes in this CPython process
(cryptography's OpenSSL Ed25519), and with the pure-Python Ed25519 alone: ratios are what to
compare across machines.

``--before TREE`` makes "before" the verifier as it was too, not only the page: its worker
script and fairdeal.zip are served from another checkout's source (``git worktree add --detach
TREE COMMIT``), so that a faster verifier or worker shows against it; without it "before" runs
today's worker and verifier. With it, "noseed" gives way to "main": today's page as served,
seed and all, with TREE's worker and verifier (the anchor of a change to the worker, in the
same run).

    python bench/bench_browser_verify.py [--runs 5] [--events 300] [--before TREE]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.verifier import keys
from fairdeal.verifier.verify import verify_bytes
from fairdeal.web.viewer.runtime import (
    build_archive,
    fetch_runtime,
    installed_plugins,
    runtime_dir,
    runtime_ready,
)
from fairdeal.web.viewer.seed import build_seed, seed_version

CHROMIUM = os.environ.get("FAIRDEAL_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def long_match(events: int) -> bytes:
    """The first simulated match with at least ``events`` events (signed moves). Free Steppe's
    victory at tower 200 makes random bots play long duels (about 300 events)."""
    settings = SimulationSettings("arcomage", {"deck": "normal", "battlefield": "Free Steppe"},
                                  ("random", "random"), signed_moves=True, timeout_chance=0.0)
    longest = b"", 0
    for bundle in simulate_matches(settings, 50, seed="bench-browser", server_key=None):
        data = json.dumps(bundle, separators=(",", ":")).encode()
        if len(bundle["events"]) >= events:
            return data
        if len(bundle["events"]) > longest[1]:
            longest = data, len(bundle["events"])
    return longest[0]


def cpython_anchor(data: bytes, runs: int) -> dict[str, float]:
    """Median seconds of verify_bytes here: with OpenSSL, and with the pure-Python Ed25519."""
    openssl = []
    for _ in range(runs):
        t0 = time.perf_counter()
        assert verify_bytes(data).ok
        openssl.append(time.perf_counter() - t0)
    chosen = list(keys._verifier)
    keys._verifier[:] = [keys._pure_verify]
    pure = []
    try:
        for _ in range(runs):
            t0 = time.perf_counter()
            assert verify_bytes(data).ok
            pure.append(time.perf_counter() - t0)
    finally:
        keys._verifier[:] = chosen
    return {"openssl": statistics.median(openssl), "pure": statistics.median(pure)}


def before_files(tree: Path) -> dict[str, bytes]:
    """The worker script and fairdeal.zip as ``tree``'s source makes them, by their path on the
    site (the installed game plug-ins of their own as they are)."""
    roots = {name: tree / name for name in ("verifier", "games")}
    return {"/verify-worker.js": (tree / "web/viewer/static/verify-worker.js").read_bytes(),
            "/pyodide/fairdeal.zip": build_archive(roots, installed_plugins())}


def serve(data: bytes, folder: Path, before: dict[str, bytes], pages: list[str]
          ) -> tuple[list[Any], dict[str, str]]:
    """The project's app with the match, on a server for each of ``pages``: as served
    ("after"), with its match page rewritten as it was before issue 20 ("before", with
    ``before``'s files in place of today's), as on a site without the seed ("noseed") and as
    served with ``before``'s files ("main"); the match page's URL on each."""
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    from fairdeal.web.app import create_app

    app = create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False})
    match_id, report = app.extensions["fairdeal.ledger"].import_bundle(data)
    assert match_id is not None, report.failure
    servers, urls = [], {}
    wsgis = {"after": app.wsgi_app, "before": Before(app.wsgi_app, files=before),
             "noseed": Before(app.wsgi_app, only_seed=True),
             "main": Before(app.wsgi_app, files=before, as_served=True)}
    for page in pages:
        wsgi = wsgis[page]
        httpd = make_server("127.0.0.1", 0, wsgi, threaded=True)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        urls[page] = f"http://127.0.0.1:{httpd.server_port}/m/{match_id}"
    return servers, urls


class Before:
    """WSGI middleware: the match page as it was before issue 20 — the verifier's script
    deferred (the worker starts once the page is parsed) and no bytecode cache or seed (the
    worker is not told where they are), and ``files`` (by path) in place of the app's bodies.
    Everything else is the app's own answer."""

    def __init__(self, app: Any, only_seed: bool = False,
                 files: dict[str, bytes] | None = None, as_served: bool = False) -> None:
        self.app = app
        self.as_served = as_served  # "main": the page as served, only ``files`` replaced
        self.only_seed = only_seed  # "noseed": today's page on a site without the seed
        self.files = files or {}

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "")
        if not path.startswith("/m/") and path not in self.files:
            return self.app(environ, start_response)
        kept: list[Any] = []
        body = b"".join(self.app(environ, lambda status, headers, *rest: kept.extend(
            [status, headers])))
        if path in self.files:  # a 304 stays one: the browser keeps the body it was given
            body = self.files[path] if kept[0].startswith("200") else body
        elif self.as_served:
            pass
        elif self.only_seed:
            body = re.sub(rb"&(amp;)?seed=[^&\"]*", b"", body)
        else:
            html = re.sub(r"&(amp;)?(bytecode|seed)=[^&\"]*", "", body.decode())
            body = html.replace('" async></script>', '" defer></script>').encode()
        headers = [(k, v) for k, v in kept[1] if k.lower() != "content-length"]
        start_response(kept[0], headers + [("Content-Length", str(len(body)))])
        return [body]


PARTS = ("worker_ms", "runtime_ms", "packages_ms", "imports_ms", "snapshot_ms", "verify_ms",
         "rest_ms")
NAMES = {"worker_ms": "page until the worker starts", "runtime_ms": "Pyodide's start",
         "packages_ms": "fairdeal's zip", "imports_ms": "imports",
         "snapshot_ms": "making the snapshot", "verify_ms": "verification",
         "rest_ms": "the rest (messages, drawing)"}


def browser_cpu(profile: str) -> float:
    """CPU seconds (user and system) used so far by the browser started on ``profile`` and
    every process under it (renderers, where the worker runs, the GPU and network services):
    what the machine's load disturbs less than the time to the verdict."""
    tick = os.sysconf("SC_CLK_TCK")
    processes = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        processes[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]),
                                      f"--user-data-dir={profile}".encode() in command)
    ours = {pid for pid, (_, _, root) in processes.items() if root}
    grown = True
    while grown:
        below = {pid for pid, (parent, _, _) in processes.items() if parent in ours} - ours
        grown = bool(below)
        ours |= below
    return sum(processes[pid][1] for pid in ours) / tick


def verdict(tab: Any, url: str, before: bool, profile: str) -> dict[str, Any]:
    """Open ``url``; the milliseconds from navigation to the browser's verdict and their parts,
    and the browser's CPU seconds until then."""
    tab.goto(url)
    tab.wait_for_function("() => ['agree', 'disagree', 'error'].includes("
                          "document.getElementById('browser-verify').dataset.state)",
                          timeout=300_000)
    state = tab.evaluate("document.getElementById('browser-verify').dataset.state")
    assert state == "agree", state
    total = tab.evaluate("performance.now()")  # the verdict was just drawn
    cpu = browser_cpu(profile)
    browser = tab.evaluate("window.fairdealBrowserReport.browser")
    worker = tab.workers[0]
    origin = worker.evaluate("performance.timeOrigin") - tab.evaluate("performance.timeOrigin")
    start = browser["startup"]
    parts = {"worker_ms": origin + start["since_worker_ms"], "runtime_ms": start["runtime_ms"],
             "packages_ms": start["packages_ms"], "imports_ms": start["imports_ms"],
             "snapshot_ms": start.get("snapshot_ms", 0), "verify_ms": browser["seconds"] * 1000}
    parts["rest_ms"] = total - sum(parts.values())
    if not before:  # the bytecode kept for the next visit, before the browser closes
        worker.evaluate("() => new Promise(function wait(done) { self.fairdealBytecode.saved"
                        " || self.fairdealBytecode.error ? done() : setTimeout(wait, 50, done) })")
        assert "error" not in worker.evaluate("self.fairdealBytecode"), "bytecode not kept"
        # and the memory snapshot, where the worker makes one (main's did not)
        worker.evaluate("() => new Promise(function wait(done) { !self.fairdealSnapshot"
                        " || self.fairdealSnapshot.saved || self.fairdealSnapshot.error ? done()"
                        " : setTimeout(wait, 50, done) })")
        kept = worker.evaluate("self.fairdealSnapshot || {}")
        assert "error" not in kept, f"snapshot not kept: {kept['error']}"
    snapshot = start.get("snapshot")
    if snapshot and start.get("snapshot_bytes"):
        snapshot = {**snapshot, "MB": round(start["snapshot_bytes"] / 2**20, 1)}
    return {"total_ms": total, "cpu_s": cpu, "bytecode": start.get("bytecode"),
            "snapshot": snapshot, **parts}


def one_run(p: Any, url: str, before: bool) -> dict[str, dict[str, Any]]:
    """A first load in a fresh on-disk profile, then the same profile started again."""
    profile = tempfile.mkdtemp(prefix="fairdeal-bench-profile-")
    try:
        seen = {}
        for name in ("first load", "cached"):
            context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM,
                                                           args=ARGS)
            try:
                seen[name] = verdict(context.new_page(), url, before, profile)
            finally:
                context.close()
        return seen
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def report(anchor: dict[str, float], runs: dict[str, list[dict[str, dict[str, Any]]]]) -> None:
    median = statistics.median
    totals, cpus = {}, {}
    for page, seen in runs.items():
        for name in ("first load", "cached"):
            rows = [run[name] for run in seen]
            total = median(row["total_ms"] for row in rows) / 1000
            totals[page, name] = total
            cpus[page, name] = median(row["cpu_s"] for row in rows)
            verify = median(row["verify_ms"] for row in rows) / 1000
            print(f"{page:<6} {name:<10} to verdict: {total:6.2f} s  (verification "
                  f"{verify:.2f} s = {verify / anchor['pure']:.1f}x CPython pure, "
                  f"{verify / anchor['openssl']:.0f}x CPython OpenSSL; "
                  f"bytecode {rows[0]['bytecode']}; snapshot {rows[0]['snapshot']})")
            parts = {part: median(row[part] for row in rows) / 1000 for part in PARTS}
            print("       " + ", ".join(f"{NAMES[part]} {parts[part]:.2f}" for part in PARTS))
            print(f"       the browser's CPU to the verdict {cpus[page, name]:.2f} s; each run, "
                  "to verdict / Pyodide's start / verification / CPU: " + ", ".join(
                      f"{row['total_ms'] / 1000:.2f}/{row['runtime_ms'] / 1000:.2f}/"
                      f"{row['verify_ms'] / 1000:.2f}/{row['cpu_s']:.2f}" for row in rows))
    for name in ("first load", "cached"):
        for page in [page for page in runs if page != "before"]:
            print(f"{page} / before, {name}: {totals[page, name] / totals['before', name]:.2f}")
        if "main" in runs:
            print(f"after / main, {name}: {totals['after', name] / totals['main', name]:.2f}"
                  f" (the browser's CPU: {cpus['after', name] / cpus['main', name]:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--before", type=Path, help="a checkout whose worker and verifier "
                        "the \"before\" page runs (default: today's)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    if not runtime_ready(runtime_dir()):
        fetch_runtime(runtime_dir())
    if seed_version(runtime_dir()) is None:
        build_seed(runtime_dir())
    data = long_match(args.events)
    events = len(json.loads(data)["events"])
    anchor = cpython_anchor(data, args.runs)
    pages = ["before", "main" if args.before else "noseed", "after"]
    runs: dict[str, list[dict[str, dict[str, Any]]]] = {page: [] for page in pages}
    load = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        servers, urls = serve(data, Path(folder), before_files(args.before) if args.before
                              else {}, pages)
        for _ in range(args.runs):
            for page in runs:  # alternating: the machine's load hits each alike
                runs[page].append(one_run(p, urls[page], page == "before"))
                load.append(os.getloadavg()[0])
        for httpd in servers:
            httpd.shutdown()
    print(f"match: {events} events, {len(data) / 1024:.0f} kB, both seats' moves signed; "
          f"{args.runs} runs, medians (load average {statistics.median(load):.1f} on "
          f"{os.cpu_count()} cores)")
    print(f"anchor  CPython verify_bytes, OpenSSL Ed25519: {anchor['openssl'] * 1000:6.0f} ms")
    print(f"        CPython verify_bytes, pure Ed25519:    {anchor['pure'] * 1000:6.0f} ms")
    report(anchor, runs)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
