"""`make demo`'s matches show the strongest guarantee (issue 21, items 13 and 14): every seat
signs and commits to a seed, so each verifies "fair unless both players and the server
colluded"; `simulate --help` and `play --help` state the bots' rates; `play --signed` prints the
seat keys, and its receipts pin them for `verify --receipts`. Runs the Makefile's own lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from .processes import ServeProcess

ROOT = Path(__file__).resolve().parents[1]
STRONGEST = "fair unless both players and the server colluded"
CLI = f"{sys.executable} -m fairdeal.cli"


def _demo_lines(command: str) -> list[str]:
    recipe = (ROOT / "Makefile").read_text().split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in recipe.splitlines()
            if line.strip().startswith(f"$(BIN)/fairdeal {command} ")]


def _sh(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line.replace("$(BIN)/fairdeal", CLI)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_the_demos_simulated_matches_read_fair_unless_all_colluded(tmp_path: Path) -> None:
    lines = _demo_lines("simulate")
    assert len(lines) >= 7 and all("--signed --decline-rate 0" in line for line in lines)
    for line in lines:
        # fewer matches than the demo's, the same options
        run = _sh(re.sub(r" -n \d+", " -n 1", line), tmp_path)
        assert run.returncode == 0, run.stderr
        assert "seat keys: A=ed25519:" in run.stdout or "seat keys: " in run.stdout
    verified = _sh("$(BIN)/fairdeal verify out/demo/*.json", tmp_path)
    assert verified.returncode == 0, verified.stdout
    deals = [line for line in verified.stdout.splitlines() if line.startswith("  deal: ")]
    assert len(deals) == len(lines)
    assert all(STRONGEST in deal for deal in deals), deals
    assert "could have chosen" not in verified.stdout


def test_the_demos_live_bots_sign_commit_and_print_their_keys(tmp_path: Path) -> None:
    lines = [line for line in _demo_lines("play") if "--tournament" not in line]
    assert len(lines) == 3 and all("--signed --decline-rate 0" in line for line in lines)
    (tmp_path / "data").mkdir()
    server = ServeProcess(tmp_path / "data")
    server.start()
    try:
        line = lines[0].split(" & ")[0].replace("--pace 1.5", "--pace 0").replace(" -n 2",
                                                                                " -n 1")
        run = _sh(f"{line} --server {server.url} --receipts kept", tmp_path)
        assert run.returncode == 0, run.stderr
        ended = next(line for line in run.stdout.splitlines() if line.startswith("ended:"))
        match_id = ended.split()[1]
        keys = re.search(r"^  seat keys: (\S+) (\S+)$", run.stdout, re.M)
        assert keys, run.stdout
        exported = _sh(f"$(BIN)/fairdeal --data-dir data export {match_id} -o played.json",
                       tmp_path)
        assert exported.returncode == 0, exported.stderr
        pinned = _sh(f"$(BIN)/fairdeal verify --seat-key {keys.group(1)} "
                     f"--seat-key {keys.group(2)} played.json", tmp_path)
        assert pinned.returncode == 0 and "seat keys A, B pinned" in pinned.stdout
        assert STRONGEST in pinned.stdout and "not pinned: pin them" not in pinned.stdout
        # the receipts file holds the same keys: --receipts pins them too
        receipts = _sh(f"$(BIN)/fairdeal verify --receipts kept/{match_id}.receipts.json "
                       "played.json", tmp_path)
        assert receipts.returncode == 0, receipts.stdout
        assert "seat keys A, B pinned from the receipts file" in receipts.stdout
        assert "not pinned: pin them" not in receipts.stdout
    finally:
        server.stop()


def _demo_tournament_lines() -> list[str]:
    """The demo's tournament: its arbiter key, its creation and the bots that play it."""
    recipe = (ROOT / "Makefile").read_text().split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    return [line.strip().removesuffix("\\").strip() for line in recipe.splitlines()
            if "arbiter.pem" in line or "--tournament" in line]


