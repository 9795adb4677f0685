"""``fairdeal log``: watch a server's transparency log (``monitor``), cosign it as a witness
(``witness``, ``witness-key``), and compare two observers' views (``compare``). Thin shells
over verifier.logcheck, verifier.logcompare and the API client.

A state file remembers the last checkpoint seen and the log's key (JSON) — the monitor's also
its scan of the leaves (``verifier.logscan``); it is only replaced after the new checkpoint
and leaves passed, so an alarm keeps ringing until someone looks. Whatever a server answers,
and whatever a state file holds, is checked for its shape before use: a wrong one is one line
naming it, exit 1 — never a traceback.
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import click

from fairdeal.client import ApiClient, ApiError
from fairdeal.verifier.bundle import Bundle, InvalidBundle
from fairdeal.verifier.checkpoint import (
    Checkpoint,
    CheckpointError,
    WitnessError,
)
from fairdeal.verifier.keys import InvalidKey, SigningKey, parse_public_key, public_key_text
from fairdeal.verifier.logcheck import LogForked, check_growth
from fairdeal.verifier.logcompare import ProofNeeded, ViewError, compare_views, read_view
from fairdeal.verifier.logleaf import genesis_leaf, seal_leaf
from fairdeal.verifier.logscan import LogScan, ScanError, Sealed
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
from fairdeal.verifier.verify import chain_hashes, verify_bytes

from .common import witness_policy
from .group import cli


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
    except (ValueError, RecursionError):  # nested past Python's depth: not an answer either
        raise click.ClickException(f"{client.base}{path} did not answer JSON") from None


def _read_state(path: Path) -> dict[str, Any]:
    """The state file, checked whole (its checkpoint parses, its log key parses); empty on
    first use. A folder that does not exist is refused now, before the server is asked
    anything, rather than after the checks when the state cannot be written."""
    if not path.parent.is_dir():
        # the OS's own words, as every other output path of the CLI says them
        why = ("Not a directory: it is a file, not a folder" if path.parent.exists()
               else f"No such file or directory: the folder {path.parent} does not exist")
        raise click.ClickException(f"cannot write the state file {path}: {why}")
    if not path.exists():
        return {}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        why = "it is nested too deeply" if isinstance(e, RecursionError) else e
        raise click.ClickException(f"cannot read the state file {path}: {why}") from None
    if not isinstance(state, dict) or not isinstance(state.get("checkpoint"), str) \
            or not isinstance(state.get("log_key"), str):
        raise click.ClickException(f"{path} is not a fairdeal log state file (a JSON object "
                                   "with 'checkpoint' and 'log_key' texts)")
    try:
        Checkpoint.from_note(state["checkpoint"])
        VerifierKey.parse(state["log_key"])
    except (CheckpointError, NoteError) as e:
        raise click.ClickException(f"{path} is not a fairdeal log state file: {e}") from None
    return state


def _write_state(path: Path, state: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, path)  # never a half-written state
    except OSError as e:
        raise click.ClickException(f"cannot write the state file {path}: "
                                   f"{e.strerror or e}") from None


def _log_key(client: ApiClient, given: str | None, state: dict[str, Any]) -> VerifierKey:
    """The log's key: given, or remembered, or (first use) the one the server names."""
    text = given or state.get("log_key")
    if text is None:
        answer = _get_json(client, "/keys")
        keys = answer.get("keys") if isinstance(answer, dict) else None
        first = keys[0] if isinstance(keys, list) and keys else None
        text = first.get("log_key") if isinstance(first, dict) else None
        if not isinstance(text, str):
            raise click.ClickException(f"{client.base}/keys names no log key (expected "
                                       '{"keys": [{"log_key": ...}]}): pass --log-key')
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


