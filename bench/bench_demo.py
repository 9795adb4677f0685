"""Benchmark: `make demo` on a fresh machine, from nothing to serving (issue 20: ≤ 120 s).

Each run clones this repository's HEAD (committed work only) into a temporary folder and runs
`make demo` there with empty pip and npm caches, so every package is downloaded and the
compiled build is compiled again, as on a fresh machine; it times each phase from the lines
make prints, and "serving" as the first moment http://127.0.0.1:5000/ answers 200 (the viewer,
with the verified matches imported), then stops the demo. The machine's Python, C compiler and
npm are taken as given (a fresh machine has them, or .ci/run installs them).

    python3 bench/bench_demo.py [--runs 1] [--warm-caches] [--commit REV]

Port 5000 must be free. --warm-caches keeps one pip and npm cache across the runs (the first
run fills them): the time without the downloads, to tell the network's share from the rest.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the phases, each ended by the first line of make's output that starts with its marker
PHASES = (
    ("venv and pip", "/bin/pip install --quiet -e ."),
    ("install (downloads and compile)", "install: games, verifier and audit"),
    ("browser runtime (npm)", "Pyodide "),
    ("simulate, verify, import", "demo: a Swiss of 8 bots"),
)


def serving(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def one_run(caches: Path, commit: str) -> dict[str, float]:
    """One fresh clone's `make demo`: seconds from the start to the end of each phase."""
    with tempfile.TemporaryDirectory(prefix="fairdeal-demo-") as folder:
        clone = Path(folder) / "fairdeal"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", commit], check=True)
        env = dict(os.environ, PIP_CACHE_DIR=str(caches / "pip"),
                   npm_config_cache=str(caches / "npm"))
        env.pop("VIRTUAL_ENV", None)
        started = time.monotonic()
        marks: dict[str, float] = {}
        demo = subprocess.Popen(["make", "demo"], cwd=clone, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)

        def read() -> None:
            assert demo.stdout is not None
            for line in demo.stdout:
                for name, marker in PHASES:
                    if name not in marks and marker in line:
                        marks[name] = time.monotonic() - started
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            while not serving("http://127.0.0.1:5000/"):
                if demo.poll() is not None:
                    raise SystemExit(f"make demo exited with {demo.returncode} before serving")
                time.sleep(0.2)
            marks["serving"] = time.monotonic() - started
        finally:
            os.killpg(demo.pid, signal.SIGTERM)
            demo.wait(30)
        return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--warm-caches", action="store_true")
    parser.add_argument("--commit", default="HEAD",
                        help="the revision to clone (an anchor: an earlier commit, same run)")
    args = parser.parse_args()
    if serving("http://127.0.0.1:5000/"):
        sys.exit("bench_demo: something already serves on port 5000; stop it first")
    results: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="fairdeal-demo-caches-") as shared:
        for run in range(args.runs):
            caches = Path(shared) / ("warm" if args.warm_caches else f"run{run}")
            marks = one_run(caches, args.commit)
            results.append(marks)
            said = ", ".join(f"{name} at {marks[name]:.1f} s"
                             for name, _ in PHASES if name in marks)
            print(f"run {run + 1}: {said}; serving at {marks['serving']:.1f} s", flush=True)
    times = [marks["serving"] for marks in results]
    print(f"make demo to serving: median {statistics.median(times):.1f} s over {len(times)} "
          f"run(s) ({'warm' if args.warm_caches else 'empty'} caches; aim ≤ 120 s)")


if __name__ == "__main__":
    main()
