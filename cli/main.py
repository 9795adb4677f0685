"""The ``fairdeal`` command line: a thin shell over games/, verifier/ and ledger/.

Every user error becomes a click error (exit 1 or 2) with a sentence that names the problem;
no input prints a traceback.

The entry point (``fairdeal = "fairdeal.cli.main:cli"``): the group lives in cli/group.py and
each command module registers its commands on it; importing them here, once, is what puts
every command on ``cli``. No module of cli/ imports this one.
"""

from __future__ import annotations

# each import registers the module's commands on the group
from . import (  # noqa: F401
    audit,  # audit
    dispute,  # dispute
    gif,  # gif
    log,  # log monitor, log witness-key, log witness, log compare
    replay,  # replay
    rules,  # rules
    service,  # serve, matches, export, import, keys show, play
    simulate,  # simulate
    tournament,  # tournament create/register/start/pair/status/dispute/rule/…, keys new/public
    verifier_hash,  # verifier-hash
    verify,  # verify
    watch,  # watch
)
from .group import cli

__all__ = ["cli", "main"]


def main() -> None:  # pragma: no cover - console entry point
    cli()
