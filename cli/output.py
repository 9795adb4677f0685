"""Rendering for the terminal: tables of rules data and verification verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import click

from fairdeal.verifier.report import Report

_MARK = {"pass": "ok  ", "fail": "FAIL", "not-checked": " -- ", "skipped": "skip"}


def _cell(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if value is None:
        return ""
    return str(value)


def print_records(records: Sequence[dict[str, Any]], widest: int = 60) -> None:
    """Print flat records as an aligned table, one row each."""
    columns = list(records[0])
    rows = [[_cell(record.get(column))[:widest] for column in columns] for record in records]
    widths = [max(len(column), *(len(row[i]) for row in rows)) for i, column in enumerate(columns)]
    for row in [columns, ["-" * width for width in widths], *rows]:
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        click.echo("  ".join(cells).rstrip())


def report_lines(path: str, report: Report, verbose: bool) -> Iterator[str]:
    """``OK: FILE`` or ``FAIL: FILE`` and, for a failure, the diagnosis; with verbose, every
    check."""
    facts = report.facts
    if report.ok:
        pinned = "" if facts.get("key_pinned") else "; server key not pinned"
        seats = facts.get("seat_keys_pinned") or []
        if seats:
            pinned += f"; seat key{'s' if len(seats) > 1 else ''} {', '.join(seats)} pinned"
        receipts = (facts.get("receipts") or {}).get("checked")
        if receipts:
            pinned += f"; {receipts} receipt{'s' if receipts > 1 else ''} match"
        yield f"OK: {path}  ({facts.get('game')}, {facts.get('events')} events, " \
              f"{_result(report)}, key {facts.get('key_id')}{pinned})"
    else:
        yield f"FAIL: {path}"
        yield f"  {report.failure}"
    influence = facts.get("deal_influence")
    if influence:
        yield f"  deal: {influence['text']}"
    if verbose or not report.ok:
        for check in report.checks:
            if verbose or check.status == "fail":
                yield f"  [{_MARK[check.status]}] {check.name}: {check.title}"
                if verbose and check.detail and check.status != "fail":
                    yield f"         {check.detail}"


def _result(report: Report) -> str:
    for check in report.checks:
        if check.name == "result":
            return check.detail
    return "no result"
