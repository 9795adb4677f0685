"""cli/main.py's COMMANDS table, which the group uses to import a command's modules only when
that command runs, is exactly what the command modules register: every command module of cli/
imported, each top-level command's callback and its subcommands' callbacks come from the
modules the table names, and no command is missing. A fresh process shows the point of it:
`fairdeal verify` does not import the web viewer, the ledger's database or the audit."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import click

CLI = Path(__file__).parents[2] / "cli"
#: the module `python -m fairdeal.cli` runs: importing it runs the command line
ENTRY = "__main__"


def _registered() -> dict[str, set[str]]:
    for path in sorted(CLI.glob("*.py")):
        if path.stem != ENTRY:
            importlib.import_module(f"fairdeal.cli.{path.stem}")
    from fairdeal.cli.group import cli

    found: dict[str, set[str]] = {}
    for name, command in cli.commands.items():
        modules = {command.callback.__module__} if command.callback else set()
        if isinstance(command, click.Group):
            modules |= {sub.callback.__module__ for sub in command.commands.values()
                        if sub.callback}
        found[name] = {module.rsplit(".", 1)[1] for module in modules}
    return found


def test_the_table_names_every_command_and_the_modules_that_register_it() -> None:
    from fairdeal.cli.main import COMMANDS

    assert {name: set(modules) for name, modules in COMMANDS.items()} == _registered()


def test_a_command_runs_without_importing_the_others() -> None:
    code = ("import sys; from fairdeal.cli.main import cli\n"
            "try:\n    cli(['verify', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('fairdeal.')"
            " and m.split('.')[1] in ('web', 'audit') or m == 'fairdeal.ledger.database'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]", out


def test_every_command_is_listed_in_the_help() -> None:
    from fairdeal.cli.main import COMMANDS

    out = subprocess.run([sys.executable, "-m", "fairdeal.cli", "--help"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    listed = {line.split()[0] for line in out.split("Commands:", 1)[1].splitlines()
              if line.startswith("  ")}
    assert listed == set(COMMANDS)
