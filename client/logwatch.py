"""What a monitor and a witness of a transparency log share: the server's answers, each
checked for its shape; the log's key; its newest checkpoint, verified; the growth check
against the last checkpoint seen; and the state file that remembers that checkpoint.

A state file remembers the last checkpoint seen and the log's key (JSON) — a monitor's also
its scan of the leaves (``verifier.logscan``). It is only replaced after the new checkpoint
passed, so an alarm keeps ringing until someone looks. Whatever a server answers, and whatever
a state file holds, is checked for its shape before use: a wrong one is a ``LogWatchError``
whose message names it, never a traceback.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairdeal.verifier.checkpoint import Checkpoint, CheckpointError
from fairdeal.verifier.logcheck import LogForked, check_growth
from fairdeal.verifier.note import ED25519, Note, NoteError, VerifierKey, verify_note

from .api import ApiClient

__all__ = ["LogOptionError", "LogServer", "LogUsageError", "LogWatchError", "read_state",
           "read_view_file", "to_stderr", "write_state"]


def to_stderr(line: str) -> None:
    """Where a monitor's and a witness's asides go unless told otherwise: standard error."""
    print(line, file=sys.stderr)


class LogWatchError(Exception):
    """What stops a monitor, a witness or a comparison: the log misbehaved (the message then
    starts ``ALARM:``), or a server, a file or a key cannot be used. The message is the whole
    diagnosis, as the CLI prints it."""


class LogOptionError(LogWatchError):
    """A value given by the caller is wrong: ``option`` names which (``--log-key``, ``URL``)."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


class LogUsageError(LogWatchError):
    """The caller left out what the task needs (a log key, a server to ask for a proof)."""


class LogServer:
    """The transparency log of a fairdeal server, as a monitor or a witness asks it."""

    def __init__(self, api: ApiClient) -> None:
        self.api = api

    @classmethod
    def at(cls, url: str) -> LogServer:
        """The server at ``url``; LogOptionError (for ``URL``) when it is no http(s) URL."""
        try:
            return cls(ApiClient(url, timeout=30))
        except ValueError as e:
            raise LogOptionError(str(e), "URL") from None

    @property
    def base(self) -> str:
        return self.api.base

    def get(self, path: str) -> bytes:
        """The body of a GET that must answer 200."""
        try:
            status, body = self.api.raw("GET", path)
        except OSError as e:
            raise LogWatchError(f"cannot reach {self.base}{path}: {e}") from None
        if status != 200:
            raise LogWatchError(f"{self.base}{path} answered HTTP {status}: "
                                f"{body[:300].decode('utf-8', 'replace')}")
        return body

    def get_json(self, path: str) -> Any:
        try:
            return json.loads(self.get(path))
        except (ValueError, RecursionError):  # nested past Python's depth: not an answer either
            raise LogWatchError(f"{self.base}{path} did not answer JSON") from None

    def log_key(self, given: str | None, state: dict[str, Any],
                warn: Callable[[str], None]) -> VerifierKey:
        """The log's key: given, or remembered, or (first use, ``warn`` told) the one the
        server names."""
        text = given or state.get("log_key")
        if text is None:
            answer = self.get_json("/keys")
            keys = answer.get("keys") if isinstance(answer, dict) else None
            first = keys[0] if isinstance(keys, list) and keys else None
            text = first.get("log_key") if isinstance(first, dict) else None
            if not isinstance(text, str):
                raise LogWatchError(f"{self.base}/keys names no log key (expected "
                                    '{"keys": [{"log_key": ...}]}): pass --log-key')
            warn(f"first use: trusting the log key {text} (pin it with --log-key)")
        try:
            key = VerifierKey.parse(text)
        except NoteError as e:
            raise LogOptionError(str(e), "--log-key") from None
        if key.kind != ED25519:
            raise LogOptionError("the log key is an Ed25519 (type 1) verifier key", "--log-key")
        if state and state.get("log_key") != key.text():
            raise LogWatchError(f"the state file follows the log key {state['log_key']}, "
                                f"not {key.text()}")
        return key

    def checkpoint(self, key: VerifierKey) -> tuple[Checkpoint, Note, str]:
        """The server's newest checkpoint, its note and its text, signed by ``key``'s log."""
        text = self.get("/log/checkpoint").decode("utf-8", "replace")
        try:
            checkpoint, note = Checkpoint.from_note(text)
            if checkpoint.origin != key.name:
                raise LogWatchError(f"the checkpoint is of log {checkpoint.origin!r}, the "
                                    f"key is {key.name!r}'s")
            verify_note(note, [key])
        except (CheckpointError, NoteError) as e:
            raise LogWatchError(f"ALARM: the server's checkpoint does not verify: {e}\n"
                                f"{text}") from None
        return checkpoint, note, text

    def consistency_proof(self, old: int, new: int) -> list[bytes]:
        """The server's consistency proof between two sizes; ValueError (its words) when it
        gives none in the form {"hashes": [base64, ...]}."""
        path = f"/log/proof/consistency?old={old}&new={new}"
        try:
            answer = self.get_json(path)
            return [base64.b64decode(item, validate=True) for item in answer["hashes"]]
        except (LogWatchError, KeyError, TypeError, ValueError) as e:
            detail = str(e) if isinstance(e, LogWatchError) else repr(e)
            raise ValueError(detail) from None

    def check_growth(self, state: dict[str, Any], new: Checkpoint, new_text: str) -> str:
        """Compare with the last checkpoint seen (the line to print); an ALARM on a fork or a
        shrink, or when the server cannot prove that the log grew honestly."""
        if not state:
            return f"first checkpoint seen: {new.describe()}"
        old = Checkpoint.from_note(state["checkpoint"])[0]
        both = (f"--- the checkpoint seen before ---\n{state['checkpoint']}"
                f"--- the checkpoint served now ---\n{new_text}")
        proof: list[bytes] = []
        if old.size < new.size:
            try:
                proof = self.consistency_proof(old.size, new.size)
            except ValueError as e:
                # a log that cannot prove it grew honestly is treated as one that did not
                raise LogWatchError(f"ALARM: the server gives no usable consistency proof from "
                                    f"size {old.size} to {new.size} ({e})\n{both}") from None
        try:
            check_growth(old, new, proof)
        except LogForked as e:
            raise LogWatchError(f"ALARM: {e}\n{both}") from None
        return (f"consistent with the last checkpoint seen (size {old.size}): {new.describe()}"
                if old.size != new.size else f"unchanged: {new.describe()}")


