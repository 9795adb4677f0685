"""``fairdeal audit``: the fairness audit over bundle files or the ledger's sealed matches.
A thin shell: it gathers the bundles and the filters, fairdeal.audit does the rest."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from .files import write_file
from .main import Context, cli
from .options import bounded_int

__all__ = ["audit"]


def bundle_files(paths: tuple[str, ...]) -> list[Path]:
    """The files named, and every ``*.json`` under the folders named, in a stable order."""
    files: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            files += sorted(p for p in path.rglob("*.json") if p.is_file())
        else:
            files.append(path)
    return files


def _read_files(files: list[Path]) -> Iterator[tuple[str, bytes]]:
    for path in files:
        try:
            yield str(path), path.read_bytes()
        except OSError as e:
            raise click.FileError(str(path), hint=e.strerror or str(e)) from None


def _date_ms(text: str | None, option: str) -> int | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise click.BadParameter(f"expected a date such as 2026-03-01 or 2026-03-01T12:00, "
                                 f"got {text!r}", param_hint=option) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


@cli.command()
@click.argument("sources", nargs=-1, type=click.Path(exists=True))
@click.option("--game", help="Only this game's matches.")
@click.option("--board", "--battlefield", "board",
              help="Only this battlefield (two-tower duel) or board (Toy Battle), by id or name.")
@click.option("--deck", type=click.Choice(["normal", "infinite"]), help="Only this deck type.")
@click.option("--since", help="Only matches created on or after this date (UTC).")
@click.option("--until", help="Only matches created before this date (UTC).")
@click.option("--player", help="Only matches with this player name at a seat.")
@click.option("--workers", type=bounded_int(1, 256), default=1, show_default=True,
              help="Worker processes on this machine.")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run on the Dask scheduler at ADDRESS (needs fairdeal[dask]).")
@click.option("--json", "as_json", is_flag=True, help="The report as JSON.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, writable=True),
              help="Also write a self-contained HTML report with plots to this file.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.option("-v", "--verbose", is_flag=True, help="Every test's detail, not only failures'.")
@click.pass_obj
def audit(obj: Context, sources: tuple[str, ...], game: str | None, board: str | None,
          deck: str | None, since: str | None, until: str | None, player: str | None,
          workers: int, dask_address: str | None, as_json: bool, html_file: str | None,
          quiet: bool, verbose: bool) -> None:
    """Test many matches' deals for fairness: card by position, seat and player balance,
    the server seeds, and (from the ledger) matches created and never sealed.

    SOURCES are bundle files or folders of them; without any, the ledger's sealed matches
    (--data-dir / --database-url) are audited, page by page. Every bundle is verified first;
    one that fails is listed with its reason and left out of the statistics.

    Exit status 0 when every test passes and every bundle verifies, 1 otherwise, 2 for a
    usage error.
    """
    from fairdeal.audit import Filters, audit_bundles
    from fairdeal.audit.report import build_report

    filters = Filters(game=game.lower() if game else None, board=board, deck=deck,
                      since=_date_ms(since, "--since"), until=_date_ms(until, "--until"),
                      player=player)
    try:
        filters.check()
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    if workers > 1 and dask_address:
        raise click.UsageError("--workers and --dask exclude each other")
    ledger = None
    if sources:
        files = bundle_files(sources)
        items: Any = _read_files(files)
        total: int | None = len(files)
        where = f"{len(files)} bundle file(s)"
    else:
        from .service import _ledger

        ledger = _ledger(obj)
        items = ledger.sealed_bundles()
        total = ledger.store.count_matches(game=filters.game, status=("ended", "imported"))
        where = f"the ledger at {obj.database_url or obj.data_dir}"
    show = not quiet and sys.stderr.isatty()
    with click.progressbar(length=total, label="auditing", file=sys.stderr,
                           hidden=not show) as bar:
        try:
            tally = audit_bundles(items, filters, workers=workers, dask_address=dask_address,
                                  progress=bar.update)
        except ValueError as e:
            raise click.ClickException(str(e)) from None
        except OSError as e:
            raise click.ClickException(f"cannot reach the Dask scheduler {dask_address}: "
                                       f"{e}") from None
    if ledger is not None:
        for name, (created, unsealed) in ledger.seat_counts().items():
            if filters.player in (None, name):
                tally.count_unsealed(name, created, unsealed)
    report = build_report(tally, filters, where)
    if html_file:
        from fairdeal.audit.html import render_html

        write_file(html_file, render_html(report))
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for line in report.text_lines(verbose):
            click.echo(line)
    if tally.matches == 0 and not tally.failures:
        click.echo("nothing to audit: no bundle passed the filters", err=True)
    sys.exit(1 if report.exit_code or tally.failures else 0)
