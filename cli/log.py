"""``fairdeal log``: watch a server's transparency log (``monitor``) and cosign it as a witness
(``witness``, ``witness-key``). Thin shells over verifier.logcheck and the API client.

A state file remembers the last checkpoint seen and the log's key (JSON); it is only
replaced after the new checkpoint passed, so an alarm keeps ringing until someone looks.
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path
from typing import Any

import click

from fairdeal.ledger.client import ApiClient, ApiError
from fairdeal.verifier.bundle import Bundle, InvalidBundle, parse_json
from fairdeal.verifier.checkpoint import Checkpoint, CheckpointError
from fairdeal.verifier.keys import InvalidKey, SigningKey, parse_public_key
from fairdeal.verifier.logcheck import LogForked, check_growth
from fairdeal.verifier.logleaf import genesis_leaf, seal_leaf
from fairdeal.verifier.merkle import ProofError, leaf_hash, verify_inclusion
from fairdeal.verifier.note import (
    COSIGNATURE,
    ED25519,
    Note,
    NoteError,
    VerifierKey,
    cosign_note,
    verify_note,
)
from fairdeal.verifier.report import VerificationError
from fairdeal.verifier.verify import chain_hashes

from .main import cli


@cli.group(name="log")
def log_group() -> None:
    """The transparency log of every match a server created and sealed."""


# --- shared steps -----------------------------------------------------------------------------

def _client(url: str) -> ApiClient:
    try:
        return ApiClient(url, timeout=30)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="URL") from None


def _get(client: ApiClient, path: str) -> bytes:
    try:
        status, body = client.raw("GET", path)
    except OSError as e:
        raise click.ClickException(f"cannot reach {client.base}{path}: {e}") from None
    if status != 200:
        raise click.ClickException(f"{client.base}{path} answered HTTP {status}: "
                                   f"{body[:300].decode('utf-8', 'replace')}")
    return body


def _get_json(client: ApiClient, path: str) -> Any:
    try:
        return json.loads(_get(client, path))
    except ValueError:
        raise click.ClickException(f"{client.base}{path} did not answer JSON") from None


def _read_state(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise click.ClickException(f"cannot read the state file {path}: {e}") from None
    if not isinstance(state, dict) or not isinstance(state.get("checkpoint"), str) \
            or not isinstance(state.get("log_key"), str):
        raise click.ClickException(f"{path} is not a fairdeal log state file")
    return state


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


def _write_state(path: Path, state: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)  # never a half-written state


def _log_key(client: ApiClient, given: str | None, state: dict[str, Any]) -> VerifierKey:
    """The log's key: given, or remembered, or (first use) the one the server names."""
    text = given or state.get("log_key")
    if text is None:
        keys = _get_json(client, "/keys").get("keys") or [{}]
        text = keys[0].get("log_key")
        if not isinstance(text, str):
            raise click.ClickException("the server names no log key: pass --log-key")
        click.echo(f"first use: trusting the log key {text} (pin it with --log-key)", err=True)
    try:
        key = VerifierKey.parse(text)
    except NoteError as e:
        raise click.BadParameter(str(e), param_hint="--log-key") from None
    if key.kind != ED25519:
        raise click.BadParameter("the log key is an Ed25519 (type 1) verifier key",
                                 param_hint="--log-key")
    if state and state.get("log_key") != key.text():
        raise click.ClickException(f"the state file follows the log key {state['log_key']}, "
                                   f"not {key.text()}")
    return key


def _fetch_checkpoint(client: ApiClient, key: VerifierKey) -> tuple[Checkpoint, Note, str]:
    text = _get(client, "/log/checkpoint").decode("utf-8", "replace")
    try:
        checkpoint, note = Checkpoint.from_note(text)
        if checkpoint.origin != key.name:
            raise click.ClickException(f"the checkpoint is of log {checkpoint.origin!r}, the "
                                       f"key is {key.name!r}'s")
        verify_note(note, [key])
    except (CheckpointError, NoteError) as e:
        raise click.ClickException(f"ALARM: the server's checkpoint does not verify: {e}\n"
                                   f"{text}") from None
    return checkpoint, note, text


def _check_growth(client: ApiClient, state: dict[str, Any], new: Checkpoint,
                  new_text: str) -> str:
    """Compare with the last checkpoint seen; raise an alarm (exit 1) on a fork or a shrink."""
    if not state:
        return f"first checkpoint seen: {new.describe()}"
    old = Checkpoint.from_note(state["checkpoint"])[0]
    proof: list[bytes] = []
    if old.size < new.size:
        path = f"/log/proof/consistency?old={old.size}&new={new.size}"
        try:
            answer = _get_json(client, path)
            proof = [base64.b64decode(item, validate=True) for item in answer["hashes"]]
        except (click.ClickException, KeyError, TypeError, ValueError) as e:
            # a log that cannot prove it grew honestly is treated as one that did not
            detail = e.format_message() if isinstance(e, click.ClickException) else repr(e)
            raise click.ClickException(
                f"ALARM: the server gives no usable consistency proof from size {old.size} to "
                f"{new.size} ({detail})\n--- the checkpoint seen before ---\n"
                f"{state['checkpoint']}--- the checkpoint served now ---\n{new_text}") from None
    try:
        check_growth(old, new, proof)
    except LogForked as e:
        raise click.ClickException(
            f"ALARM: {e}\n--- the checkpoint seen before ---\n{state['checkpoint']}"
            f"--- the checkpoint served now ---\n{new_text}") from None
    return (f"consistent with the last checkpoint seen (size {old.size}): {new.describe()}"
            if old.size != new.size else f"unchanged: {new.describe()}")


