"""``fairdeal verify t.zip``: a tournament export verified offline — the tournament's log and
every match in it — its checks printed as a match's are (OK/FAIL, the diagnosis, with
``--verbose`` every check). The helpers of cli/verify.py; not a command of its own."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import click

from fairdeal.verifier.keys import InvalidKey
from fairdeal.verifier.report import counted
from fairdeal.verifier.tournament import TournamentReport, verify_tournament_zip
from fairdeal.verifier.tournament.bundle import MAX_EXPORT_BYTES

from .common import checked_key

__all__ = ["ZIP_MAGIC", "is_tournament_json", "player_pins", "read_export_file",
           "tournament_lines", "verify_export"]

#: every zip file starts so (a local file header): how `verify` tells an export from a bundle
ZIP_MAGIC = b"PK\x03\x04"
_MARK = {"pass": "ok  ", "fail": "FAIL", "not-checked": " -- ", "skipped": "skip"}


def read_export_file(path: str) -> bytes:
    """A zip's bytes, at most one byte past the export's limit (the verifier names it)."""
    if path == "-":
        return sys.stdin.buffer.read(MAX_EXPORT_BYTES + 1)
    try:
        with Path(path).open("rb") as stream:
            return stream.read(MAX_EXPORT_BYTES + 1)
    except OSError as e:
        raise click.FileError(path, hint=e.strerror or str(e)) from None


def is_tournament_json(data: bytes) -> bool:
    """A tournament bundle given alone (not its export): verify names what to give instead."""
    return b'"fairdeal.tournament/1"' in data


def player_pins(texts: Sequence[str]) -> list[str]:
    """The ``--player-key`` keys, each checked (a usage error names a bad one)."""
    return [key for key in (checked_key(text, "--player-key") for text in texts)
            if key is not None]


def verify_export(data: bytes, trusted_key: str | None, arbiter_key: str | None,
                  player_keys: Sequence[str], checkpoint: str | None) -> TournamentReport:
    """The report on an export's bytes (keys were checked by the options)."""
    if len(data) > MAX_EXPORT_BYTES:
        report = TournamentReport()
        from fairdeal.verifier.tournament.report import TournamentCheckFailed

        report.failed(TournamentCheckFailed("format", f"the export is larger than the "
                                            f"{MAX_EXPORT_BYTES:,} bytes allowed"))
        return report
    try:
        return verify_tournament_zip(data, trusted_key=trusted_key, arbiter_key=arbiter_key,
                                     player_keys=player_keys, checkpoint=checkpoint)
    except InvalidKey as e:  # the options were checked: a key the verifier refuses later
        raise click.BadParameter(str(e)) from None


def tournament_lines(path: str, report: TournamentReport, verbose: bool) -> Iterator[str]:
    """``OK: FILE`` with what was verified, or ``FAIL: FILE`` and the first failure; with
    verbose, every check and its detail."""
    facts = report.facts
    if report.ok:
        pinned = "" if facts.get("key_pinned") else "; server key not pinned"
        players = counted(len(facts.get("players") or ()), "player")
        yield (f"OK: {path}  (tournament {facts.get('tournament_id')}, {facts.get('system')}"
               f" of {facts.get('game')}, {players}, {facts.get('matches', 0)} matches "
               f"verified, key {facts.get('key_id')}{pinned})")
    else:
        yield f"FAIL: {path}"
        yield f"  {report.failure}"
    if verbose or not report.ok:
        for check in report.checks:
            if verbose or check.status == "fail":
                yield f"  [{_MARK[check.status]}] {check.name}: {check.title}"
                if verbose and check.detail and check.status != "fail":
                    yield f"         {check.detail}"
    if report.ok and verbose:
        for line in facts.get("standings") or ():
            name = (facts.get("players") or {}).get(line["player"], line["player"])
            yield (f"  {line['rank']:>4}. {name} ({line['player']}): {line['score']} "
                   f"half-points, tie-breaks {line['tiebreaks']}")
