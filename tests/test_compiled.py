"""The compiled build (setup.py, docs/compiled.md) against the pure one: the same bytes out.

Each build runs in a subprocess of its own (one process holds one build: the import system
keeps the first module of a name it loads): the pure one with ``FAIRDEAL_PURE=1``, the compiled
one without. Both verify every committed fixture (honest, tampered, hostile, v1), simulate
matches of every installed game, verify and replay them, import them into a database of their
own and export them, and audit them; every output, file and report is compared byte for byte.
A build's commands run one after the other in its one process (``fairdeal_batch``, through
click's own runner), as the separate `fairdeal` process is not what is compared: about 60
interpreter starts fewer (tests/cli/ and tests/test_readme.py run `fairdeal` as a process).

Where no compiled build is installed (``FAIRDEAL_PURE=1`` at install, or no C compiler) the
comparison has nothing to compare and is skipped saying so; ``FAIRDEAL_REQUIRE_COMPILED=1``
(CI, after a compiled install) makes that a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
FIXTURES = ROOT / "fixtures"
#: the committed bundles of every kind the verifier meets
FIXTURE_FOLDERS = ("bundles/honest", "bundles/tampered", "bundles/v1", "hostile/bundles")
#: simulated matches per game and build (the bench runs thousands: bench/bench_compiled.py)
MATCHES = 4


def run(args: list[str], pure: bool, cwd: Path | None = None,
        given: str | None = None) -> subprocess.CompletedProcess[str]:
    """A Python subprocess on one build, ``given`` on its standard input; its exit code is the
    caller's to judge."""
    env = {key: value for key, value in os.environ.items() if key != "FAIRDEAL_PURE"}
    if pure:
        env["FAIRDEAL_PURE"] = "1"
    return subprocess.run([sys.executable, *args], cwd=cwd or ROOT, env=env, input=given,
                          capture_output=True, text=True, timeout=600)


def module_files(names: list[str], pure: bool) -> list[str]:
    """Where each module of ``names`` was loaded from in one build (one process)."""
    code = ("import importlib, sys\n"
            "for name in sys.argv[1:]: print(importlib.import_module(name).__file__)")
    out = run(["-c", code, *names], pure)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def compiled_installed() -> bool:
    return not module_files(["fairdeal.verifier.canonical"], pure=False)[0].endswith(".py")


@pytest.fixture(scope="module")
def compiled() -> None:
    """Skip (or, in CI, fail) where the install compiled nothing."""
    if compiled_installed():
        return
    message = ("the compiled build is not installed (FAIRDEAL_PURE=1 at install, or no C "
               "compiler; docs/compiled.md)")
    if os.environ.get("FAIRDEAL_REQUIRE_COMPILED") == "1":
        pytest.fail(message)
    pytest.skip(message)


def fairdeal(args: list[str], pure: bool, cwd: Path | None = None) -> str:
    """One fairdeal command in one build: its exit code, output and errors, as one text."""
    out = run(["-m", "fairdeal.cli", *args], pure, cwd)
    return f"exit {out.returncode}\n--- stdout\n{out.stdout}--- stderr\n{out.stderr}"


#: run in one build: each command of the JSON list on standard input ([folder, args]) in turn,
#: through click's runner, in its folder; what each said, as ``fairdeal`` gives it (a traceback
#: too, should a command raise), as a JSON list
BATCH = """
import json, os, sys, traceback
from click.testing import CliRunner
from fairdeal.cli.main import cli

said = []
for folder, args in json.load(sys.stdin):
    os.chdir(folder)
    done = CliRunner().invoke(cli, args, prog_name="fairdeal")
    err = done.stderr
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        err += "".join(traceback.format_exception(done.exception))
    said.append(f"exit {done.exit_code}\\n--- stdout\\n{done.stdout}--- stderr\\n{err}")
print(json.dumps(said))
"""


def fairdeal_batch(commands: list[tuple[Path, list[str]]], pure: bool) -> list[str]:
    """Each (folder, args) command in one build, one after the other in one process: what
    each said, as :func:`fairdeal` gives it."""
    import json

    out = run(["-c", BATCH], pure, given=json.dumps([[str(cwd), args] for cwd, args in commands]))
    assert out.returncode == 0, out.stderr
    said: list[str] = json.loads(out.stdout)
    return said


