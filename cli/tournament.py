"""``fairdeal tournament …``: a tournament's organiser, players and arbiter at the command line,
each a thin shell over fairdeal.client.tournaments talking to a server (``--server``), and
``fairdeal keys new|public`` for their Ed25519 key files.

Every command prints human lines, or the API's answer with ``--json``; a bad argument, an
unreachable server or an API error is one line naming the problem (exit 1, or 2 for usage).
Tokens are kept in files (mode 0600): ``create --token-file`` saves the organiser's,
``register`` the player's (beside its key: ``KEY.token`` unless ``--token-file`` says).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .common import game_choice
from .files import write_file
from .group import cli
from .options import bounded_int
from .service import keys
from .tournament_common import checked_id, key_of, public_key_of, talking_to, token_of
from .tournament_output import (
    created_lines,
    decision_of,
    latest_match_of,
    open_dispute,
    print_list,
    print_status,
)

__all__ = ["tournament"]

SERVER_OPTION = click.option("--server", default="http://127.0.0.1:5000", show_default=True,
                             envvar="FAIRDEAL_SERVER", help="The server's base URL.")
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="The API's answer as JSON.")
TOKEN_FILE = click.option("--token-file", type=click.Path(dir_okay=False), default=None,
                          help="The file holding the token (as create/register saved it).")
SYSTEMS = ("swiss", "round-robin")
TIEBREAKS = ("buchholz", "median-buchholz", "sonneborn-berger", "direct-encounter", "wins")


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


@keys.command(name="new")
@click.argument("key_file", type=click.Path(dir_okay=False))
def keys_new(key_file: str) -> None:
    """Make an Ed25519 key file (PEM, mode 0600) for a player or an arbiter and print its
    public key; an existing file is never overwritten."""
    from fairdeal.client.tournaments import KeyFileError, create_key_file

    try:
        key = create_key_file(Path(key_file))
    except KeyFileError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"key id {key.key_id} written to {key_file}", err=True)
    click.echo(key.public_text)


@keys.command(name="public")
@click.argument("key_files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def keys_public(key_files: tuple[str, ...]) -> None:
    """Print the public key (ed25519:HEX) of each key file, one a line (what `verify
    --player-key` and `--arbiter-key` take)."""
    for key_file in key_files:
        click.echo(key_of(key_file).public_text)


@cli.group()
def tournament() -> None:
    """Tournaments whose pairings, results, standings and rulings anyone can verify
    (docs/tournaments.md)."""


def _params(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--param KEY=VALUE`` (VALUE JSON, else text; KEY may be dotted) as a params object."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--param")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        *groups, last = key.strip().split(".")
        target = params
        for group in groups:
            target = target.setdefault(group, {})
            if not isinstance(target, dict):
                raise click.BadParameter(f"{group!r} is not a group of parameters",
                                         param_hint="--param")
        target[last] = value
    return params


def _tiebreaks(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in TIEBREAKS]
    if unknown or len(set(names)) != len(names):
        raise click.BadParameter(f"{text!r}: a comma-separated list of distinct tie-breaks "
                                 f"among {', '.join(TIEBREAKS)}", param_hint="--tiebreaks")
    return names


@tournament.command()
@click.argument("name")
@click.option("--game", type=game_choice(), required=True)
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
              help="A game parameter (VALUE JSON or text; KEY may be dotted).")
@click.option("--system", type=click.Choice(SYSTEMS), default="swiss", show_default=True)
@click.option("--rounds", type=bounded_int(1, 1000), default=None,
              help="Swiss: rounds (default 3); round-robin: cycles, 1 (default) or 2.")
@click.option("--tiebreaks", default=None, help="Comma-separated, in order "
              "(default the server's: " + ",".join(TIEBREAKS) + ").")
@click.option("--turn-limit", type=bounded_int(1, 86_400), default=60, show_default=True,
              help="Seconds per action in every match.")
@click.option("--seating", type=bounded_int(10, 86_400), default=None,
              help="Seconds a seat has to show up in a match (default the server's).")
@click.option("--max-players", type=bounded_int(2, 4096), default=None)
@click.option("--arbiter-key", required=True, metavar="ed25519:HEX|KEY_FILE",
              help="The arbiter's public key, or its key file (`fairdeal keys new`).")
@click.option("--auto", is_flag=True,
              help="The server pairs each round when the last is complete, and finishes "
                   "the tournament --seating seconds after the last result (the time to "
                   "dispute it) once every dispute is ruled.")
@click.option("--token-file", type=click.Path(dir_okay=False), default=None,
              help="Save the organiser token here (mode 0600); it is shown only once.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the tournament's id.")
@SERVER_OPTION
@JSON_OPTION
def create(name: str, game: str, params: tuple[str, ...], system: str, rounds: int | None,
           tiebreaks: str | None, turn_limit: int, seating: int | None,
           max_players: int | None, arbiter_key: str, auto: bool, token_file: str | None,
           quiet: bool, server: str, as_json: bool) -> None:
    """Create a tournament: its header, and the commitment to its seed, are public at once."""
    from fairdeal.client.tournaments import write_secret

    fields: dict[str, Any] = {
        "name": name, "game": game.lower(), "params": _params(params), "system": system,
        "rounds": rounds if rounds is not None else 3 if system == "swiss" else 1,
        "turn_limit_ms": turn_limit * 1000,
        "arbiter_key": public_key_of(arbiter_key, "--arbiter-key"), "auto": auto}
    optional = {"tiebreaks": _tiebreaks(tiebreaks), "max_players": max_players,
                "seating_ms": None if seating is None else seating * 1000}
    fields.update({key: value for key, value in optional.items() if value is not None})
    with talking_to(server) as tournaments:
        tournaments.api.wait_until_up(10.0, interval=0.2)  # a server started a moment ago
        created = tournaments.create(fields)
        if token_file:
            write_secret(Path(token_file), created["organiser_token"].encode() + b"\n")
    if as_json:
        echo_json(created)
    elif quiet:
        click.echo(created["id"])
    else:
        for line in created_lines(created, token_file, server):
            click.echo(line)


@tournament.command(name="list")
@click.option("--limit", type=bounded_int(1, 500), default=50, show_default=True)
@click.option("--cursor", default=None, help="The next page (the 'more:' line's cursor).")
@SERVER_OPTION
@JSON_OPTION
def list_(limit: int, cursor: str | None, server: str, as_json: bool) -> None:
    """The server's tournaments, newest first."""
    with talking_to(server) as tournaments:
        page = tournaments.listing(limit, cursor)
        if as_json:
            echo_json(page)
        else:
            print_list(page)


