"""The README's "Using it" commands run as written, in order, in a fresh folder, as a newcomer
would paste them into a shell: every one succeeds and says what the README says it does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .processes import free_port

ROOT = Path(__file__).resolve().parents[1]


def _block(heading: str) -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index(heading):]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found, f"no sh block under {heading!r}"
    return found.group(1)


#: a failing line ends a block's script: the trap stops the server it may have left running
_PROLOGUE = "set -euo pipefail\nset -m\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"


def _fresh_folder(tmp_path: Path) -> tuple[dict[str, str], int]:
    """A fresh folder with the README's .venv/bin/fairdeal and nothing else of ours, and the
    environment a block runs in there: a data folder of its own and a free port instead of
    5000 (tests run side by side)."""
    fairdeal = Path(sys.executable).with_name("fairdeal")
    if not fairdeal.exists():
        pytest.skip("the fairdeal command is not installed beside this Python (make install)")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "fairdeal").symlink_to(fairdeal)
    port = free_port()
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("FAIRDEAL_")}
    env.update(FAIRDEAL_DATA_DIR=str(tmp_path / "data"), FAIRDEAL_PORT=str(port),
               FAIRDEAL_SERVER=f"http://127.0.0.1:{port}")
    return env, port


def test_using_it_runs_as_written(tmp_path: Path) -> None:
    env, _ = _fresh_folder(tmp_path)
    script = _PROLOGUE + _block("## Using it")
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=900)
    out = result.stdout
    assert result.returncode == 0, out[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in out + result.stderr
    verdicts = re.findall(r"^(OK|FAIL): ", out, re.M)
    assert verdicts and set(verdicts) == {"OK"}, out
    mine = [line for line in out.splitlines() if line.startswith("OK: mine/")]
    # verified twice: first unpinned (and said so), then pinned to `keys show`'s key
    assert len(mine) == 2 and "not pinned" in mine[0] and "not pinned" not in mine[1]
    assert re.search(r"^OK: matches/fda131a7e0492ec7\.json .*\), key [0-9a-f]+\)$", out, re.M)
    assert "11 files: 11 OK, 0 FAIL" in out  # matches/ and mine/: the count after the verdicts
    assert out.count("ended:") == 3 and out.count("started:") == 3
    assert out.count("already stored: ") == 10
    assert "step 17 (event " in out
    # the sealed bundle, the same match as the file imported (the ledger writes canonical JSON)
    assert json.loads((tmp_path / "match.json").read_text()) == \
        json.loads((tmp_path / "matches" / "fda131a7e0492ec7.json").read_text())


def test_the_tamper_example_fails_every_file_and_only_bundles() -> None:
    text = (ROOT / "README.md").read_text()
    assert 'verify --trusted-key "$(cat fixtures/bundles/server-key.txt)"\nfixtures/bundles/' \
        'tampered/*.json' in text
    key = (ROOT / "fixtures" / "bundles" / "server-key.txt").read_text().strip()
    files = sorted(str(p) for p in (ROOT / "fixtures" / "bundles" / "tampered").glob("*.json"))
    result = subprocess.run([sys.executable, "-m", "fairdeal.cli", "verify", "--trusted-key",
                             key, *files], capture_output=True, text=True, timeout=300)
    verdicts = re.findall(r"^(OK|FAIL): (\S+)", result.stdout, re.M)
    assert [path for _, path in verdicts] == files
    assert {verdict for verdict, _ in verdicts} == {"FAIL"}


def test_the_transparency_log_block_runs_as_written(tmp_path: Path) -> None:
    """The log block in a fresh folder, as written: the only change is the server's port (a
    free one instead of 5000, since tests run side by side)."""
    env, port = _fresh_folder(tmp_path)
    block = _block("The transparency log: every match")
    assert block.count("http://127.0.0.1:5000") == 4
    script = _PROLOGUE + block.replace("http://127.0.0.1:5000", f"http://127.0.0.1:{port}")
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=600)
    out, err = result.stdout, result.stderr
    assert result.returncode == 0, out[-3000:] + err[-3000:]
    assert "Traceback" not in out + err
    assert "ALARM" not in out + err and "FAIL" not in out
    # the one warning the README names, and not the one it says a listed witness avoids
    assert "first use: trusting the log key" in err
    assert "did not take the cosignature" not in err, err
    assert "cosignature handed to" in err
    assert re.search(r"^trusted checkpoint saved: trusted\.checkpoint \(size \d+\)$", out, re.M)
    assert re.search(r"^OK: logged\.json: genesis leaf \d+ and seal leaf \d+", out, re.M)
    assert len(re.findall(r"^OK: logged\.json  \(arcomage", out, re.M)) == 2
    assert "fair unless both players and the server colluded" in out
    assert (tmp_path / "trusted.checkpoint").read_text().startswith("fairdeal.log/")
    assert "consistent" in out.splitlines()[-1] or "same" in out.splitlines()[-1]



def test_the_tournament_block_runs_as_written(tmp_path: Path) -> None:
    """Issue 22's "done": a bot tournament created, played, disputed once, ruled, exported and
    verified offline with every key pinned, from the README as written (the server on a free
    port through FAIRDEAL_PORT and FAIRDEAL_SERVER, which serve and every command read)."""
    env, _ = _fresh_folder(tmp_path)
    block = _block("### A tournament, end to end")
    assert "--player-key" in block and "--arbiter-key" in block and "--trusted-key" in block
    result = subprocess.run(["bash", "-c", _PROLOGUE + block], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=900)
    out, err = result.stdout, result.stderr
    assert result.returncode == 0, out[-3000:] + err[-3000:]
    assert "Traceback" not in out + err
    assert out.count("registered: random bot ") == 8
    assert re.findall(r"^round (\d): 4 matches$", out, re.M) == ["1", "2", "3"]
    assert len(re.findall(r"^ended: .*\(verified, keys pinned\)$", out, re.M)) == 12
    assert re.search(r"^dispute 1 filed on match \S+, step 1 ", out, re.M)
    assert "dispute 1 ruled: result-stands" in out
    assert re.search(r"^OK: t\.zip", out, re.M), out[-3000:]
    assert "FAIL" not in out
    with zipfile.ZipFile(tmp_path / "t.zip") as archive:
        assert len([n for n in archive.namelist() if n.startswith("matches/")]) == 12
