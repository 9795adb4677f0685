"""Files the commands write: one clear line naming the path and the system's reason when a
write fails (click's FileError, exit 1), never a traceback."""

from __future__ import annotations

from pathlib import Path

import click

from fairdeal.verifier.bundle import MAX_BUNDLE_BYTES

__all__ = ["make_folder", "read_file", "write_file"]


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def read_file(path: str) -> bytes:
    """A file's bytes; past MAX_BUNDLE_BYTES only one byte more is read (the verifier then
    refuses it by its size, naming the limit), so a huge file cannot fill the memory."""
    try:
        with Path(path).open("rb") as stream:
            return stream.read(MAX_BUNDLE_BYTES + 1)
    except OSError as e:
        raise click.FileError(path, hint=e.strerror or str(e)) from None


def write_file(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, or click.FileError naming it."""
    try:
        if isinstance(data, str):
            Path(path).write_text(data, encoding="utf-8")
        else:
            Path(path).write_bytes(data)
    except OSError as e:
        raise click.FileError(str(path), hint=_reason(e)) from None


def make_folder(path: str | Path) -> Path:
    """The folder ``path``, created with its parents when missing, or a click error naming
    it and the reason (exit 1)."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise click.ClickException(f"cannot create the folder {folder}: {_reason(e)}") \
            from None
    return folder