@tournament.command()
@click.argument("tournament_id", metavar="TOURNAMENT")
@SERVER_OPTION
@JSON_OPTION
def status(tournament_id: str, server: str, as_json: bool) -> None:
    """The tournament now: players, rounds and pairings with their matches, disputes with
    their rulings, and the standings with their tie-breaks."""
    with talking_to(server) as tournaments:
        shown = tournaments.get(checked_id(tournament_id))
        if as_json:
            echo_json(shown)
        else:
            print_status(shown, server)


@tournament.command()
@click.argument("tournament_id", metavar="TOURNAMENT")
@click.option("--key", "key_file", required=True, type=click.Path(dir_okay=False),
              help="The player's key file (PEM; made here on first use).")
@click.option("--name", default=None, help="The player's name (default: the key file's).")
@click.option("--token-file", type=click.Path(dir_okay=False), default=None,
              help="Save the player token here (default: KEY.token).")
@SERVER_OPTION
@JSON_OPTION
def register(tournament_id: str, key_file: str, name: str | None, token_file: str | None,
             server: str, as_json: bool) -> None:
    """Register a player, signed with its key; its player token (the seat token of each of
    its matches) is saved for the commands that act for it."""
    from fairdeal.client.tournaments import write_secret

    tournament_id = checked_id(tournament_id)
    key = key_of(key_file, create=True)
    name = name if name is not None else Path(key_file).stem
    saved = Path(token_file or f"{key_file}.token")
    with talking_to(server) as tournaments:
        answer = tournaments.register(tournament_id, key, name)
        write_secret(saved, answer["player_token"].encode() + b"\n")
    if as_json:
        echo_json(answer)
        return
    click.echo(f"registered {name!r} as player {answer['player']} in {tournament_id}")
    click.echo(f"player token saved to {saved} (it is the seat token of every match you play)")