def read_state(path: Path) -> dict[str, Any]:
    """The state file, checked whole (its checkpoint parses, its log key parses); empty on
    first use. A folder that does not exist is refused now, before the server is asked
    anything, rather than after the checks when the state cannot be written."""
    if not path.parent.is_dir():
        # the OS's own words, as every other output path of the CLI says them
        why = ("Not a directory: it is a file, not a folder" if path.parent.exists()
               else f"No such file or directory: the folder {path.parent} does not exist")
        raise LogWatchError(f"cannot write the state file {path}: {why}")
    if not path.exists():
        return {}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        reason = "it is nested too deeply" if isinstance(e, RecursionError) else e
        raise LogWatchError(f"cannot read the state file {path}: {reason}") from None
    if not isinstance(state, dict) or not isinstance(state.get("checkpoint"), str) \
            or not isinstance(state.get("log_key"), str):
        raise LogWatchError(f"{path} is not a fairdeal log state file (a JSON object "
                            "with 'checkpoint' and 'log_key' texts)")
    try:
        Checkpoint.from_note(state["checkpoint"])
        VerifierKey.parse(state["log_key"])
    except (CheckpointError, NoteError) as e:
        raise LogWatchError(f"{path} is not a fairdeal log state file: {e}") from None
    return state


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace the state file whole: never a half-written state."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError as e:
        raise LogWatchError(f"cannot write the state file {path}: {e.strerror or e}") from None


def read_view_file(path: str) -> tuple[str, str | None]:
    """A view's checkpoint and log key (None for a bare checkpoint) from a state file of a
    monitor or a witness, or a file holding a signed checkpoint."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LogWatchError(f"cannot read {path}: {e}") from None
    if not text.lstrip().startswith("{"):
        return text, None
    try:
        state = json.loads(text)
    except (ValueError, RecursionError):
        raise LogWatchError(f"{path} is neither a checkpoint nor a log state file "
                            "(not JSON)") from None
    if not isinstance(state, dict) or not isinstance(state.get("checkpoint"), str) \
            or not isinstance(state.get("log_key", ""), str):
        raise LogWatchError(f"{path} is not a fairdeal log state file (a JSON object "
                            "with 'checkpoint' and 'log_key' texts)")
    return state["checkpoint"], state.get("log_key")
