"""What the ``fairdeal tournament`` commands and ``play --tournament`` share: the client of a
server with every failure turned into one line, the checks of an id, a token and a key file.

Like cli/common.py, this module imports no command module, so any of them may import it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

__all__ = ["checked_id", "key_of", "public_key_of", "talking_to", "token_of"]


@contextmanager
def talking_to(server: str) -> Iterator[Any]:
    """The tournament client of ``server``; every failure below becomes one line: the API's
    message and code, the server that cannot be reached, a key file that cannot be used."""
    from fairdeal.client import ApiClient, ApiError, TamperDetected
    from fairdeal.client.tournaments import KeyFileError, TournamentClient
    from fairdeal.verifier.dispute import DisputeError

    try:
        api = ApiClient(server)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--server") from None
    try:
        yield TournamentClient(api)
    except ApiError as e:
        raise click.ClickException(f"the server refused: {e.message} ({e.code}, "
                                   f"HTTP {e.status})") from None
    except KeyFileError as e:
        raise click.ClickException(str(e)) from None
    except DisputeError as e:
        raise click.ClickException(f"cannot compute the dispute report: {e}") from None
    except TamperDetected as e:
        raise click.ClickException(f"the server cheated: {e}") from None
    except OSError as e:
        raise click.ClickException(f"cannot reach {server}: {e}") from None
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise click.ClickException(f"{server} does not answer like a fairdeal server "
                                   f"(unexpected answer: {type(e).__name__} {e})") from None


def checked_id(text: str) -> str:
    """A TOURNAMENT argument, or a usage error naming what an id may be."""
    from fairdeal.client.tournaments import checked_tournament_id

    try:
        return checked_tournament_id(text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="TOURNAMENT") from None


def token_of(token: str | None, token_file: str | None, who: str) -> str:
    """The token given (``--token``) or saved (``--token-file``); a usage error without one."""
    from fairdeal.client.tournaments import KeyFileError, read_token

    if token:
        return token.strip()
    if not token_file:
        raise click.UsageError(f"the {who}'s token is needed: --token-file FILE (or --token)")
    try:
        return read_token(Path(token_file))
    except KeyFileError as e:
        raise click.ClickException(str(e)) from None


def key_of(path: str, create: bool = False) -> Any:
    """The Ed25519 key in the PEM file ``path`` (``create``: made there on first use)."""
    from fairdeal.client.tournaments import KeyFileError, create_key_file, load_key_file

    try:
        if create and not Path(path).exists():
            key = create_key_file(Path(path))
            click.echo(f"new key {key.key_id} written to {path}", err=True)
            return key
        return load_key_file(Path(path))
    except KeyFileError as e:
        raise click.ClickException(str(e)) from None


def public_key_of(text: str, option: str) -> str:
    """``ed25519:HEX`` as given, or the public key of the PEM key file ``text``."""
    from .common import checked_key

    if text.strip().startswith("ed25519:"):
        return str(checked_key(text, option))
    if not Path(text).is_file():
        raise click.BadParameter(f"{text!r} is neither a key (ed25519:HEX) nor a key file",
                                 param_hint=option)
    return str(key_of(text).public_text)