def _organiser_command(route: str, done: str) -> Any:
    """``start``, ``pair`` and ``finish``: one organiser request each."""

    @click.argument("tournament_id", metavar="TOURNAMENT")
    @click.option("--token", envvar="FAIRDEAL_ORGANISER_TOKEN", default=None,
                  help="The organiser token (or --token-file).")
    @TOKEN_FILE
    @SERVER_OPTION
    @JSON_OPTION
    def command(tournament_id: str, token: str | None, token_file: str | None, server: str,
                as_json: bool) -> None:
        tournament_id = checked_id(tournament_id)
        secret = token_of(token, token_file, "organiser")
        with talking_to(server) as tournaments:
            answer = getattr(tournaments, route)(tournament_id, secret)
        if as_json:
            echo_json(answer)
            return
        for event in answer.get("events") or [answer.get("event"), answer.get("round")]:
            if event and event.get("type") == "round":
                tables = len(event.get("pairings") or [])
                click.echo(f"round {event['round']} paired: {tables} matches created"
                           + (f", bye: {', '.join(event['byes'])}" if event.get("byes") else ""))
        click.echo(f"{tournament_id}: {done}")

    return command


tournament.command(name="start", help="Close registration and start the tournament (with "
                   "--auto, its first round is paired too).")(
    _organiser_command("start", "started"))
tournament.command(name="pair", help="Pair the next round and create its matches.")(
    _organiser_command("pair", "round paired"))
tournament.command(name="finish", help="Reveal the tournament's seed and write the final "
                   "standings (after the last round, with no dispute open).")(
    _organiser_command("finish", "finished: seed revealed, final standings signed"))


@tournament.command()
@click.argument("tournament_id", metavar="TOURNAMENT")
@click.option("--key", "key_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The player's key file.")
@TOKEN_FILE
@click.option("--match", "match_id", default=None,
              help="The disputed match (default: the player's latest ended match).")
@click.option("--step", type=bounded_int(0), required=True,
              help="The disputed step: 0 is the deal, N the N-th play.")
@click.option("--text", required=True, help="What is disputed, in your words (2000 chars).")
@click.option("--receipts", "receipts_file", default=None,
              type=click.Path(exists=True, dir_okay=False),
              help="Your receipts of that match (`play --receipts`), attached as evidence.")
@SERVER_OPTION
@JSON_OPTION
def dispute(tournament_id: str, key_file: str, token_file: str | None, match_id: str | None,
            step: int, text: str, receipts_file: str | None, server: str,
            as_json: bool) -> None:
    """File a dispute on one step of one of your matches, signed with your key; the step's
    dispute report is computed here from the sealed match and its hash signed with it."""
    tournament_id = checked_id(tournament_id)
    key = key_of(key_file)
    secret = token_of(None, token_file or f"{key_file}.token", "player")
    receipts = _receipts(receipts_file)
    with talking_to(server) as tournaments:
        if match_id is None:
            match_id = latest_match_of(tournaments.get(tournament_id), key.key_id)
        answer = tournaments.dispute(tournament_id, key, secret, match_id=match_id,
                                     step=step, text=text, receipts=receipts)
    if as_json:
        echo_json(answer)
        return
    event = answer["event"]
    click.echo(f"dispute {event['dispute']} filed on match {match_id}, step {step} "
               f"(report {event['report'][:16]}…): the arbiter rules next")


