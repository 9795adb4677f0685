"""The ``fairdeal`` command line: a thin shell over games/, verifier/ and ledger/.

Every user error becomes a click error (exit 1 or 2) with a sentence that names the problem;
no input prints a traceback.

The entry point (``fairdeal = "fairdeal.cli.main:cli"``): the group lives in cli/group.py and
each command module registers its commands on it. ``COMMANDS`` says which modules register
each command; the group imports them when the command runs (cli/group.py's LazyGroup), so a
command starts without the imports of every other (tests/cli/test_lazy_commands.py holds the
table to what the modules register). No module of cli/ imports this one.
"""

from __future__ import annotations

from .group import cli

__all__ = ["COMMANDS", "cli", "main"]

#: each top-level command and the cli/ modules that register it (and its subcommands)
COMMANDS: dict[str, tuple[str, ...]] = {
    "audit": ("audit",),
    "dispute": ("dispute",),
    "export": ("service",),
    "gif": ("gif",),
    "import": ("service",),
    "keys": ("service", "tournament"),  # keys show; keys new, keys public
    "log": ("log",),  # log monitor, log witness-key, log witness, log compare
    "matches": ("service",),
    "play": ("service",),
    "replay": ("replay",),
    "rules": ("rules",),
    "serve": ("service",),
    "simulate": ("simulate",),
    "tournament": ("tournament",),  # tournament create/register/start/pair/status/…
    "verifier-hash": ("verifier_hash",),
    "verify": ("verify",),
    "watch": ("watch",),
}
cli.lazy = COMMANDS


def main() -> None:  # pragma: no cover - console entry point
    cli()