def _witness_lines(note: Note, witnesses: tuple[VerifierKey, ...]) -> list[str]:
    lines = []
    for witness in witnesses:
        found = [signature for signature in note.signatures if witness.matches(signature)]
        if not found:
            lines.append(f"witness {witness.name}: no cosignature on this checkpoint")
            continue
        try:
            stamp = witness.check(note, found[0])
        except NoteError as e:
            raise click.ClickException(f"ALARM: {e}") from None
        lines.append(f"witness {witness.name}: cosigned at "
                     f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(stamp or 0))}")
    return lines


def _bundle_in_log(client: ApiClient, path: str, key: VerifierKey,
                   checkpoint: Checkpoint) -> str:
    """Check a bundle's two leaves against the new checkpoint; the line to print."""
    try:
        bundle = Bundle.from_bytes(Path(path).read_bytes())
        if parse_public_key(bundle.server_key) != key.public_raw:
            return f"FAIL: {path}: sealed by another key than this log's"
        hashes = chain_hashes(bundle.events)
    except (OSError, InvalidBundle, InvalidKey, VerificationError) as e:
        return f"FAIL: {path}: {e}"
    leaves = {"genesis": genesis_leaf(bundle.genesis),
              "seal": seal_leaf(bundle.match_id, len(bundle.events) - 1, hashes[-1])}
    found = []
    for kind, leaf in leaves.items():
        try:
            answer = client.call("GET", f"/log/proof/inclusion?match={bundle.match_id}"
                                 f"&kind={kind}&size={checkpoint.size}")
        except ApiError as e:
            return f"FAIL: {path}: the log has no {kind} leaf of match {bundle.match_id} ({e})"
        except OSError as e:
            raise click.ClickException(f"cannot reach {client.base}: {e}") from None
        try:
            verify_inclusion(leaf_hash(leaf), answer["index"], checkpoint.size,
                             [base64.b64decode(item) for item in answer["hashes"]],
                             checkpoint.root)
        except (ProofError, KeyError, TypeError, ValueError) as e:
            return (f"FAIL: {path}: its {kind} leaf is not in {checkpoint.describe()}: {e}")
        found.append(f"{kind} leaf {answer['index']}")
    return f"OK: {path}: {' and '.join(found)} in size {checkpoint.size}"


def _witness_option(texts: tuple[str, ...]) -> tuple[VerifierKey, ...]:
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
    return tuple(keys)


# --- the commands ------------------------------------------------------------------------------

@log_group.command()
@click.argument("url")
@click.argument("bundles", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--state", "state_path", required=True, type=click.Path(dir_okay=False),
              help="The JSON file that remembers the last checkpoint seen (created).")
@click.option("--log-key", default=None, metavar="VKEY",
              help="The log's signed-note key (`fairdeal keys show`); default: the one in the "
                   "state file, or on first use the one the server names.")
@click.option("--witness", "witness_texts", multiple=True, metavar="VKEY",
              help="A witness whose cosignatures to check (repeatable).")
def monitor(url: str, bundles: tuple[str, ...], state_path: str, log_key: str | None,
            witness_texts: tuple[str, ...]) -> None:
    """Fetch the server's newest checkpoint, check it extends the last one seen, and check
    that each BUNDLE's genesis and seal are in it.

    Exit 1 with ALARM and both checkpoints when the log forked or shrank; 1 when a bundle
    is not in the log; 0 otherwise.
    """
    witnesses = _witness_option(witness_texts)
    client = _client(url)
    path = Path(state_path)
    state = _read_state(path)
    key = _log_key(client, log_key, state)
    checkpoint, note, text = _fetch_checkpoint(client, key)
    click.echo(_check_growth(client, state, checkpoint, text))
    for line in _witness_lines(note, witnesses):
        click.echo(line)
    lines = [_bundle_in_log(client, bundle, key, checkpoint) for bundle in bundles]
    for line in lines:
        click.echo(line)
    _write_state(path, {"log_key": key.text(), "checkpoint": text})
    if any(line.startswith("FAIL") for line in lines):
        raise SystemExit(1)


def _witness_key(path: Path) -> SigningKey:
    """The witness's own key, created (mode 0600) on first use."""
    if path.exists():
        try:
            return SigningKey.from_pem(path.read_bytes())
        except (OSError, ValueError) as e:
            raise click.ClickException(f"cannot read the witness key {path}: {e}") from None
    key = SigningKey.generate()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as e:
        raise click.ClickException(f"cannot create the witness key {path}: {e}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.to_pem())
    return key


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
    try:
        click.echo(VerifierKey(name, COSIGNATURE, _witness_key(Path(key_path)).public_raw).text())
    except NoteError as e:
        raise click.BadParameter(str(e), param_hint="--name") from None


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
    key = _witness_key(Path(key_path))
    try:
        me = VerifierKey(name, COSIGNATURE, key.public_raw)
    except NoteError as e:
        raise click.BadParameter(str(e), param_hint="--name") from None
    client = _client(url)
    path = Path(state_path)
    state = _read_state(path)
    log = _log_key(client, log_key, state)
    checkpoint, note, text = _fetch_checkpoint(client, log)
    click.echo(_check_growth(client, state, checkpoint, text), err=True)
    own = Note(note.text, tuple(sig for sig in note.signatures if log.matches(sig)))
    line = cosign_note(own, me.name, key, int(time.time()))
    cosigned = own.with_signatures([line]).render()
    _write_state(path, {"log_key": log.text(), "checkpoint": text, "witness": me.text()})
    if post:
        try:
            client.call("POST", "/log/cosignature", {"checkpoint": cosigned})
            click.echo(f"cosignature handed to {client.base}", err=True)
        except (ApiError, OSError) as e:
            click.echo(f"warning: the server did not take the cosignature: {e}", err=True)
    click.echo(cosigned, nl=False)