def _consistency_proof(client: ApiClient, old: int, new: int) -> list[bytes]:
    """The server's consistency proof between two sizes; ValueError (its words) when it gives
    none in the form {"hashes": [base64, ...]}."""
    path = f"/log/proof/consistency?old={old}&new={new}"
    try:
        answer = _get_json(client, path)
        return [base64.b64decode(item, validate=True) for item in answer["hashes"]]
    except (click.ClickException, KeyError, TypeError, ValueError) as e:
        detail = e.format_message() if isinstance(e, click.ClickException) else repr(e)
        raise ValueError(detail) from None


def _check_growth(client: ApiClient, state: dict[str, Any], new: Checkpoint,
                  new_text: str) -> str:
    """Compare with the last checkpoint seen; raise an alarm (exit 1) on a fork or a shrink."""
    if not state:
        return f"first checkpoint seen: {new.describe()}"
    old = Checkpoint.from_note(state["checkpoint"])[0]
    proof: list[bytes] = []
    if old.size < new.size:
        try:
            proof = _consistency_proof(client, old.size, new.size)
        except ValueError as e:
            # a log that cannot prove it grew honestly is treated as one that did not
            detail = str(e)
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
    found, genesis_at = [], 0
    for kind in ("genesis", "seal"):
        try:
            answer = client.call("GET", f"/log/proof/inclusion?match={bundle.match_id}"
                                 f"&kind={kind}&size={checkpoint.size}")
        except ApiError as e:
            return f"FAIL: {path}: the log has no {kind} leaf of match {bundle.match_id} ({e})"
        except OSError as e:
            raise click.ClickException(f"cannot reach {client.base}: {e}") from None
        except RecursionError:
            return f"FAIL: {path}: the server's proof of its {kind} leaf is not JSON"
        if not isinstance(answer, dict) or isinstance(answer.get("index"), bool) \
                or not isinstance(answer.get("index"), int):
            return f"FAIL: {path}: the server's answer for the {kind} leaf names no leaf index"
        if kind == "genesis":
            leaf = genesis_leaf(bundle.genesis)
            genesis_at = answer["index"]
        else:  # the seal names the genesis leaf it closes; format 1 seals name none
            old = seal_leaf(bundle.match_id, len(bundle.events) - 1, hashes[-1])
            leaf = old if answer.get("leaf") == old.decode() else seal_leaf(
                bundle.match_id, len(bundle.events) - 1, hashes[-1], genesis_at)
        try:
            verify_inclusion(leaf_hash(leaf), answer["index"], checkpoint.size,
                             [base64.b64decode(item) for item in answer["hashes"]],
                             checkpoint.root)
        except (ProofError, KeyError, TypeError, ValueError) as e:
            return (f"FAIL: {path}: its {kind} leaf is not in {checkpoint.describe()}: {e}")
        found.append(f"{kind} leaf {answer['index']}")
    return f"OK: {path}: {' and '.join(found)} in size {checkpoint.size}"


# --- the leaves: one genesis per match id, every seal closing its own (verifier.logscan) ----

#: leaves asked for per request: a hostile server's answer is cut to what was asked
LEAF_PAGE = 1000


