"""Server time of the viewer's step page on a ~300-event match.

    .venv/bin/python bench/bench_viewer.py [--requests 300] [--events 300]

Plays bot matches until one has about ``--events`` events, loads it into the viewer's in-memory
store, then times ``GET /m/<id>?step=N`` (the full page) and ``GET /m/<id>/step/<N>.json`` (the
fragment the stepper fetches) at random steps through Flask's test client: the time the server
spends, without the network. The first request (verification and replay into the snapshot LRU)
is reported on its own. Target: p95 of the page under 30 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.verifier.keys import SigningKey
from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app

TARGET_P95_MS = 30.0


def long_match(events: int) -> bytes:
    """A reproducible two-tower duel with at least ``events`` events (the first such)."""
    settings = SimulationSettings(game="arcomage", params={"battlefield": "free-steppe"},
                                  bots=("random", "random"))
    key = SigningKey.from_seed(bytes(32))
    best: dict[str, Any] | None = None
    for bundle in simulate_matches(settings, 200, seed="bench-viewer", server_key=key):
        if len(bundle["events"]) >= events:
            best = bundle
            break
        if best is None or len(bundle["events"]) > len(best["events"]):
            best = bundle
    assert best is not None
    return json.dumps(best, separators=(",", ":")).encode()


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_requests(client: Any, urls: list[str]) -> list[float]:
    timings = []
    for url in urls:
        start = time.perf_counter()
        response = client.get(url)
        timings.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--events", type=int, default=300)
    args = parser.parse_args()

    data = long_match(args.events)
    store = MemoryLedger()
    match_id, report = store.import_bundle(data)
    assert match_id is not None, report.failure
    client = create_viewer_app(store).test_client()
    events = json.loads(data)["events"]

    start = time.perf_counter()
    first = client.get(f"/m/{match_id}?step=0")
    cold_ms = (time.perf_counter() - start) * 1000
    assert first.status_code == 200
    last = int(first.get_data(as_text=True).split('id="step-last">')[1].split("<")[0])

    rng = random.Random(1)
    steps = [rng.randint(0, last) for _ in range(args.requests)]
    views = ["", "&view=a", "&view=b"]
    page_urls = [f"/m/{match_id}?step={n}{rng.choice(views)}" for n in steps]
    fragment_urls = [f"/m/{match_id}/step/{n}.json" for n in steps]
    time_requests(client, page_urls[:20])  # warm the SVG cache paths and Jinja
    pages = time_requests(client, page_urls)
    fragments = time_requests(client, fragment_urls)

    print(f"match {match_id}: {len(events)} events, {last + 1} steps")
    print(f"first request (verify + replay into the LRU): {cold_ms:.1f} ms")
    for name, samples in (("step page", pages), ("step fragment .json", fragments)):
        print(f"{name:>20}: p50 {statistics.median(samples):6.2f} ms   "
              f"p95 {percentile(samples, 0.95):6.2f} ms   max {max(samples):6.2f} ms   "
              f"({len(samples)} requests)")
    p95 = percentile(pages, 0.95)
    verdict = "OK" if p95 < TARGET_P95_MS else "OVER TARGET"
    print(f"target: step page p95 < {TARGET_P95_MS:.0f} ms -> {verdict}")


if __name__ == "__main__":
    main()
