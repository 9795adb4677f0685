"""The ledger's commands: ``serve``, ``matches``, ``export``, ``import``, ``keys show`` and
``play``. Thin: each opens the ledger of the group's data folder (or ``--database-url``) and
calls one library function."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import click

from fairdeal.games import get_game
from fairdeal.verifier.report import counted

from .common import checked_key, game_choice, open_ledger, server_key_of
from .files import make_folder, write_file
from .group import Context, cli
from .options import bounded_float, bounded_int
from .output import outcome_words


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=bounded_int(1, 65535), default=5000, show_default=True,
              envvar="FAIRDEAL_PORT")
@click.option("--debug", is_flag=True, help="Flask's debugger (never on a public interface).")
@click.option("-q", "--quiet", is_flag=True,
              help="No line per request (the access log); errors are still printed.")
@click.pass_obj
def serve(obj: Context, host: str, port: int, debug: bool, quiet: bool) -> None:
    """Run the API and the viewer with Flask's server, for local use.

    In production run granian or gunicorn instead (pip install 'fairdeal[server]'), e.g.:

    \b
    FAIRDEAL_DATA_DIR=/srv/fairdeal \\
      granian --interface wsgi --factory --workers 4 --blocking-threads 40 --port 8000 \\
        'fairdeal.web.app:create_app'
    FAIRDEAL_DATA_DIR=/srv/fairdeal \\
      gunicorn -w 4 --threads 40 -b 0.0.0.0:8000 'fairdeal.web.app:create_app()'

    Each open live stream holds a thread (docs/ledger.md, "Live streams").
    """
    from fairdeal.web.app import create_app

    app = create_app({"FAIRDEAL_LEDGER": open_ledger(obj)})
    if quiet:
        # werkzeug logs each request at INFO and failures at WARNING or above
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    click.echo(f"fairdeal ledger on http://{host}:{port}/ (API under /api/v1)", err=True)
    app.run(host=host, port=port, debug=debug, threaded=True, use_reloader=False)


@cli.command()
@click.option("--game", type=game_choice(), default=None, help="Only this game's matches.")
@click.option("--limit", type=bounded_int(1, 500), default=50, show_default=True)
@click.option("--offset", type=bounded_int(0, 10**9), default=0)
@click.option("--json", "as_json", is_flag=True, help="As JSON.")
@click.option("--seat-key", "seat_key", default=None,
              help="Only the matches this seat key signed: its key id (or the start of one, "
                   "4+ hex digits) or its public key; with its names and record.")
@click.option("--cursor", default=None,
              help="With --seat-key: the next page (the 'more:' line of the page before).")
@click.pass_obj
def matches(obj: Context, game: str | None, limit: int, offset: int, as_json: bool,
            seat_key: str | None, cursor: str | None) -> None:
    """List the ledger's matches, newest first (--seat-key: one player's, by the key it
    signs with)."""
    if seat_key is not None:
        if game is not None or offset:
            raise click.UsageError("--seat-key lists all of a key's matches: page them with "
                                   "--cursor, not --offset or --game")
        from .players import print_key_matches

        print_key_matches(open_ledger(obj), seat_key, limit, cursor, as_json)
        return
    if cursor is not None:
        raise click.UsageError("--cursor pages a --seat-key listing; use --offset here")
    found = open_ledger(obj).list_matches(limit, offset, game=game)
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    if not found:
        click.echo("no matches")
    for match in found:
        outcome = outcome_words(match["game"], match["result"], match.get("seats") or ())
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
@click.option("--log-size", type=bounded_int(0), default=None,
              help="Prove the match against the log checkpoint signed at this tree size "
                   "(default: the latest).")
@click.pass_obj
def export(obj: Context, match_id: str, output: str, log_size: int | None) -> None:
    """Write a sealed match's bundle, with its log proofs (verify it with `fairdeal verify`)."""
    from fairdeal.ledger.errors import BadRequest, MatchNotFound

    try:
        data = open_ledger(obj).bundle_bytes(match_id, log_size)
    except (MatchNotFound, BadRequest) as e:
        raise click.ClickException(str(e)) from None
    if data is None:
        raise click.ClickException(f"match {match_id} is not over yet: its bundle is sealed "
                                   "at the end")
    if output == "-":
        click.echo(data.decode("utf-8"))
        return
    write_file(output, data + b"\n")
    click.echo(f"{output}: match {match_id}, sealed bundle written", err=True)


