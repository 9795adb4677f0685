"""``fairdeal log``: watch a server's transparency log (``monitor``), cosign it as a witness
(``witness``, ``witness-key``), and compare two observers' views (``compare``). Thin shells
over the client's log monitor and witness (client.monitor, client.witness, client.logwatch):
each parses its options, calls one library function and prints what it says.

A state file remembers the last checkpoint seen and the log's key (JSON) — the monitor's also
its scan of the leaves (``verifier.logscan``); it is only replaced after the new checkpoint
and leaves passed, so an alarm keeps ringing until someone looks. Whatever a server answers,
and whatever a state file holds, is checked for its shape before use: a wrong one is one line
naming it, exit 1 — never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from fairdeal.client.logwatch import (
    LogOptionError,
    LogServer,
    LogUsageError,
    LogWatchError,
    read_state,
)
from fairdeal.client.monitor import run_monitor
from fairdeal.client.witness import (
    compare_files,
    load_witness_key,
    run_witness,
    witness_verifier_key,
)
from fairdeal.verifier.checkpoint import Checkpoint

from .common import witness_policy
from .files import write_file
from .group import cli


@cli.group(name="log")
def log_group() -> None:
    """The transparency log of every match a server created and sealed."""


@contextmanager
def _said_by_click() -> Iterator[None]:
    """The client's log errors as click says them: a wrong option or URL a usage error
    naming it (exit 2), a missing input a usage error, every other one ``Error: ...`` (exit 1)."""
    try:
        yield
    except LogOptionError as e:
        raise click.BadParameter(str(e), param_hint=e.option) from None
    except LogUsageError as e:
        raise click.UsageError(str(e)) from None
    except LogWatchError as e:
        raise click.ClickException(str(e)) from None


def _warn(line: str) -> None:
    click.echo(line, err=True)


#: the options `verify` and `log monitor` share: who must have cosigned a checkpoint
WITNESS_HELP = ("A witness's cosigner key, name+keyid+base64 as `fairdeal log witness-key` "
                "prints it (repeatable). The checkpoint must carry valid C2SP "
                "tlog-cosignatures of at least --witnesses of the keys given.")
WITNESSES_HELP = "How many of the --witness keys must have cosigned (default 1)."


# --- the commands ------------------------------------------------------------------------------

@log_group.command()
@click.argument("url")
@click.argument("bundles", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--state", "state_path", required=True, type=click.Path(dir_okay=False),
              help="The JSON file that remembers the last checkpoint seen and the leaves "
                   "scanned (created).")
@click.option("--log-key", default=None, metavar="VKEY",
              help="The log's signed-note key (`fairdeal keys show`); default: the one in the "
                   "state file, or on first use the one the server names.")
@click.option("--witness", "witness_texts", multiple=True, metavar="VKEY", help=WITNESS_HELP)
@click.option("--witnesses", "quorum", type=click.IntRange(1, 64), default=None, metavar="N",
              help=WITNESSES_HELP)
@click.option("--deep", is_flag=True,
              help="Also fetch each newly sealed match's bundle and check that its genesis and "
                   "head are the ones its leaves log, and that it verifies.")
@click.option("--save-checkpoint", "checkpoint_path", default=None,
              type=click.Path(dir_okay=False),
              help="Once every check held, write the checkpoint they held for (the signed "
                   "note) to this file: a tree you trust, for `verify --checkpoint`.")
def monitor(url: str, bundles: tuple[str, ...], state_path: str, log_key: str | None,
            witness_texts: tuple[str, ...], quorum: int | None, deep: bool,
            checkpoint_path: str | None = None) -> None:
    """Fetch the server's newest checkpoint, check it extends the last one seen, scan the
    leaves added since (one genesis per match id, each seal closing its own genesis; the
    leaves must make the checkpoint's tree), and check that each BUNDLE's genesis and seal
    are in it. With --witness, the checkpoint must also be cosigned by enough of those
    witnesses before it is accepted.

    Exit 1 with ALARM and both checkpoints when the log forked or shrank, or the witnesses
    did not cosign; 1 with ALARM and both leaf indices for a match id dealt twice or a seal
    without its genesis (the state file is then left as it was, so the alarm rings again);
    1 when a bundle is not in the log; 0 otherwise. Compare your state file with another
    observer's with `fairdeal log compare`: alone, a monitor cannot see a log that shows
    someone else another tree.
    """
    witnesses = witness_policy(witness_texts, quorum)
    with _said_by_click():
        held = run_monitor(LogServer.at(url), Path(state_path), log_key=log_key,
                           witnesses=witnesses, bundles=bundles, deep=deep, say=click.echo,
                           warn=_warn)
    if not held:
        raise SystemExit(1)
    if checkpoint_path is not None:
        with _said_by_click():
            checkpoint = read_state(Path(state_path))["checkpoint"]
        write_file(checkpoint_path, checkpoint)
        click.echo(f"trusted checkpoint saved: {checkpoint_path} "
                   f"(size {Checkpoint.from_note(checkpoint)[0].size})")


_KEY_OPTION = click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
                           help="The witness's private key (PEM; created on first use).")
_NAME_OPTION = click.option("--name", required=True,
                            help="The witness's name, e.g. witness.example.org/w1.")


@log_group.command(name="witness-key")
@_KEY_OPTION
@_NAME_OPTION
def witness_key(key_path: str, name: str) -> None:
    """Print the witness's cosigner verifier key (what monitors pass as --witness and the
    server's operator lists in FAIRDEAL_LOG_WITNESSES)."""
    with _said_by_click():
        click.echo(witness_verifier_key(name, load_witness_key(Path(key_path))).text())


@log_group.command()
@click.argument("url")
@_KEY_OPTION
@_NAME_OPTION
@click.option("--state", "state_path", required=True, type=click.Path(dir_okay=False),
              help="The witness's own state file: the last checkpoint it cosigned.")
@click.option("--log-key", default=None, metavar="VKEY", help="The log's signed-note key.")
@click.option("--post/--no-post", default=True, show_default=True,
              help="Hand the cosignature to the server (POST /api/v1/log/cosignature).")
def witness(url: str, key_path: str, name: str, state_path: str, log_key: str | None,
            post: bool) -> None:
    """Cosign the server's newest checkpoint as a witness (C2SP tlog-cosignature), after
    checking it extends the last one this witness cosigned; print the cosigned checkpoint.

    A witness never cosigns a fork: exit 1 with ALARM and both checkpoints instead.
    """
    with _said_by_click():
        key = load_witness_key(Path(key_path))
        me = witness_verifier_key(name, key)
        cosigned = run_witness(LogServer.at(url), key, me, Path(state_path), log_key=log_key,
                               post=post, warn=_warn)
    click.echo(cosigned, nl=False)


@log_group.command()
@click.argument("first", metavar="STATE_A", type=click.Path(exists=True, dir_okay=False))
@click.argument("second", metavar="STATE_B", type=click.Path(exists=True, dir_okay=False))
@click.option("--url", default=None,
              help="The log's server: asked for the consistency proof when the two views have "
                   "different sizes (the proof is checked against both signed roots, so the "
                   "server cannot make a forked pair pass).")
@click.option("--log-key", default=None, metavar="VKEY",
              help="The log's signed-note key; default: the one the state files follow.")
def compare(first: str, second: str, url: str | None, log_key: str | None) -> None:
    """Tell two observers whether their views of one log are consistent.

    STATE_A and STATE_B are state files of `log monitor` or `log witness` (or files holding a
    signed checkpoint). One size: the roots must be equal. Different sizes: the bigger tree
    must extend the smaller, by the log's consistency proof (--url). Exit 0 when they are
    consistent; 1 with ALARM and both checkpoints when they are not (the log showed the two
    observers different trees) or the server will not prove it; 2 when the sizes differ and
    no --url was given.
    """
    with _said_by_click():
        click.echo(compare_files(first, second, url=url, log_key=log_key))
