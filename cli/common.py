"""Helpers the command modules share: the game choice, key and ledger checks, and the log
options ``verify`` and ``log monitor`` both take.

Like cli/group.py, this module imports no command module, so any of them may import it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from fairdeal.games import game_names
from fairdeal.verifier.bundle import InvalidBundle, parse_json
from fairdeal.verifier.checkpoint import WitnessPolicy
from fairdeal.verifier.keys import InvalidKey, parse_public_key
from fairdeal.verifier.note import COSIGNATURE, NoteError, VerifierKey

from .group import Context

__all__ = ["checked_key", "game_choice", "open_ledger", "server_key_of", "trusted_checkpoint",
           "witness_policy"]


def game_choice() -> click.Choice:
    """The registered games, as a case-insensitive choice of a GAME argument or ``--game``."""
    return click.Choice(game_names(), case_sensitive=False)


def open_ledger(obj: Context) -> Any:
    """The ledger of the group's data folder (or ``--database-url``), or a click error naming
    where it is and why it cannot be opened."""
    from fairdeal.ledger.service import Ledger
    from fairdeal.ledger.storeerrors import StoreError

    where = obj.database_url or str(obj.data_dir)
    try:
        return Ledger.open(obj.data_dir, obj.database_url)
    except StoreError as e:  # the database's own words, which name the file or host
        raise click.ClickException(f"cannot open the ledger at {where}: {e.detail}") from None
    except (ValueError, OSError) as e:
        raise click.ClickException(f"cannot open the ledger at {where}: "
                                   f"{type(e).__name__}: {str(e).splitlines()[0]}") from None


def server_key_of(data_dir: Path) -> Any:
    """The server key of a data folder (created on first use), or a click error naming the
    folder and what is wrong with its key file (unreadable, not a key, a folder)."""
    from fairdeal.ledger.keys import load_or_create_server_key

    try:
        return load_or_create_server_key(data_dir)
    except (OSError, ValueError) as e:
        raise click.ClickException(f"cannot read the server key in {data_dir}: {e}") from None


def checked_key(text: str | None, option: str) -> str | None:
    """An ``ed25519:HEX`` key given on the command line, or a usage error naming the option."""
    if text is None:
        return None
    try:
        parse_public_key(text.strip())
    except InvalidKey as e:
        raise click.BadParameter(str(e), param_hint=option) from None
    return text.strip()


def trusted_checkpoint(data: bytes) -> str:
    """The checkpoint in a file `verify --checkpoint` was given: the checkpoint's text, or a
    monitor's or witness's state file (its last checkpoint seen)."""
    text = data.decode("utf-8", "replace")
    if text.lstrip().startswith("{"):
        try:  # the bundles' parser: depth-limited, so a deeply nested file is no RecursionError
            state = parse_json(data)
        except InvalidBundle as e:
            raise click.BadParameter(f"the file is neither a checkpoint nor a log state file "
                                     f"({str(e).removesuffix(' to be a bundle')})",
                                     param_hint="--checkpoint") from None
        if not isinstance(state, dict) or not isinstance(state.get("checkpoint"), str):
            raise click.BadParameter("a log state file holds the last checkpoint seen under "
                                     "'checkpoint'", param_hint="--checkpoint")
        return str(state["checkpoint"])
    return text


def witness_policy(texts: tuple[str, ...], quorum: int | None) -> WitnessPolicy | None:
    """The policy of ``--witness VKEY`` (repeatable) and ``--witnesses N`` (default 1): None
    when no witness is named; a usage error (exit 2) for a key or number that is wrong."""
    if not texts:
        if quorum is not None:
            raise click.BadParameter("--witnesses N needs the witnesses' keys (--witness VKEY)",
                                     param_hint="--witnesses")
        return None
    keys = []
    for text in texts:
        try:
            key = VerifierKey.parse(text)
        except NoteError as e:
            raise click.BadParameter(str(e), param_hint="--witness") from None
        if key.kind != COSIGNATURE:
            raise click.BadParameter(f"{text!r} is not a cosignature (type 4) key",
                                     param_hint="--witness")
        keys.append(key)
    try:
        return WitnessPolicy(tuple(keys), 1 if quorum is None else quorum)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--witness/--witnesses") from None