def _scan_leaves(client: ApiClient, state: dict[str, Any], checkpoint: Checkpoint,
                 key: VerifierKey, deep: bool) -> tuple[list[str], list[str], dict[str, Any]]:
    """Scan the leaves appended since the last run, up to the checkpoint's size, and check
    they make its tree; with ``deep``, each new seal's bundle. Returns the lines to print, the
    ALARM lines, and the scan to keep in the state file."""
    try:
        scan = LogScan.from_json(state["scan"]) if "scan" in state else LogScan()
    except ScanError as e:
        raise click.ClickException(f"the state file's leaf scan is damaged ({e}): delete its "
                                   "'scan' entry to scan the log again from leaf 0") from None
    if scan.size > checkpoint.size:
        raise click.ClickException(f"the state file scanned {scan.size} leaves, more than the "
                                   f"checkpoint's {checkpoint.size}: not this log's state")
    first, alarms, deep_checked = scan.size, [], 0
    while scan.size < checkpoint.size and not alarms:
        limit = min(LEAF_PAGE, checkpoint.size - scan.size)
        answer = _get_json(client, f"/log/leaves?after={scan.size - 1}&limit={limit}")
        entries = answer.get("leaves") if isinstance(answer, dict) else None
        if not isinstance(entries, list) or not entries:
            alarms.append(f"ALARM: the server lists no leaf {scan.size}, though its checkpoint "
                          f"holds {checkpoint.size} leaves")
            break
        for entry in entries[:limit]:
            if not isinstance(entry, dict) or type(entry.get("index")) is not int \
                    or entry["index"] != scan.size or not isinstance(entry.get("leaf"), str):
                alarms.append(f"ALARM: the server's list of leaves has no leaf {scan.size} "
                              "where it should be")
                break
            findings, sealed = scan.add(scan.size, entry["leaf"].encode("utf-8"))
            alarms += [f"ALARM: {finding.message}" for finding in findings]
            if sealed is not None and deep:
                alarms += _deep_check(client, key, checkpoint, sealed)
                deep_checked += 1
    if not alarms and scan.root() != checkpoint.root:
        alarms.append(f"ALARM: the leaves the server lists are not the tree its checkpoint "
                      f"signs ({checkpoint.describe()})")
    created, sealed_count = scan.counts()
    lines = [f"leaves {first} to {scan.size - 1} scanned: {created} match ids created, "
             f"{sealed_count} sealed, each once" if scan.size > first
             else "no new leaves to scan"]
    if deep:
        lines.append(f"deep: {deep_checked} sealed match bundle(s) checked against their leaves")
    return lines, alarms, scan.to_json()


def _deep_check(client: ApiClient, key: VerifierKey, checkpoint: Checkpoint,
                sealed: Sealed) -> list[str]:
    """The sealed match's bundle, fetched from the server: its genesis and head must be the
    leaves', and it must verify under the log's key. The ALARM lines (none when it holds)."""
    where = f"seal leaf {sealed.seal} of match {sealed.match_id!r}"
    try:
        answer = client.call("GET", f"/log/proof/inclusion?index={sealed.genesis}"
                             f"&size={checkpoint.size}")
        genesis = str(answer["leaf"]).encode("utf-8")
        verify_inclusion(leaf_hash(genesis), sealed.genesis, checkpoint.size,
                         [base64.b64decode(item, validate=True) for item in answer["hashes"]],
                         checkpoint.root)
    except (ApiError, ProofError, KeyError, TypeError, ValueError) as e:
        return [f"ALARM: {where}: the server proves no genesis leaf {sealed.genesis} ({e})"]
    except OSError as e:
        raise click.ClickException(f"cannot reach {client.base}: {e}") from None
    path = f"/matches/{quote(sealed.match_id, safe='')}/bundle"
    try:
        status, body = client.raw("GET", path)
    except OSError as e:
        raise click.ClickException(f"cannot reach {client.base}{path}: {e}") from None
    if status != 200:
        return [f"ALARM: {where}: the server gives no bundle of this match (HTTP {status})"]
    try:
        bundle = Bundle.from_bytes(body)
        hashes = chain_hashes(bundle.events)
    except (InvalidBundle, VerificationError) as e:
        return [f"ALARM: {where}: the server's bundle of this match is not one ({e})"]
    seal = seal_leaf(bundle.match_id, len(bundle.events) - 1, hashes[-1], sealed.leaf.genesis)
    if bundle.match_id != sealed.match_id or genesis_leaf(bundle.genesis) != genesis:
        return [f"ALARM: {where}: the bundle's genesis is not genesis leaf {sealed.genesis}"]
    if seal != sealed.leaf.body:
        return [f"ALARM: {where}: the bundle's head is not the one the seal leaf logs"]
    report = verify_bytes(body, trusted_key=public_key_text(key.public_raw))
    if not report.ok:
        return [f"ALARM: {where}: the server's bundle of this match does not verify "
                f"({report.failure})"]
    return []


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
def monitor(url: str, bundles: tuple[str, ...], state_path: str, log_key: str | None,
            witness_texts: tuple[str, ...], quorum: int | None, deep: bool) -> None:
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
    client = _client(url)
    path = Path(state_path)
    state = _read_state(path)
    key = _log_key(client, log_key, state)
    checkpoint, note, text = _fetch_checkpoint(client, key)
    click.echo(_check_growth(client, state, checkpoint, text))
    if witnesses is not None:
        try:
            click.echo(witnesses.check(note))
        except WitnessError as e:
            # not accepted, so not remembered: the next run asks again
            raise click.ClickException(f"ALARM: {e}\n--- the checkpoint served ---\n"
                                       f"{text}") from None
    scanned, alarms, scan = _scan_leaves(client, state, checkpoint, key, deep)
    for line in [*scanned, *alarms]:
        click.echo(line)
    lines = [_bundle_in_log(client, bundle, key, checkpoint) for bundle in bundles]
    for line in lines:
        click.echo(line)
    if alarms:
        raise SystemExit(1)
    _write_state(path, {"log_key": key.text(), "checkpoint": text, "scan": scan})
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


