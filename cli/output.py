"""Rendering for the terminal: tables of rules data and verification verdicts."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import click

from fairdeal.games import RulesError, get_game
from fairdeal.verifier.report import Report

#: a column with a cell longer than this is prose, wrapped to fit; never narrower than MIN_WRAP
PROSE = 30
MIN_WRAP = 20
_MARK = {"pass": "ok  ", "fail": "FAIL", "not-checked": " -- ", "skipped": "skip"}
#: the colour of each verdict word on a terminal
_COLOURS = {"OK": "green", "ok": "green", "PASS": "green", "FAIL": "red", "ALARM": "red",
            "REFUSED": "red", "SKIP": "yellow", "skip": "yellow"}
#: a verdict word that opens a line (``OK: file``, ``PASS  test``, ``  FAIL: file``) or a
#: check's mark (``  [FAIL] moves: …``)
_VERDICT = re.compile(r"^(\s*\[?)(OK|ok|PASS|FAIL|ALARM|REFUSED|SKIP|skip)(?=[:\s\]])")


def use_colour(stream: Any = None) -> bool:
    """Colour on a terminal only: never when ``NO_COLOR`` is set (no-color.org), always when
    ``FORCE_COLOR`` is (a CI log that shows colours), else only when ``stream`` (default
    standard output) is a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    stream = sys.stdout if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)())


def say(line: str, colour: bool | None = None) -> None:
    """Print one line of output, its opening verdict word (OK, FAIL, PASS, SKIP, ALARM) in
    colour when ``use_colour()`` says so (or ``colour``)."""
    if colour is None:
        colour = use_colour()
    if colour:
        line = _VERDICT.sub(lambda m: m.group(1) + click.style(m.group(2),
                                                               fg=_COLOURS[m.group(2)],
                                                               bold=True), line, count=1)
    click.echo(line, color=colour)


def _cell(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if value is None:
        return ""
    return str(value)


def print_records(records: Sequence[dict[str, Any]], width: int | None = None) -> None:
    """Print flat records as an aligned table, one row each, within ``width`` columns (default:
    the terminal's). Prose columns (a card's effect, a troop's note: cells over PROSE
    characters) share the room the other columns leave, at least MIN_WRAP each, and wrap at
    word boundaries: nothing is cut. A terminal narrower than the other columns gets lines
    longer than it is rather than a table that hides text."""
    columns = list(records[0])
    rows = [[_cell(record.get(column)) for column in columns] for record in records]
    widths = [max(len(column), *(len(row[i]) for row in rows)) for i, column in enumerate(columns)]
    if width is None:
        width = shutil.get_terminal_size().columns
    prose = [i for i, w in enumerate(widths) if w > PROSE]
    fixed = sum(w for i, w in enumerate(widths) if i not in prose) + 2 * (len(columns) - 1)
    # water-filling: a prose column narrower than its share keeps its width, and leaves the
    # rest to the wider ones
    room = width - fixed
    for count, i in enumerate(sorted(prose, key=lambda i: widths[i])):
        share = max(MIN_WRAP, room // (len(prose) - count))
        widths[i] = min(widths[i], share)
        room -= widths[i]
    for row in [columns, ["-" * w for w in widths], *rows]:
        wrapped = [textwrap.wrap(cell, w, break_on_hyphens=False) or [""]
                   for cell, w in zip(row, widths, strict=True)]
        for number in range(max(len(lines) for lines in wrapped)):
            cells = (lines[number] if number < len(lines) else "" for lines in wrapped)
            padded = (cell.ljust(w) for cell, w in zip(cells, widths, strict=True))
            click.echo("  ".join(padded).rstrip())


def report_lines(path: str, report: Report, verbose: bool) -> Iterator[str]:
    """``OK: FILE`` or ``FAIL: FILE`` and, for a failure, the diagnosis; with verbose, every
    check."""
    facts = report.facts
    if report.ok:
        pinned = "" if facts.get("key_pinned") else "; server key not pinned"
        seats = facts.get("seat_keys_pinned") or []
        sources = facts.get("pin_sources") or {}
        if seats and sources:
            pinned += "; " + _pin_words(seats, sources)
        elif seats:
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
    sources = facts.get("pin_sources") or {}
    if sources and (verbose or not report.ok):
        # where each pinned key came from: a re-keyed seat's failure names the pin it broke
        yield "  pins: " + "; ".join(f"seat {seat} {source}" for seat, source in sources.items())
    if verbose or not report.ok:
        for check in report.checks:
            if verbose or check.status == "fail":
                yield f"  [{_MARK[check.status]}] {check.name}: {check.title}"
                if verbose and check.detail and check.status != "fail":
                    yield f"         {check.detail}"


def _pin_words(seats: Sequence[str], sources: Mapping[str, str]) -> str:
    """``seat keys A, B pinned from the receipts file`` or, with pins of two origins, ``seat
    key A pinned by --seat-key, B pinned from the receipts file``."""
    origins = {sources.get(seat, "pinned") for seat in seats}
    if len(origins) == 1:
        return f"seat key{'s' if len(seats) > 1 else ''} {', '.join(seats)} {origins.pop()}"
    return "seat key " + ", ".join(f"{seat} {sources.get(seat, 'pinned')}" for seat in seats)


def _result(report: Report) -> str:
    for check in report.checks:
        if check.name == "result":
            return check.detail
    return "no result"


def outcome_words(game_name: str, result: Mapping[str, Any] | None,
                  players: Sequence[str] = ()) -> str:
    """A match's result as ``verify`` says it, for every command: ``seat A (alice) won
    (tower-destroyed)``, ``draw (turn-limit)``, or ``-`` while the match is in play.

    >>> outcome_words("no-such-game", {"winner": 1, "reason": "medals"}, ["ann", "bo"])
    'seat 1 (bo) won (medals)'
    """
    if not result:
        return "-"
    reason = result.get("reason", "?")
    winner = result.get("winner")
    if winner is None:
        return f"draw ({reason})"
    try:
        name = f"seat {get_game(game_name).seat_names[winner]}"
    except (RulesError, IndexError, TypeError):
        name = f"seat {winner}"  # a game this install does not know: the index is all we have
    if isinstance(winner, int) and 0 <= winner < len(players):
        name += f" ({players[winner]})"
    return f"{name} won ({reason})"
