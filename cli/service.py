"""The ledger's commands: ``serve``, ``matches``, ``export``, ``import``, ``keys show`` and
``play``. Thin: each opens the ledger of the group's data folder (or ``--database-url``) and
calls one library function."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .main import Context, _game_choice, checked_key, cli


def _ledger(obj: Context) -> Any:
    from sqlalchemy.exc import SQLAlchemyError

    from fairdeal.ledger.service import Ledger

    try:
        return Ledger.open(obj.data_dir, obj.database_url)
    except (SQLAlchemyError, ValueError, OSError) as e:
        where = obj.database_url or str(obj.data_dir)
        raise click.ClickException(f"cannot open the ledger at {where}: "
                                   f"{type(e).__name__}: {str(e).splitlines()[0]}") from None


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@click.option("--debug", is_flag=True, help="Flask's debugger (never on a public interface).")
@click.pass_obj
def serve(obj: Context, host: str, port: int, debug: bool) -> None:
    """Run the API and the viewer with Flask's server, for local use.

    In production run gunicorn instead, for example:

    \b
    FAIRDEAL_DATA_DIR=/srv/fairdeal \\
      gunicorn -w 4 --threads 2 -b 0.0.0.0:8000 'fairdeal.web.app:create_app()'
    """
    from fairdeal.web.app import create_app

    app = create_app({"FAIRDEAL_LEDGER": _ledger(obj)})
    click.echo(f"fairdeal ledger on http://{host}:{port}/ (API under /api/v1)", err=True)
    app.run(host=host, port=port, debug=debug, threaded=True, use_reloader=False)


@cli.command()
@click.option("--game", type=_game_choice(), default=None, help="Only this game's matches.")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0)
@click.option("--json", "as_json", is_flag=True, help="As JSON.")
@click.pass_obj
def matches(obj: Context, game: str | None, limit: int, offset: int, as_json: bool) -> None:
    """List the ledger's matches, newest first."""
    found = _ledger(obj).list_matches(limit, offset, game=game)
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    if not found:
        click.echo("no matches")
    for match in found:
        result = match["result"]
        if result is None:
            outcome = "-"
        elif result["winner"] is None:
            outcome = f"draw ({result['reason']})"
        else:
            outcome = f"seat {result['winner']} won ({result['reason']})"
        mark = "verified" if match["verified"] else "-"
        signed_by = match.get("signed_by")
        if signed_by and not signed_by["this_server"]:  # never "verified": not our key
            mark = f"signed by another server ({signed_by['key_id']})"
        click.echo(f"{match['id']}  {match['game']:<10} {match['status']:<8} "
                   f"{match['events']:>5} events  {mark:<8}  {outcome}")


@cli.command()
@click.argument("match_id")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write the bundle here (default: standard output).")
@click.pass_obj
def export(obj: Context, match_id: str, output: str) -> None:
    """Write a sealed match's bundle (verify it with `fairdeal verify`)."""
    from fairdeal.ledger.errors import MatchNotFound

    try:
        data = _ledger(obj).bundle_bytes(match_id)
    except MatchNotFound as e:
        raise click.ClickException(str(e)) from None
    if data is None:
        raise click.ClickException(f"match {match_id} is not over yet: its bundle is sealed "
                                   "at the end")
    if output == "-":
        click.echo(data.decode("utf-8"))
        return
    try:
        Path(output).write_bytes(data + b"\n")
    except OSError as e:
        raise click.FileError(output, hint=e.strerror or str(e)) from None
    click.echo(f"{output}: match {match_id}, sealed bundle written", err=True)


