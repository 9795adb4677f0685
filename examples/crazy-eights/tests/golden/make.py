"""Rebuild the golden Crazy Eights bundles and what their replay must print.

    python examples/crazy-eights/tests/golden/make.py

Each run is ``fairdeal simulate`` with a fixed ``--seed``, so the bundles come out the same on
every machine (test_golden.py checks that they still do); ``expected.json`` records each run's
arguments, its file, the key it was sealed with, and the SHA-256 of ``fairdeal replay``'s text
and JSON output, with the final state in full."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAIRDEAL = str(Path(sys.executable).parent / "fairdeal")
#: the golden runs: random against greedy, the pass rule between random bots, signed moves
RUNS: tuple[tuple[str, ...], ...] = (
    ("--bots", "random,greedy", "--seed", "golden-1"),
    ("--bots", "random,random", "--stock", "pass", "--seed", "golden-2"),
    ("--bots", "greedy,greedy", "--signed", "--seed", "golden-3"),
)


def fairdeal(*args: str) -> str:
    """The command's standard output (it must succeed)."""
    return subprocess.run([FAIRDEAL, *args], check=True, capture_output=True, text=True).stdout


def replayed(path: Path) -> dict[str, object]:
    """What the replay of ``path`` prints, as expected.json records it."""
    text = fairdeal("replay", str(path))
    states = fairdeal("replay", str(path), "--json")
    return {"replay_text_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "replay_json_sha256": hashlib.sha256(states.encode()).hexdigest(),
            "final": json.loads(states.splitlines()[-1])}


def main() -> None:
    for old in HERE.glob("*.json"):
        old.unlink()
    runs = []
    for args in RUNS:
        with tempfile.TemporaryDirectory() as folder:
            said = fairdeal("simulate", "crazy-eights", *args, "--out", folder)
            (made,) = Path(folder).glob("*.json")
            target = HERE / made.name
            target.write_bytes(made.read_bytes())
        key = said.splitlines()[-1].split()[2]
        runs.append({"args": list(args), "file": target.name, "key": key, **replayed(target)})
    (HERE / "expected.json").write_text(json.dumps({"runs": runs}, indent=1) + "\n")


if __name__ == "__main__":
    main()