def _view_file(path: str) -> tuple[str, str | None]:
    """A view's checkpoint and log key (None for a bare checkpoint) from a state file of
    `log monitor` or `log witness`, or a file holding a signed checkpoint."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise click.ClickException(f"cannot read {path}: {e}") from None
    if not text.lstrip().startswith("{"):
        return text, None
    try:
        state = json.loads(text)
    except (ValueError, RecursionError):
        raise click.ClickException(f"{path} is neither a checkpoint nor a log state file "
                                   "(not JSON)") from None
    if not isinstance(state, dict) or not isinstance(state.get("checkpoint"), str) \
            or not isinstance(state.get("log_key", ""), str):
        raise click.ClickException(f"{path} is not a fairdeal log state file (a JSON object "
                                   "with 'checkpoint' and 'log_key' texts)")
    return state["checkpoint"], state.get("log_key")


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
    if log_key is not None:
        try:
            VerifierKey.parse(log_key)
        except NoteError as e:
            raise click.BadParameter(str(e), param_hint="--log-key") from None
    (note_a, key_a), (note_b, key_b) = _view_file(first), _view_file(second)
    named = {text for text in (log_key, key_a, key_b) if text is not None}
    if not named:
        raise click.UsageError("neither file names the log key: pass --log-key")
    try:
        keys = {VerifierKey.parse(text).text() for text in named}
    except NoteError as e:
        raise click.ClickException(f"a log key: {e}") from None
    if len(keys) != 1:
        raise click.ClickException(
            "the two views follow different log keys (" + ", ".join(sorted(keys)) + "): they "
            "watch different logs, or the server gave each a different key; compare each "
            "with the key the operator publishes")
    key = VerifierKey.parse(keys.pop())
    try:
        views = read_view(first, note_a, key), read_view(second, note_b, key)
    except ViewError as e:
        raise click.ClickException(str(e)) from None
    both = (f"--- {first}'s checkpoint ---\n{note_a}"
            f"--- {second}'s checkpoint ---\n{note_b}")
    try:
        try:
            click.echo(compare_views(*views))
            return
        except ProofNeeded as e:
            if url is None:
                raise click.UsageError(f"{e}: pass --url with the log's server") from None
            try:
                proof = _consistency_proof(_client(url), e.old, e.new)
            except ValueError as why:
                raise click.ClickException(
                    f"ALARM: the server gives no usable consistency proof from size {e.old} "
                    f"to {e.new} ({why})\n{both}") from None
        click.echo(compare_views(*views, proof=proof))
    except LogForked as e:
        raise click.ClickException(f"ALARM: the two views cannot both be the log's: {e}\n"
                                   f"{both}") from None