@cli.command(name="import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.pass_obj
def import_(obj: Context, files: tuple[str, ...]) -> None:
    """Verify bundles and store the ones that pass, read-only. Exit 1 if any is refused."""
    from fairdeal.ledger.errors import ConflictError

    ledger = _ledger(obj)
    refused = 0
    for path in files:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise click.FileError(path, hint=e.strerror or str(e)) from None
        try:
            match_id, report = ledger.import_bundle(data)
        except ConflictError as e:
            click.echo(f"REFUSED: {path}: {e}")
            refused += 1
            continue
        if match_id is None:
            click.echo(f"REFUSED: {path}: {report.failure}")
            refused += 1
        else:
            click.echo(f"imported: {path} as match {match_id}")
    if refused:
        raise SystemExit(1)


@cli.group()
def keys() -> None:
    """The server's signing key."""


@keys.command(name="show")
@click.pass_obj
def keys_show(obj: Context) -> None:
    """Print the server's public key; the last line is what `verify --trusted-key` takes."""
    from fairdeal.ledger.keys import KEY_FILE, load_or_create_server_key

    try:
        key = load_or_create_server_key(obj.data_dir)
    except (OSError, ValueError) as e:
        raise click.ClickException(f"cannot read the server key in {obj.data_dir}: {e}") from None
    click.echo(f"key file: {Path(obj.data_dir) / KEY_FILE}")
    click.echo(f"key id:   {key.key_id}")
    click.echo(key.public_text)


@cli.command()
@click.option("--server", default="http://127.0.0.1:5000", show_default=True,
              help="The server's base URL.")
@click.option("--game", type=_game_choice(), required=True)
@click.option("-n", "count", type=click.IntRange(1, 1_000_000), default=1, show_default=True,
              help="How many matches.")
@click.option("-c", "--concurrency", type=click.IntRange(1, 256), default=1, show_default=True,
              help="How many matches at once.")
@click.option("--seed", type=int, default=None, help="Seed the bots' choices.")
@click.option("--turn-limit", type=click.IntRange(1, 86_400), default=60, show_default=True,
              help="Seconds per action.")
@click.option("--signed", is_flag=True,
              help="Seats register keys and sign their seeds and moves.")
@click.option("--pace", type=click.FloatRange(0, 3_600), default=0.0, show_default=True,
              help="Seconds each bot thinks before a move, so people can watch live.")
@click.option("--trusted-key", default=None, metavar="ed25519:HEX",
              help="The server key the receipts must be signed by (default: what the server "
                   "says at /keys).")
@click.option("--receipts", "receipts_dir", default=None, type=click.Path(file_okay=False),
              help="Keep each match's receipts and seat keys in DIR/<match id>.receipts.json "
                   "(for `fairdeal verify --receipts`).")
def play(server: str, game: str, count: int, concurrency: int, seed: int | None,
         turn_limit: int, signed: bool, pace: float, trusted_key: str | None,
         receipts_dir: str | None) -> None:
    """Bots play live matches against a running server through the API.

    Each bot checks every answer's signed receipt against what it sent, and at the end
    verifies the sealed bundle with the server key, its own keys pinned and its receipts: a
    server that changed anything is reported (exit 1)."""
    from fairdeal.ledger.client import ApiClient, ApiError, TamperDetected, play_matches

    trusted_key = checked_key(trusted_key, "--trusted-key")
    folder = Path(receipts_dir) if receipts_dir else None
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise click.BadParameter(f"cannot create {folder}: {e.strerror}",
                                     param_hint="--receipts") from None

    if pace >= turn_limit:
        raise click.BadParameter(f"a bot thinking {pace} s would run out of its {turn_limit} s "
                                 "turn limit", param_hint="--pace")
    try:
        ApiClient(server)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--server") from None
    try:
        for item in play_matches(server, game.lower(), count, concurrency=concurrency,
                                 seed=seed, turn_limit_ms=turn_limit * 1000, signed=signed,
                                 pace=pace, server_key=trusted_key):
            if "stats" in item:
                stats = item["stats"]
                click.echo(f"{stats.matches} matches, {stats.moves} moves in "
                           f"{stats.seconds:.2f} s: {stats.moves_per_second:.0f} moves/s "
                           f"({stats.conflicts} conflicts)")
                continue
            result = item["result"] or {}
            if folder is not None:
                path = folder / f"{item['id']}.receipts.json"
                path.write_text(json.dumps(item["receipts"], indent=1) + "\n")
            click.echo(f"{item['id']}  {item['moves']} moves  winner {result.get('winner')} "
                       f"({result.get('reason')})")
    except TamperDetected as e:
        raise click.ClickException(f"the server cheated: {e}") from None
    except ApiError as e:
        raise click.ClickException(f"the server refused: {e}") from None
    except OSError as e:
        raise click.ClickException(f"cannot reach {server}: {e}") from None
    except (KeyError, TypeError, IndexError) as e:
        raise click.ClickException(f"{server} does not answer like a fairdeal server "
                                   f"(unexpected answer: {type(e).__name__} {e})") from None
