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

from fairdeal.verifier.report import counted

from .common import checked_key, open_ledger
from .files import write_file
from .group import Context, cli
from .options import bounded_int
from .output import say, use_colour

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
              help="Only this board or battlefield (a game's board parameter), by id or name.")
@click.option("--deck", type=click.Choice(["normal", "infinite"]), help="Only this deck type.")
@click.option("--since", help="Only matches created on or after this date (UTC).")
@click.option("--until", help="Only matches created before this date (UTC).")
@click.option("--player", help="Only matches with this player name at a seat (a name is free "
                               "text: --seat-key names a player nobody else can be).")
@click.option("--seat-key", "seat_key",
              help="Only matches this seat key signed: its key id (from the ledger, the start "
                   "of one will do) or its public key ed25519:HEX. The per-player tests name "
                   "players by key, with their names as labels.")
@click.option("--workers", type=bounded_int(1, 256), default=1, show_default=True,
              help="Worker processes on this machine.")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run on the Dask scheduler at ADDRESS (needs fairdeal[dask]).")
@click.option("--trusted-key", "trusted_keys", multiple=True, metavar="ed25519:HEX",
              help="Count the matches sealed under this key (repeatable); bundles sealed "
                   "under any other key are listed apart, by key. Without it, bundle files "
                   "are grouped by the key that sealed them, each key audited on its own; "
                   "the ledger counts only its own key's matches.")
@click.option("--include-imported", is_flag=True,
              help="Also audit the matches sealed under other keys (imported into the "
                   "ledger, or not pinned with --trusted-key), each key on its own, never "
                   "mixed into the figures of the key(s) audited.")