def _receipts(path: str | None) -> Any:
    if path is None:
        return None
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise click.BadParameter(f"{path}: not a receipts file (JSON): {e}",
                                 param_hint="--receipts") from None


@tournament.command()
@click.argument("tournament_id", metavar="TOURNAMENT")
@click.option("--arbiter", "key_file", required=True,
              type=click.Path(exists=True, dir_okay=False), help="The arbiter's key file.")
@click.option("--dispute", "number", type=bounded_int(1), default=None,
              help="The dispute ruled on (default: the oldest without a ruling).")
@click.option("--decision", type=click.Choice(("result-stands", "result-changed",
                                                "replay-ordered", "penalty")), required=True)
@click.option("--winner", default=None,
              help="result-changed: the winner's player id, or 'draw'.")
@click.option("--player", default=None, help="penalty: the player penalised (its id).")
@click.option("--points", type=bounded_int(1, 10_000), default=None,
              help="penalty: half-points taken off.")
@click.option("--text", required=True, help="The ruling's reasons.")
@click.option("--organiser-token-file", type=click.Path(dir_okay=False), default=None,
              help="replay-ordered: the organiser's token, which asks for the new match.")
@SERVER_OPTION
@JSON_OPTION
def rule(tournament_id: str, key_file: str, number: int | None, decision: str,
         winner: str | None, player: str | None, points: int | None, text: str,
         organiser_token_file: str | None, server: str, as_json: bool) -> None:
    """Rule on a dispute, signed with the arbiter's key; the standings follow the ruling."""
    tournament_id = checked_id(tournament_id)
    key = key_of(key_file)
    with talking_to(server) as tournaments:
        if number is None:
            number = open_dispute(tournaments.get(tournament_id))
        ruling = decision_of(decision, winner, player, points)
        if decision == "replay-ordered":
            secret = token_of(None, organiser_token_file, "organiser")
            ruling["match_id"] = tournaments.order_replay(tournament_id, secret,
                                                          number)["match_id"]
        answer = tournaments.rule(tournament_id, key, number, ruling, text)
    if as_json:
        echo_json(answer)
        return
    replay = f" (the replay is match {ruling['match_id']})" if "match_id" in ruling else ""
    click.echo(f"dispute {number} ruled: {decision}{replay}")


@tournament.command()
@click.argument("tournament_id", metavar="TOURNAMENT")
@click.option("--key", "key_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The player's key file.")
@TOKEN_FILE
@click.option("--from-round", type=bounded_int(1), required=True,
              help="The first round you are not paired in.")
@SERVER_OPTION
@JSON_OPTION
def withdraw(tournament_id: str, key_file: str, token_file: str | None, from_round: int,
             server: str, as_json: bool) -> None:
    """Withdraw from the tournament from a round on, signed with your key."""
    tournament_id = checked_id(tournament_id)
    key = key_of(key_file)
    secret = token_of(None, token_file or f"{key_file}.token", "player")
    with talking_to(server) as tournaments:
        answer = tournaments.withdraw(tournament_id, key, secret, from_round)
    if as_json:
        echo_json(answer)
    else:
        click.echo(f"player {key.key_id} withdrawn from round {from_round} on")


@tournament.command()
@click.argument("tournament_id", metavar="TOURNAMENT")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="The zip to write (verify it with `fairdeal verify`).")
@SERVER_OPTION
def export(tournament_id: str, output: str, server: str) -> None:
    """Write a finished tournament's export: its signed bundle and every match bundle."""
    tournament_id = checked_id(tournament_id)
    folder = Path(output).parent
    if not folder.is_dir():  # said before the download, not after it
        raise click.FileError(output, hint="Not a directory" if folder.exists()
                              else "No such file or directory")
    with talking_to(server) as tournaments:
        data = tournaments.export(tournament_id)
    write_file(output, data)
    click.echo(f"{output}: tournament {tournament_id} and its matches, {len(data)} bytes",
               err=True)