def test_the_demos_swiss_of_8_bots_runs_to_its_final_standings(tmp_path: Path) -> None:
    """The Makefile's tournament lines, run as written against a server (no pace and the
    shortest dispute window, so quickly): 8 bots register, the server pairs each round itself
    (--auto) and finishes once the last round's dispute window has passed, and every match
    was verified by the bots with their keys pinned."""
    keys, create, play = _demo_tournament_lines()
    assert "--system swiss" in create and "--auto" in create and " -n 8 " in play
    (tmp_path / "data").mkdir()
    (tmp_path / "out" / "demo").mkdir(parents=True)
    server = ServeProcess(tmp_path / "data")
    server.start()
    try:
        made = _sh(keys, tmp_path)
        assert made.returncode == 0, made.stderr
        # the dispute window is the seating window: its shortest, 10 s, instead of 60
        assert "--seating" not in create
        create = create.replace(" --auto ", " --auto --seating 10 ")
        script = (f"export FAIRDEAL_SERVER={server.url}; {create.removesuffix(';')}; "
                  + play.split(" & ")[0].replace("--pace 1.5", "--pace 0") + "; echo $cup")
        run = _sh(script.replace("$$", "$"), tmp_path)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        out = run.stdout
        assert out.count("registered: random bot ") == 8
        assert re.findall(r"^round (\d): 4 matches$", out, re.M) == ["1", "2", "3"]
        assert len(re.findall(r"^ended: .*\(verified, keys pinned\)$", out, re.M)) == 12
        waiting = re.search(r"^waiting for disputes until (\S+Z): every round is played",
                            out, re.M)
        assert waiting, out
        finished = re.search(r"^tournament \S+: finished$", out, re.M)
        assert finished and finished.start() > waiting.start(), out
        assert len(re.findall(r"^\s+\d+\s+random bot \d+\s", out, re.M)) == 8  # standings
    finally:
        server.stop()


def test_help_states_the_bots_rates_and_how_to_change_them() -> None:
    from fairdeal.cli.simulate import DECLINE_CHANCE, TIMEOUT_CHANCE, TIMEOUT_STREAK
    from fairdeal.client.bots import DECLINE_CHANCE as LIVE_DECLINE
    from fairdeal.client.simulate import SimulationSettings

    defaults = SimulationSettings(game="arcomage", params={}, bots=("random", "random"))
    # what --help states is what the bots do
    assert (TIMEOUT_CHANCE, TIMEOUT_STREAK, DECLINE_CHANCE) == (
        defaults.timeout_chance, defaults.timeout_streak, defaults.decline_chance)
    words = _sh("$(BIN)/fairdeal simulate --help", ROOT).stdout
    words = " ".join(words.split())
    assert "--timeout-rate" in words and "[default: 0.01; 0<=x<=1]" in words
    assert "one turn in 100" in words and "--decline-rate" in words and "[default: 0.2;" in words
    assert "--signed --decline-rate 0" in words
    live = " ".join(_sh("$(BIN)/fairdeal play --help", ROOT).stdout.split())
    assert "--decline-rate FLOAT RANGE How likely a seat declines" in live
    assert f"[default: {LIVE_DECLINE}; 0<=x<=1]" in live


def test_the_rates_change_what_the_bots_do(tmp_path: Path) -> None:
    never = _sh("$(BIN)/fairdeal simulate arcomage -n 5 --seed 4 --timeout-rate 0 "
                "--decline-rate 1 --out never", tmp_path)
    assert never.returncode == 0, never.stderr
    texts = [p.read_text() for p in (tmp_path / "never").glob("*.json")]
    assert len(texts) == 5
    assert not any('"type":"timeout"' in text for text in texts)
    assert all(text.count('"client_seed":null') == 2 for text in texts)
    always = _sh("$(BIN)/fairdeal simulate arcomage -n 1 --seed 4 --timeout-rate 1 "
                 "--turn-limit 5 --out always", tmp_path)
    assert always.returncode == 0 and "timeout" in next(
        (tmp_path / "always").glob("*.json")).read_text()
    bad = _sh("$(BIN)/fairdeal simulate arcomage --decline-rate 2 --out x", tmp_path)
    assert bad.returncode == 2 and "--decline-rate" in bad.stderr
