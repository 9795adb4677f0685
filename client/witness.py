"""The log witness, and two observers' views compared.

A witness cosigns a server's newest checkpoint (C2SP tlog-cosignature) only after checking it
extends the last one this witness cosigned: it never cosigns a fork. ``compare_files`` tells two
observers (monitors, witnesses, anyone holding a signed checkpoint) whether their views of one
log can both be the log's: alone, a monitor cannot see a log that shows someone else another
tree.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logcheck import LogForked
from fairdeal.verifier.logcompare import ProofNeeded, ViewError, compare_views, read_view
from fairdeal.verifier.note import COSIGNATURE, Note, NoteError, VerifierKey, cosign_note

from .api import ApiError
from .logwatch import (
    LogOptionError,
    LogServer,
    LogUsageError,
    LogWatchError,
    read_state,
    read_view_file,
    to_stderr,
    write_state,
)

__all__ = ["compare_files", "load_witness_key", "run_witness", "witness_verifier_key"]


def load_witness_key(path: Path) -> SigningKey:
    """The witness's own key, created (mode 0600) on first use."""
    if path.exists():
        try:
            return SigningKey.from_pem(path.read_bytes())
        except (OSError, ValueError) as e:
            raise LogWatchError(f"cannot read the witness key {path}: {e}") from None
    key = SigningKey.generate()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as e:
        raise LogWatchError(f"cannot create the witness key {path}: {e}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.to_pem())
    return key


def witness_verifier_key(name: str, key: SigningKey) -> VerifierKey:
    """The witness's cosigner verifier key (what monitors pin with ``--witness``);
    LogOptionError (for ``--name``) when ``name`` is not a key name."""
    try:
        return VerifierKey(name, COSIGNATURE, key.public_raw)
    except NoteError as e:
        raise LogOptionError(str(e), "--name") from None


def run_witness(server: LogServer, key: SigningKey, me: VerifierKey, state_path: Path, *,
            log_key: str | None = None, post: bool = True,
            warn: Callable[[str], None] = to_stderr) -> str:
    """Cosign the server's newest checkpoint as the witness ``me`` (signing with ``key``)
    once it extends the last one this witness cosigned; the cosigned checkpoint's text.
    ``warn`` hears the growth check and what became of the cosignature handed to the server
    (with ``post``)."""
    state = read_state(state_path)
    log = server.log_key(log_key, state, warn)
    checkpoint, note, text = server.checkpoint(log)
    warn(server.check_growth(state, checkpoint, text))
    own = Note(note.text, tuple(sig for sig in note.signatures if log.matches(sig)))
    line = cosign_note(own, me.name, key, int(time.time()))
    cosigned = own.with_signatures([line]).render()
    write_state(state_path, {"log_key": log.text(), "checkpoint": text, "witness": me.text()})
    if post:
        try:
            server.api.call("POST", "/log/cosignature", {"checkpoint": cosigned})
            warn(f"cosignature handed to {server.base}")
        except (ApiError, OSError) as e:
            warn(f"warning: the server did not take the cosignature: {e}")
    return cosigned


def compare_files(first: str, second: str, *, url: str | None = None,
            log_key: str | None = None) -> str:
    """Whether the views in the files ``first`` and ``second`` (state files of a monitor or
    a witness, or signed checkpoints) are consistent: the line saying so, or an ALARM
    (LogWatchError) with both checkpoints. Views of different sizes need the log's consistency
    proof, asked of the server at ``url`` (LogUsageError without one)."""
    if log_key is not None:
        try:
            VerifierKey.parse(log_key)
        except NoteError as e:
            raise LogOptionError(str(e), "--log-key") from None
    (note_a, key_a), (note_b, key_b) = read_view_file(first), read_view_file(second)
    key = _one_log_key(log_key, key_a, key_b)
    try:
        views = read_view(first, note_a, key), read_view(second, note_b, key)
    except ViewError as e:
        raise LogWatchError(str(e)) from None
    both = (f"--- {first}'s checkpoint ---\n{note_a}"
            f"--- {second}'s checkpoint ---\n{note_b}")
    try:
        try:
            return compare_views(*views)
        except ProofNeeded as e:
            if url is None:
                raise LogUsageError(f"{e}: pass --url with the log's server") from None
            try:
                proof = LogServer.at(url).consistency_proof(e.old, e.new)
            except ValueError as why:
                raise LogWatchError(f"ALARM: the server gives no usable consistency proof from "
                                    f"size {e.old} to {e.new} ({why})\n{both}") from None
        return compare_views(*views, proof=proof)
    except LogForked as e:
        raise LogWatchError(f"ALARM: the two views cannot both be the log's: {e}\n{both}") from None


def _one_log_key(given: str | None, key_a: str | None, key_b: str | None) -> VerifierKey:
    """The one log key the caller and the two files name; an error when none names one, or
    when they name different ones."""
    named = {text for text in (given, key_a, key_b) if text is not None}
    if not named:
        raise LogUsageError("neither file names the log key: pass --log-key")
    try:
        keys = {VerifierKey.parse(text).text() for text in named}
    except NoteError as e:
        raise LogWatchError(f"a log key: {e}") from None
    if len(keys) != 1:
        raise LogWatchError(
            "the two views follow different log keys (" + ", ".join(sorted(keys)) + "): they "
            "watch different logs, or the server gave each a different key; compare each "
            "with the key the operator publishes")
    return VerifierKey.parse(keys.pop())
