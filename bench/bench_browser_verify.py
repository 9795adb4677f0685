"""Benchmark: time to the browser's verdict on a match page, for a ~300-event match.

Debian's chromium opens the match page of a long two-tower duel (random bots, moves signed by
both seats, so the pure-Python Ed25519 runs on every move) served by the project's app:

- first load: a fresh browser profile, so Pyodide (~12 MB unpacked) and fairdeal's zip come
  over the loopback and WebAssembly is compiled from scratch;
- cached: the same profile reloads the page (HTTP cache; Chromium's compiled-code cache).

The time is from navigation start to the browser's verdict on the page. The anchor is
`verify_bytes` on the same bytes in this CPython process (cryptography's OpenSSL Ed25519), and
the pure-Python Ed25519 alone in CPython, measured in the same run: the ratios are what to
compare across machines (this one is shared and loaded).

    python bench/bench_browser_verify.py [--runs 5] [--events 300]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
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
from fairdeal.web.viewer.runtime import fetch_runtime, runtime_dir, runtime_ready

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


def serve(data: bytes, folder: Path) -> tuple[Any, str, str]:
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    from fairdeal.web.app import create_app

    app = create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False})
    match_id, report = app.extensions["fairdeal.ledger"].import_bundle(data)
    assert match_id is not None, report.failure
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_port}", match_id


def verdict_seconds(tab: Any, url: str,
                    reload: bool = False) -> tuple[float, float, dict[str, int]]:
    """Seconds from navigation to the browser's verdict, the verifier's own seconds, and how
    long the worker's start took (Pyodide, fairdeal's zip, the imports)."""
    if reload:
        tab.reload()
    else:
        tab.goto(url)
    tab.wait_for_function("() => ['agree', 'disagree', 'error'].includes("
                          "document.getElementById('browser-verify').dataset.state)",
                          timeout=300_000)
    state = tab.evaluate("document.getElementById('browser-verify').dataset.state")
    assert state == "agree", state
    since_start = tab.evaluate("performance.now()") / 1000  # the verdict was just drawn
    browser = tab.evaluate("window.fairdealBrowserReport.browser")
    return since_start, float(browser["seconds"]), browser["startup"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=300)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    if not runtime_ready(runtime_dir()):
        fetch_runtime(runtime_dir())
    data = long_match(args.events)
    events = len(json.loads(data)["events"])
    anchor = cpython_anchor(data, args.runs)
    first, cached, inner_first, inner_cached = [], [], [], []
    starts: dict[str, list[dict[str, int]]] = {"first load": [], "cached": []}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        httpd, base, match_id = serve(data, Path(folder))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        url = f"{base}/m/{match_id}"
        for _ in range(args.runs):
            context = browser.new_context()  # a fresh profile: nothing cached
            tab = context.new_page()
            total, inner, start = verdict_seconds(tab, url)
            first.append(total)
            inner_first.append(inner)
            starts["first load"].append(start)
            total, inner, start = verdict_seconds(tab, url, reload=True)
            cached.append(total)
            inner_cached.append(inner)
            starts["cached"].append(start)
            context.close()
        browser.close()
        httpd.shutdown()
    median = statistics.median
    print(f"match: {events} events, {len(data) / 1024:.0f} kB, both seats' moves signed; "
          f"{args.runs} runs, medians (load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores)")
    print(f"anchor  CPython verify_bytes, OpenSSL Ed25519:  {anchor['openssl'] * 1000:8.0f} ms")
    print(f"        CPython verify_bytes, pure Ed25519:     {anchor['pure'] * 1000:8.0f} ms")
    for name, totals, inners in [("first load", first, inner_first),
                                 ("cached", cached, inner_cached)]:
        print(f"browser {name:<11} to verdict: {median(totals):8.2f} s "
              f"(verifier itself {median(inners) * 1000:.0f} ms = "
              f"{median(inners) / anchor['pure']:.1f}x CPython pure, "
              f"{median(inners) / anchor['openssl']:.1f}x CPython OpenSSL)")
        parts = {part: median(start[part] for start in starts[name])
                 for part in ("runtime_ms", "packages_ms", "imports_ms")}
        print(f"        {'':<11} start: Pyodide {parts['runtime_ms'] / 1000:.2f} s, fairdeal's zip "
              f"{parts['packages_ms'] / 1000:.2f} s, imports {parts['imports_ms'] / 1000:.2f} s")
    print(f"ratio first load / cached: {median(first) / median(cached):.1f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