def files_of(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_the_pure_switch_loads_the_source_and_the_default_the_extension(compiled: None) -> None:
    names = ["fairdeal.verifier.canonical", "fairdeal.verifier.replay",
             "fairdeal.games.arcomage.rules", "fairdeal.games.toybattle.engine",
             "fairdeal.audit.facts", "fairdeal.audit.tally"]
    assert all(path.endswith(".py") for path in module_files(names, pure=True))
    assert all(path.endswith(".so") for path in module_files(names, pure=False))


def test_version_names_the_build_running(compiled: None) -> None:
    assert (fairdeal(["--version"], pure=True).splitlines()[3]
            == "games, verifier and audit: pure Python")
    assert (fairdeal(["--version"], pure=False).splitlines()[3]
            == "games, verifier and audit: compiled (mypyc)")


def test_every_fixture_verifies_the_same_in_both_builds(compiled: None) -> None:
    files = [str(path) for folder in FIXTURE_FOLDERS
             for path in sorted((FIXTURES / folder).rglob("*.json"))]
    assert len(files) > 50
    commands = [(ROOT, ["verify", "-v", *files]), (ROOT, ["verify", "--json", *files])]
    pure = fairdeal_batch(commands, pure=True)
    for said in pure:
        assert said.startswith("exit 1") and "Traceback" not in said  # tampered ones fail
    assert fairdeal_batch(commands, pure=False) == pure


def simulate_all(build: Path, pure: bool) -> list[str]:
    """Seeded matches of every game, plain and signed, into ``build``/matches; what was said."""
    games = run(["-c", "from fairdeal.games import GAME_NAMES; print(*GAME_NAMES)"], pure)
    return fairdeal_batch([(build, ["simulate", game, "-n", str(MATCHES), "--seed", f"{game}-7",
                                    *extra, "--out", f"matches/{game}/{(extra or ['plain'])[0]}"])
                           for game in games.stdout.split() for extra in ([], ["--signed"])],
                          pure)


def test_simulated_matches_are_the_same_bytes_and_reports(compiled: None, tmp_path: Path) -> None:
    outputs = {}
    for pure in (True, False):
        # each build in a folder of its own, named alike from inside: the outputs name files
        build = tmp_path / ("pure" if pure else "compiled") / "run"
        build.mkdir(parents=True)
        said = simulate_all(build, pure)
        matches = sorted(path.relative_to(build).as_posix()
                         for path in (build / "matches").rglob("*.json"))
        commands = [["verify", "-v", *matches], ["verify", "--json", *matches]]
        for match in matches[::MATCHES]:
            commands += [["replay", match, "--json"], ["replay", match, "--step", "3"]]
        commands.append(["audit", "--json", "-q", "matches"])
        said += fairdeal_batch([(build, args) for args in commands], pure)
        outputs[pure] = (said, files_of(build / "matches"))
    assert len(outputs[True][1]) >= 2 * 3 * MATCHES  # plain and signed, three games at least
    assert all(text.startswith("exit 0") for text in outputs[True][0]), outputs[True][0]
    assert outputs[False][1] == outputs[True][1]
    for compiled_said, pure_said in zip(outputs[False][0], outputs[True][0], strict=True):
        assert compiled_said == pure_said


def test_imported_and_exported_bundles_are_the_same(compiled: None, tmp_path: Path) -> None:
    honest = sorted((FIXTURES / "bundles" / "honest").glob("*.json"))[:6]
    exported = {}
    for pure in (True, False):
        data = tmp_path / ("pure" if pure else "compiled") / "run"
        data.mkdir(parents=True)
        (data / "out").mkdir()
        commands = [["--data-dir", ".", "import", *map(str, honest)],
                    ["--data-dir", ".", "matches"]]
        commands += [["--data-dir", ".", "export", bundle_id(bundle), "-o",
                      f"out/{bundle_id(bundle)}.json"] for bundle in honest]
        said = fairdeal_batch([(data, args) for args in commands], pure)
        exported[pure] = (said, files_of(data / "out"))
    assert len(exported[True][1]) == len(honest)
    assert exported[False] == exported[True]


def bundle_id(path: Path) -> str:
    """A bundle's match id, as the store names it."""
    import json

    return str(json.loads(path.read_bytes())["events"][0]["match_id"])


#: simulated matches of every game in the deep comparison, per build: a few in the suite's
#: run (the four above through the command line besides), thousands in ``make compiled-test``
#: (FAIRDEAL_DIFF_MATCHES=1000)
DEEP_MATCHES = int(os.environ.get("FAIRDEAL_DIFF_MATCHES", "25"))

#: run in each build: simulate, verify, replay and audit in one process; print digests (the
#: audit's: its test results, and every count of its tally, audited here and by two worker
#: processes, whose tallies come back pickled)
DIGESTS = """
import dataclasses, hashlib, json, sys
from fairdeal.audit import audit_bundles, run_tests
from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.games import GAME_NAMES
from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.replay import replay_steps
from fairdeal.verifier.verify import verify_bytes

count = int(sys.argv[1])
out = {}
for game in GAME_NAMES:
    digests = {part: hashlib.sha256()
               for part in ("bundles", "reports", "replays", "audit", "tally")}
    files, failed = [], 0
    settings = SimulationSettings(game, {}, ("random", "greedy"))
    for index, bundle in enumerate(simulate_matches(settings, count, seed=game + "-deep",
                                                    server_key=None)):
        data = json.dumps(bundle, separators=(",", ":")).encode()
        files.append((f"{game}-{index}", data))
        digests["bundles"].update(data)
        report = verify_bytes(data)
        failed += not report.ok
        digests["reports"].update(canonical_bytes(report.to_json()))
        if index % 10 == 0:
            events = bundle["events"]
            replayer, steps, error = replay_steps(events, bytes.fromhex(events[-1]["server_seed"]))
            for step in steps:
                digests["replays"].update(canonical_bytes(
                    [step.number, step.seq, replayer.game.state_to_json(step.state)]))
            digests["replays"].update(repr(error).encode())
    tally = audit_bundles(files)
    digests["audit"].update(json.dumps([test.to_json() for test in run_tests(tally)],
                                       sort_keys=True).encode())
    for counted in (tally, audit_bundles(files, workers=2, chunk=max(1, count // 4))):
        digests["tally"].update(json.dumps(dataclasses.asdict(counted), sort_keys=True).encode())
    out[game] = {"matches": len(files), "failed": failed,
                 **{part: digest.hexdigest() for part, digest in digests.items()}}
print(json.dumps(out, indent=1, sort_keys=True))
"""


def test_thousands_of_matches_give_the_same_bundles_reports_replays_and_audit(
        compiled: None) -> None:
    said = {}
    for pure in (True, False):
        out = run(["-c", DIGESTS, str(DEEP_MATCHES)], pure)
        assert out.returncode == 0, out.stderr
        said[pure] = out.stdout
    import json

    pure_said = json.loads(said[True])
    assert len(pure_said) >= 3 and all(
        game["matches"] == DEEP_MATCHES and game["failed"] == 0 for game in pure_said.values())
    assert said[False] == said[True]


#: run in one build: ``dump`` prints the tally of the bundles in a folder, pickled (hex);
#: ``load`` reads such a pickle on standard input and prints the class it loaded as and its
#: every count
PICKLED = """
import dataclasses, json, pickle, sys
from pathlib import Path
from fairdeal.audit import audit_bundles

if sys.argv[1] == "dump":
    files = [(str(path), path.read_bytes()) for path in sorted(Path(sys.argv[2]).glob("*.json"))]
    print(pickle.dumps(audit_bundles(files)).hex())
else:
    tally = pickle.loads(bytes.fromhex(sys.stdin.read()))
    print(type(tally).__qualname__, tally.matches, json.dumps(dataclasses.asdict(tally),
                                                             sort_keys=True))
"""


def test_a_tally_pickled_by_either_build_loads_in_the_other(compiled: None) -> None:
    """Compiled, a Tally is a native class; pickled, it is its fields either way, so a Dask
    cluster's workers may run another build than its client (docs/compiled.md)."""
    honest = str(FIXTURES / "bundles" / "honest")
    dumped = {}
    for pure in (True, False):
        out = run(["-c", PICKLED, "dump", honest], pure)
        assert out.returncode == 0, out.stderr
        dumped[pure] = out.stdout
    said = set()
    for made in (True, False):
        for pure in (True, False):
            out = run(["-c", PICKLED, "load"], pure, given=dumped[made])
            assert out.returncode == 0, out.stderr
            said.add(out.stdout)
    assert len(said) == 1
    name, matches, _ = said.pop().split(" ", 2)
    assert name == "Tally" and int(matches) > 10


def test_no_except_clause_name_holds_two_kinds_of_exception() -> None:
    """Compiled code gives a name one type per function: ``except A as e`` then ``except B as
    e`` raises TypeError at the second (B is not an A) where the pure code runs on. A lint of
    the compiled sources, so it holds on either build."""
    import ast

    found = []
    for path in sorted(path for folder in ("games", "verifier", "audit")
                       for path in ROOT.glob(f"{folder}/**/*.py")):
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            kinds: dict[str, set[str]] = {}
            for node in ast.walk(function):
                if isinstance(node, ast.ExceptHandler) and node.name and node.type:
                    kinds.setdefault(node.name, set()).add(ast.unparse(node.type))
            found += [f"{path.relative_to(ROOT)}:{function.lineno} {function.name}: {name} "
                      f"holds {sorted(types)}" for name, types in kinds.items() if len(types) > 1]
    assert found == []


def test_the_browser_archive_holds_the_sources_never_an_extension(compiled: None) -> None:
    """The browser runs the pure build: /verify's archive packs the ``.py`` of every module,
    the compiled ones too, and no extension module (which no browser could load)."""
    code = ("from fairdeal.web.viewer.runtime import archive_files, installed_roots; "
            "print(*sorted(archive_files(installed_roots())))")
    out = run(["-c", code], pure=False)
    assert out.returncode == 0, out.stderr
    names = out.stdout.split()
    assert "fairdeal/verifier/replay.py" in names and "fairdeal/games/arcomage/rules.py" in names
    assert [name for name in names if not name.endswith((".py", ".json", ".typed"))] == []
