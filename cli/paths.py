"""Command-line paths to the bundle files they stand for: a folder means its ``*.json``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

__all__ = ["RECEIPTS_SUFFIX", "bundle_paths"]

#: how `fairdeal play --receipts DIR` names a match's receipts file
RECEIPTS_SUFFIX = ".receipts.json"


def bundle_paths(paths: Iterable[str], recursive: bool, param_hint: str = "FILES") -> list[str]:
    """Each path as given, except that a folder becomes the ``*.json`` files in it, sorted by
    name (and those of every folder below it with ``recursive``). ``-`` (standard input) stays.
    A folder's ``*.receipts.json`` files are a player's receipts (``play --receipts``), not
    bundles: they are left out (give them to ``--receipts``).

    A folder holding no bundle is a usage error: a newcomer who typed the wrong folder should
    hear so, not see nothing verified.
    """
    out: list[str] = []
    for path in paths:
        folder = Path(path)
        if path == "-" or not folder.is_dir():
            out.append(path)
            continue
        found = sorted(folder.rglob("*.json") if recursive else folder.glob("*.json"))
        files = [str(item) for item in found
                 if item.is_file() and not item.name.endswith(RECEIPTS_SUFFIX)]
        if not files:
            where = "in it or below" if recursive else "in it (-r looks in its folders too)"
            raise click.BadParameter(f"{path} is a folder with no .json file {where}",
                                     param_hint=param_hint)
        out.extend(files)
    return out
