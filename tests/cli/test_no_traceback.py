"""Break 10 of issue 18: no traceback anywhere in the CLI. Every command (found by walking the
click group, so a new one is swept too) is run with each of its path arguments and options —
and the data folder — set to bad paths: under a regular file, in /proc, a folder, a missing
file, and files holding deeply nested JSON, binary garbage or nothing. Each answer is a clear
error (exit 1 or 2) or a verdict, never a traceback; a bad output path is one line naming the
path and the system's reason, exit 1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from fairdeal.cli import service
from fairdeal.cli.main import cli
from fairdeal.ledger.keys import KEY_FILE

HONEST = Path(__file__).parents[2] / "fixtures" / "bundles" / "honest" / "arcomage-untimed.json"
#: nothing listens there: a command that needs a server fails at once
NO_SERVER = "http://127.0.0.1:9"


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], click.Command]]:
    # through the group's own lookup: the command modules are imported on first use
    context = click.Context(group)
    for name in sorted(group.list_commands(context)):
        command = group.get_command(context, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


COMMANDS = dict(_commands(cli))
#: the value of a parameter while another is the bad one (by name; a path gets an honest
#: bundle when it is read, a fresh path in tmp when it is written)
FILLERS = {"game": "arcomage", "url": NO_SERVER, "match_id": json.loads(HONEST.read_text())[
    "events"][0]["match_id"], "step": "0",
           "name": "witness.example/w1", "server": NO_SERVER}
#: parameters whose path is written to (the rest are read)
WRITTEN = {"out", "output", "html_file", "receipts_dir", "key_path", "state_path"}


def _is_path(param: click.Parameter) -> bool:
    return isinstance(param.type, (click.Path, click.File))


def _bad_paths(tmp: Path) -> dict[str, str]:
    (tmp / "afile").write_text("not a folder\n")
    (tmp / "folder").mkdir()
    (tmp / "deep.json").write_text("[" * 200_000)
    (tmp / "deep-state.json").write_text('{"checkpoint": ' + "[" * 200_000)
    (tmp / "garbage.json").write_bytes(b"\xff\xfe\x00garbage\x80" * 100)
    (tmp / "empty.json").write_bytes(b"")
    # data folders whose server key file is not a key, or is a folder
    (tmp / "bad-key").mkdir()
    (tmp / "bad-key" / KEY_FILE).write_bytes(b"\xff\xfe not a PEM key")
    (tmp / "key-folder" / KEY_FILE).mkdir(parents=True)
    return {"under a file": str(tmp / "afile" / "x"), "in /proc": "/proc/nope/x",
            "a corrupt key": str(tmp / "bad-key"),
            "a key that is a folder": str(tmp / "key-folder"),
            "a folder": str(tmp / "folder"), "missing": str(tmp / "missing" / "x"),
            "deeply nested": str(tmp / "deep.json"),
            "deeply nested state": str(tmp / "deep-state.json"),
            "garbage": str(tmp / "garbage.json"), "empty": str(tmp / "empty.json")}


def _arguments(command: click.Command, bad: click.Parameter | None, value: str,
               tmp: Path) -> list[str]:
    args: list[str] = []
    for param in command.params:
        if param is bad:
            given = value
        elif param.required or isinstance(param, click.Argument):
            if _is_path(param):
                given = str(tmp / f"fresh-{param.name}") if param.name in WRITTEN \
                    else str(HONEST)
            else:
                given = FILLERS.get(str(param.name), "x")
        else:
            continue
        if isinstance(param, click.Option):
            args += [param.opts[-1], given]
        else:
            args.append(given)
    if command.name == "gif":
        args += ["--step", "0:1"]  # two frames: drawing all is slow and beside the point
    return args


#: options the sweep leaves out (none: every path option of every command is swept)
OTHER_PART: set[tuple[str, str]] = set()


def _cases() -> Iterator[tuple[str, str | None]]:
    for path, command in COMMANDS.items():
        yield " ".join(path), None  # the data folder
        for param in command.params:
            if _is_path(param) and (" ".join(path), param.name) not in OTHER_PART:
                yield " ".join(path), str(param.name)


@pytest.mark.parametrize("command_path, param_name", list(_cases()))
def test_no_command_prints_a_traceback_on_a_bad_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command_path: str,
        param_name: str | None) -> None:
    monkeypatch.setattr(service, "_wait_for", lambda server: None)  # no 10 s wait for play
    monkeypatch.delenv("FAIRDEAL_DATABASE_URL", raising=False)
    command = COMMANDS[tuple(command_path.split())]
    bad = next((param for param in command.params if param.name == param_name), None)
    runner = CliRunner()
    # a ledger holding one sealed match, so that export gets as far as writing it
    imported = runner.invoke(cli, ["--data-dir", str(tmp_path / "data"), "import", str(HONEST)])
    assert imported.exit_code == 0, imported.output
    for label, value in _bad_paths(tmp_path).items():
        if bad is None and command.name == "serve" and label in ("a folder", "missing",
                                                                  "a corrupt key",
                                                                  "a key that is a folder"):
            continue  # a usable data folder: serve would start serving
        data_dir = value if bad is None else str(tmp_path / "data")
        args = ["--data-dir", data_dir, *command_path.split(),
                *_arguments(command, bad, value, tmp_path)]
        result = runner.invoke(cli, args)
        shown = f"{' '.join(args)}\n{result.output[-800:]}"
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{shown}\n{type(result.exception).__name__}: {result.exception}")
        assert "Traceback" not in result.output, shown
        assert result.exit_code in (0, 1, 2), shown
        if bad is not None and bad.name in WRITTEN and label in ("under a file", "in /proc"):
            # a file error on an output path: one line naming the path and the reason
            last = result.output.strip().splitlines()[-1]
            assert result.exit_code == 1, shown
            assert last.startswith("Error: ") and value.rsplit("/", 1)[0] in last, shown
            assert "Not a directory" in last or "No such file or directory" in last, shown


def test_the_reported_cases_get_one_clear_line(tmp_path: Path) -> None:
    runner = CliRunner()
    (tmp_path / "afile").write_text("x\n")
    deep = tmp_path / "deep.json"
    deep.write_text('{"checkpoint": ' + "[" * 100_000)
    checked = runner.invoke(cli, ["verify", "--checkpoint", str(deep), str(HONEST)])
    assert checked.exit_code == 2, checked.output
    assert ("Invalid value for --checkpoint: the file is neither a checkpoint nor a log state "
            "file (JSON nested too deeply)") in checked.output
    drawn = runner.invoke(cli, ["gif", str(HONEST), "--step", "0:0",
                                "-o", str(tmp_path / "afile" / "x.gif")])
    assert drawn.exit_code == 1
    assert drawn.output.strip() == (f"Error: Could not open file "
                                    f"'{tmp_path / 'afile' / 'x.gif'}': Not a directory")
    simulated = runner.invoke(cli, ["simulate", "arcomage", "--seed", "1", "--out",
                                    "/proc/nope"])
    assert simulated.exit_code == 1
    assert simulated.output.strip() == ("Error: cannot create the folder /proc/nope: No such "
                                        "file or directory")