@cli.command(name="import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.pass_obj
def import_(obj: Context, files: tuple[str, ...]) -> None:
    """Verify bundles and store the ones that pass, read-only. Exit 1 if any is refused."""
    from fairdeal.ledger.errors import ConflictError

    ledger = open_ledger(obj)
    refused = 0
    for path in files:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise click.FileError(path, hint=e.strerror or str(e)) from None
        stored_before = _stored_id(ledger, data)
        try:
            match_id, report = ledger.import_bundle(data)
        except ConflictError as e:
            click.echo(f"REFUSED: {path}: {e}")
            refused += 1
            continue
        if match_id is None:
            click.echo(f"REFUSED: {path}: {report.failure}")
            refused += 1
        elif match_id == stored_before:
            click.echo(f"already stored: {path} is match {match_id}, unchanged")
        else:
            click.echo(f"imported: {path} as match {match_id}")
    if refused:
        raise SystemExit(1)


def _wait_for(server: str, seconds: float = 10.0) -> None:
    """Give a server started a moment ago (``fairdeal serve &``) a few seconds to listen; if it
    never does, play's own first request reports that it cannot reach it."""
    from fairdeal.client import ApiClient

    ApiClient(server, timeout=2).wait_until_up(seconds, interval=0.2)


class PlayProgress:
    """click's progress bar over the matches, on standard error and only on a terminal; the
    lines printed meanwhile clear it first, so the two never share a line."""

    def __init__(self, count: int, shown: bool | None = None) -> None:
        self.bar = click.progressbar(length=count, label="matches", file=sys.stderr,
                                     show_pos=True)
        self.shown = sys.stderr.isatty() if shown is None else shown

    def __enter__(self) -> PlayProgress:
        if self.shown:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            self.bar.__exit__(None, None, None)

    def echo(self, line: str | None) -> None:
        if line is None:
            return
        if self.shown:
            click.echo("\r\033[K", file=sys.stderr, nl=False)
        click.echo(line)
        if self.shown:
            self.bar.render_progress()

    def advance(self) -> None:
        if self.shown:
            self.bar.update(1)


def _keep_receipts(folder: Path, item: dict[str, Any]) -> None:
    """Write a match's receipts to FOLDER/<match id>.receipts.json — always inside FOLDER: the
    id is the server's word, so it is checked again here (play_match checked it before using
    it in any request) and the path it makes must be a file directly in the folder."""
    from fairdeal.client import TamperDetected, checked_match_id

    match_id = checked_match_id(item["id"])
    path = folder / f"{match_id}.receipts.json"
    if path.resolve().parent != folder.resolve():
        raise TamperDetected(f"the match id {match_id!r} would put its receipts outside "
                             f"{folder}")
    write_file(path, json.dumps(item["receipts"], indent=1) + "\n")


def play_line(item: dict[str, Any], game: str, site: str) -> str | None:
    """The line ``play`` prints for one thing that happened (None: nothing to say)."""
    if "stats" in item:
        stats = item["stats"]
        return (f"{counted(stats.matches, 'match', 'matches')}, {counted(stats.moves, 'move')} "
                f"in {stats.seconds:.2f} s: {stats.moves_per_second:.0f} moves/s "
                f"({counted(stats.conflicts, 'conflict')}); move "
                f"latency p50 {stats.latency_ms(0.5):.1f} ms, p99 {stats.latency_ms(0.99):.1f} ms")
    if "started" in item:
        match = item["started"]
        return (f"started: {match['id']}  {get_game(game).title}: {' vs '.join(match['seats'])}"
                f"  {site}/m/{match['id']}")
    if "move" in item:
        move = item["move"]
        seat_names = get_game(game).seat_names
        words = move["caption"] or json.dumps(move["action"], separators=(",", ":"))
        return f"  {move['id']} #{move['seq']} seat {seat_names[move['seat']]}: {words}"
    if "result" in item:
        outcome = outcome_words(game, item["result"], item.get("seats") or ())
        line = (f"ended:   {item['id']}  {counted(item['moves'], 'move')}, {outcome}  "
                f"{site}/m/{item['id']}")
        keys = item.get("seat_keys") or []
        if keys:  # what `verify --seat-key` takes, as `simulate --signed` prints it
            seat_names = get_game(game).seat_names
            line += "\n  seat keys: " + " ".join(f"{seat_names[seat]}={key}"
                                                 for seat, key in enumerate(keys))
        return line
    return None


def _stored_id(ledger: Any, data: bytes) -> str | None:
    """The bundle's match id when the ledger holds a match under it already (else None)."""
    from fairdeal.ledger.errors import MatchNotFound
    from fairdeal.verifier.bundle import Bundle, InvalidBundle

    try:
        match_id = Bundle.from_bytes(data).match_id
        ledger.get_match(match_id)
    except (InvalidBundle, MatchNotFound):
        return None
    return match_id


@cli.group()
def keys() -> None:
    """The server's signing key."""


@keys.command(name="show")
@click.pass_obj
def keys_show(obj: Context) -> None:
    """Print the server's public key: its log's signed-note verifier key (what
    `log monitor --log-key` takes), and last the key `verify --trusted-key` takes."""
    import os

    from fairdeal.ledger.keys import KEY_FILE
    from fairdeal.ledger.tlog import default_origin
    from fairdeal.verifier.note import ED25519, NoteError, VerifierKey

    key = server_key_of(obj.data_dir)
    click.echo(f"key file: {Path(obj.data_dir) / KEY_FILE}")
    click.echo(f"key id:   {key.key_id}")
    origin = os.environ.get("FAIRDEAL_LOG_ORIGIN") or default_origin(key.key_id)
    try:
        click.echo(f"log key:  {VerifierKey(origin, ED25519, key.public_raw).text()}")
    except NoteError as e:
        raise click.ClickException(f"FAIRDEAL_LOG_ORIGIN: {e}") from None
    click.echo(key.public_text)


@cli.command()
@click.option("--server", default="http://127.0.0.1:5000", show_default=True,
              envvar="FAIRDEAL_SERVER", help="The server's base URL.")
@click.option("--game", type=game_choice(), default=None,
              help="The game (required, unless the bots enter a --tournament).")
@click.option("--tournament", "tournament_id", default=None, metavar="TOURNAMENT",
              help="Enter -n bots in this tournament and play its matches until it is over.")
@click.option("--keys", "keys_dir", default=None, type=click.Path(file_okay=False),
              help="With --tournament: keep each bot's key and player token in DIR "
                   "(DIR/<bot>.pem, DIR/<bot>.pem.token), so it can dispute later.")
@click.option("--organiser-token-file", type=click.Path(dir_okay=False), default=None,
              help="With --tournament: start it once the bots are registered and pair each "
                   "round when the last is complete (the organiser's token).")
@click.option("-n", "count", type=bounded_int(1, 1_000_000), default=1, show_default=True,
              help="How many matches.")
@click.option("-c", "--concurrency", type=bounded_int(1, 256), default=1, show_default=True,
              help="How many matches at once.")
@click.option("--seed", type=bounded_int(), default=None, help="Seed the bots' choices.")
@click.option("--turn-limit", type=bounded_int(1, 86_400), default=60, show_default=True,
              help="Seconds per action.")
@click.option("--signed", is_flag=True,
              help="Seats register keys and sign their seeds and moves.")
@click.option("--decline-rate", type=bounded_float(0, 1), default=0.2, show_default=True,
              help="How likely a seat declines to add a seed of its own (one in 5). A "
                   "declined or unsigned seed leaves the deal to the others: only --signed "
                   "--decline-rate 0 makes every deal read \"fair unless both players and the "
                   "server colluded\". (Live bots never let a turn run out.)")
@click.option("--duration", type=bounded_float(0, 86_400), default=None,
              help="Start no match after this many seconds (a load run; -n is then a cap).")
@click.option("--pace", type=bounded_float(0, 3_600), default=0.0, show_default=True,
              help="Seconds each bot thinks before a move, so people can watch live.")
@click.option("--trusted-key", default=None, metavar="ed25519:HEX",
              help="The server key the receipts must be signed by (default: what the server "
                   "says at /keys).")
@click.option("--receipts", "receipts_dir", default=None, type=click.Path(file_okay=False),
              help="Keep each match's receipts and seat keys in DIR/<match id>.receipts.json "
                   "(for `fairdeal verify --receipts`).")
@click.option("-v", "--verbose", is_flag=True, help="One line per move, as the viewer says it.")
@click.option("--no-progress", is_flag=True,
              help="No progress bar (there is one on standard error only when it is a terminal).")
def play(server: str, game: str | None, count: int, concurrency: int, seed: int | None,
         turn_limit: int, signed: bool, pace: float, trusted_key: str | None,
         receipts_dir: str | None, verbose: bool, no_progress: bool,
         duration: float | None = None, decline_rate: float = 0.2,
         tournament_id: str | None = None, keys_dir: str | None = None,
         organiser_token_file: str | None = None) -> None:
    """Bots play live matches against a running server through the API.

    Each bot checks every answer's signed receipt against what it sent, and at the end
    verifies the sealed bundle with the server key, its own keys pinned and its receipts: a
    server that changed anything is reported (exit 1). One line when each match starts and one
    when it ends, with its link; a progress bar over the matches on standard error when that
    is a terminal. With --tournament, -n bots register (each with a key of its own) and play
    every match the tournament pairs them in, each signed and verified the same way."""
    from fairdeal.client import ApiClient, ApiError, TamperDetected, play_matches

    trusted_key = checked_key(trusted_key, "--trusted-key")
    folder = make_folder(receipts_dir) if receipts_dir else None
    if tournament_id is not None:
        from .tournament_play import play_tournament_command

        return play_tournament_command(
            server, tournament_id, count, seed=seed, pace=pace, trusted_key=trusted_key,
            keys_dir=keys_dir, receipts_dir=receipts_dir, verbose=verbose,
            organiser_token_file=organiser_token_file, game=game)
    if game is None:
        raise click.UsageError("play needs --game GAME (or --tournament TOURNAMENT)")
    if keys_dir or organiser_token_file:
        raise click.UsageError("--keys and --organiser-token-file go with --tournament")

    if pace >= turn_limit:
        raise click.BadParameter(f"a bot thinking {pace} s would run out of its {turn_limit} s "
                                 "turn limit", param_hint="--pace")
    try:
        ApiClient(server)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--server") from None
    game = game.lower()
    site = server.rstrip("/").removesuffix("/api/v1")
    _wait_for(server)
    try:
        with PlayProgress(count, False if no_progress else None) as bar:
            for item in play_matches(server, game, count, concurrency=concurrency,
                                     seed=seed, turn_limit_ms=turn_limit * 1000, signed=signed,
                                     pace=pace, server_key=trusted_key, moves=verbose,
                                     duration=duration, decline_chance=decline_rate):
                if "result" in item and folder is not None:
                    _keep_receipts(folder, item)
                bar.echo(play_line(item, game, site))
                if "result" in item:
                    bar.advance()
    except TamperDetected as e:
        raise click.ClickException(f"the server cheated: {e}") from None
    except ApiError as e:
        raise click.ClickException(f"the server refused: {e}") from None
    except OSError as e:
        raise click.ClickException(f"cannot reach {server}: {e}") from None
    except (KeyError, TypeError, IndexError) as e:
        raise click.ClickException(f"{server} does not answer like a fairdeal server "
                                   f"(unexpected answer: {type(e).__name__} {e})") from None
