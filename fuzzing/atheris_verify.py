"""Coverage-guided fuzzing of the verifier with atheris (libFuzzer): ``make fuzz-atheris``.

Bytes in, a report out: any exception escaping ``verify_bytes`` is a crash that libFuzzer
saves (crash-<hash>) for fixtures/hostile/found/. The corpus folder is seeded with every
committed fixture bundle, so the fuzzer starts from real matches and mutates towards new
branches of the parser, the chain check and the replay. atheris is not a dependency of the
project (it is a native wheel): ``pip install atheris``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from fairdeal.verifier.verify import verify_bytes

ROOT = Path(__file__).parents[1]


def test_one_input(data: bytes) -> None:
    report = verify_bytes(data)
    report.to_json()


def _seed_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for path in (ROOT / "fixtures").glob("*/*/*.json"):
        shutil.copy(path, folder / f"{path.parent.name}-{path.name}")


def main() -> None:
    corpora = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    for corpus in corpora:
        _seed_corpus(Path(corpus))
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