@click.option("--json", "as_json", is_flag=True, help="The report as JSON.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, writable=True),
              help="Also write a self-contained HTML report with plots to this file.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.option("-v", "--verbose", is_flag=True, help="Every test's detail, not only failures'.")
@click.option("--allow-empty", is_flag=True,
              help="Exit 0 when no match passed the filters (default: exit 1, so that a job "
                   "auditing no data does not pass).")
@click.pass_obj
def audit(obj: Context, sources: tuple[str, ...], game: str | None, board: str | None,
          deck: str | None, since: str | None, until: str | None, player: str | None,
          seat_key: str | None, workers: int, dask_address: str | None,
          trusted_keys: tuple[str, ...], include_imported: bool, as_json: bool,
          html_file: str | None, quiet: bool, verbose: bool,
          allow_empty: bool = False) -> None:
    """Test many matches' deals for fairness: card by position, seat and player balance,
    the server seeds, and (from the ledger) matches created and never sealed.

    SOURCES are bundle files or folders of them; without any, the ledger's sealed matches
    (--data-dir / --database-url) are audited, page by page. Every bundle is verified first;
    one that fails is listed with its reason and left out of the statistics.

    Only the matches of one signer are counted together: from the ledger, those sealed under
    its own key (imported ones are listed apart, by key); from files, those sealed under the
    --trusted-key keys, or without one, each key's bundles on their own. The report's first
    line says whose matches it audited.

    Exit status 0 when every test passes and every bundle verifies, 1 otherwise (and when
    nothing passed the filters, unless --allow-empty), 2 for a usage error.
    """
    pinned = tuple(dict.fromkeys(str(checked_key(key, "--trusted-key")) for key in trusted_keys))
    ledger = None
    if not sources:
        ledger = open_ledger(obj)
    own = ledger.server_key.public_text if ledger is not None else None
    filters = _filters(game, board, deck, since, until, player,
                       frozenset(pinned) | ({own} if own else set()), include_imported,
                       _seat_key(ledger, seat_key))
    if workers > 1 and dask_address:
        raise click.UsageError("--workers and --dask exclude each other")
    tally, where = _tally(obj, ledger, sources, filters, workers, dask_address, quiet)
    report = _report(tally, filters, where, own, pinned, include_imported)
    if html_file:
        from fairdeal.audit.html import render_html

        write_file(html_file, render_html(report))
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        colour = use_colour()
        for line in report.text_lines(verbose):
            say(line, colour)
    empty = not (tally.matches or tally.failures or tally.apart or tally.by_key)
    if empty:
        click.echo("nothing to audit: no bundle passed the filters"
                   + ("" if allow_empty else " (exit 1; --allow-empty to exit 0)"), err=True)
    sys.exit(1 if report.exit_code or report.bundle_failures or (empty and not allow_empty)
             else 0)


def _seat_key(ledger: Any, text: str | None) -> str | None:
    """The full key id ``--seat-key`` names: resolved by the ledger (a prefix will do), or
    from files a whole key id or public key."""
    if text is None:
        return None
    from fairdeal.ledger.errors import BadRequest, KeyNotFound
    from fairdeal.ledger.players import normal_key_id

    try:
        if ledger is not None:
            return str(ledger.resolve_key(text))
        kid = normal_key_id(text)
    except KeyNotFound as e:
        raise click.ClickException(str(e)) from None
    except BadRequest as e:
        raise click.BadParameter(str(e), param_hint="--seat-key") from None
    if len(kid) != 16:
        raise click.BadParameter("auditing files, give the whole key id (16 hex digits) or "
                                 "the public key: a prefix is resolved by a ledger only",
                                 param_hint="--seat-key")
    return kid


def _filters(game: str | None, board: str | None, deck: str | None, since: str | None,
             until: str | None, player: str | None, signers: frozenset[str],
             include_imported: bool, seat_key: str | None = None) -> Any:
    """The audit's filters from the options, checked (a usage error names the bad one)."""
    from fairdeal.audit import Filters

    filters = Filters(game=game.lower() if game else None, board=board, deck=deck,
                      since=_date_ms(since, "--since"), until=_date_ms(until, "--until"),
                      player=player, seat_key=seat_key, signers=signers,
                      # unpinned files: every key is another's, so each is tallied on its own
                      each_key=include_imported or not signers)
    try:
        filters.check()
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    return filters


def _tally(obj: Context, ledger: Any, sources: tuple[str, ...], filters: Any, workers: int,
           dask_address: str | None, quiet: bool) -> tuple[Any, str]:
    """The tally of the bundle files named, or of the ledger's sealed matches (with the seats'
    matches created and never sealed), behind a progress bar; and where they came from."""
    from fairdeal.audit import audit_bundles

    if ledger is None:
        files = bundle_files(sources)
        items: Any = _read_files(files)
        total: int | None = len(files)
        where = counted(len(files), "bundle file")
    else:
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
        from fairdeal.audit import add_ledger_counts

        add_ledger_counts(tally, ledger.player_counts(), filters)
    return tally, where


def _report(tally: Any, filters: Any, where: str, own: str | None, pinned: tuple[str, ...],
            include_imported: bool) -> Any:
    """The report, headed by whose matches it counted; the other keys' come after it."""
    from fairdeal.audit.report import build_report, signer_words

    if own is not None:  # the ledger: its own key, and the keys pinned beside it
        whose = "; ".join([signer_words(own, this_server=True),
                           *(signer_words(key, note=" (trusted)") for key in pinned
                             if key != own)])
        return build_report(
            tally, filters, where, whose,
            lambda key: signer_words(key, note=" (imported: not this server's key; tallied "
                                               "on its own)"),
            "add --include-imported to audit each of these keys on its own")
    if pinned:
        whose = "; ".join(signer_words(key, note=" (trusted)") for key in pinned)
        return build_report(tally, filters, where, whose,
                            lambda key: signer_words(key, note=" (not trusted: tallied on "
                                                               "its own)"),
                            "pin a key with --trusted-key, or add --include-imported to audit "
                            "each of these keys on its own")
    # no key pinned: each signer's bundles are audited on their own, never pooled
    note = " (not pinned: pass --trusted-key to pin it)"
    if not tally.by_key:  # nothing well-formed passed the filters: there is no key to name
        return build_report(tally, filters, where, "the bundles given (none is a well-formed "
                                                   "bundle that passed the filters)")
    if len(tally.by_key) == 1 and tally.matches == 0:  # the usual case: one key throughout
        (key, alone), = tally.by_key.items()
        alone.failures[:0] = tally.failures
        alone.skipped += tally.skipped
        return build_report(alone, filters, where, signer_words(key, note=note))
    whose = (f"bundles sealed by {len(tally.by_key)} different keys, none pinned with "
             "--trusted-key: each key's matches are audited on their own, below")
    tally.apart.clear()  # every key has its own report below: no separate list
    return build_report(tally, filters, where, whose, lambda key: signer_words(key, note=note))
