"""``fairdeal play --tournament ID -n N``: N bots enter a tournament and play it to the end,
each match signed with the bots' tournament keys and verified with them pinned (a thin shell
over fairdeal.client.tournament_bots)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import click

from fairdeal.verifier.report import counted

from .files import make_folder, write_file
from .output import outcome_words
from .tournament_common import checked_id, talking_to, token_of
from .tournament_output import standings_lines, window_words

__all__ = ["play_tournament_command", "tournament_play_line"]


def _file_name(name: str) -> str:
    """A bot's name as a file name: ``random bot 3`` → ``random-bot-3``."""
    return "-".join(name.split())


def _keep_bot(folder: Path, bot: Any) -> None:
    """DIR/<bot>.pem (its key) and DIR/<bot>.pem.token (its player token), as ``register``
    keeps a player's, so ``tournament dispute --key DIR/<bot>.pem`` acts for it."""
    from fairdeal.client.tournaments import write_secret

    path = folder / f"{_file_name(bot.name)}.pem"
    write_secret(path, bot.key.to_pem(), exclusive=True)
    write_secret(Path(f"{path}.token"), bot.token.encode() + b"\n")


def tournament_play_line(item: dict[str, Any], game: str, site: str,
                         names: dict[str, str]) -> str | None:
    """The line ``play --tournament`` prints for one thing that happened (None: nothing)."""
    if "pairings" in item:
        byes = [names.get(bye, bye) for bye in item.get("byes") or []]
        return (f"round {item['round']}: {counted(len(item['pairings']), 'match', 'matches')}"
                + (f", bye: {', '.join(byes)}" if byes else ""))
    if "started" in item:
        match = item["started"]
        return (f"started: {match['id']}  round {match['round']} table {match['table']}: "
                f"{' vs '.join(match['seats'])}  {site}/m/{match['id']}")
    if "move" in item:
        move = item["move"]
        words = move["caption"] or json.dumps(move["action"], separators=(",", ":"))
        return f"  {move['id']} #{move['seq']} seat {move['seat']}: {words}"
    if "result" in item:
        outcome = outcome_words(game, item["result"], item.get("seats") or ())
        return (f"ended:   {item['id']}  round {item['round']} table {item['table']}, "
                f"{counted(item['moves'], 'move')}, {outcome} (verified, keys pinned)")
    if "disputes_until" in item:
        return window_words(int(item["disputes_until"]), list(item.get("open") or []))
    if "stats" in item:
        stats = item["stats"]
        return (f"{counted(stats.matches, 'match', 'matches')}, "
                f"{counted(stats.moves, 'move')} in {stats.seconds:.1f} s")
    return None


def _saved_bots(folder: Path, shown: dict[str, Any]) -> list[Any]:
    """The bots a folder of ``--keys`` holds (a run before this one registered them): each
    key must be a player of the tournament, its token beside it."""
    from fairdeal.client.tournament_bots import TournamentBot
    from fairdeal.client.tournaments import KeyFileError, load_key_file, read_token

    names = {player["player"]: player["name"] for player in shown["players"]}
    bots = []
    for path in sorted(folder.glob("*.pem")):
        try:
            key = load_key_file(path)
            token = read_token(Path(f"{path}.token"))
        except KeyFileError as e:
            raise click.ClickException(str(e)) from None
        if key.key_id not in names:
            raise click.ClickException(f"{path}: key {key.key_id} is no player of tournament "
                                       f"{shown['id']}")
        bots.append(TournamentBot(names[key.key_id], key, key.key_id, token))
    return bots


def _entered(tournaments: Any, shown: dict[str, Any], count: int, seed: int | None,
             folder: Path | None) -> list[Any]:
    """The bots that play: those of a ``--keys`` folder that holds some already (resumed, so
    a replay a ruling ordered is played, and no key file is ever overwritten), else ``count``
    bots registered now (and kept in the folder)."""
    from fairdeal.client.tournament_bots import enter_bots

    if folder is not None and any(folder.glob("*.pem")):
        bots = _saved_bots(folder, shown)
        click.echo(f"resumed: {counted(len(bots), 'bot')} of {folder}")
        return bots
    bots = enter_bots(tournaments, shown["id"], count, random.Random(seed))
    for bot in bots:
        click.echo(f"registered: {bot.name} as player {bot.player}")
        if folder is not None:
            _keep_bot(folder, bot)
    return bots


def _finished_lines(tournament: dict[str, Any], names: dict[str, str]) -> list[str]:
    header = tournament.get("header") or {}
    words = "finished" if tournament["status"] == "finished" else \
        "every round played (the organiser finishes it: fairdeal tournament finish)"
    lines = [f"tournament {tournament['id']}: {words}"]
    if tournament.get("standings"):
        lines += list(standings_lines(tournament["standings"], header.get("tiebreaks") or [],
                                      names))
    return lines


def play_tournament_command(server: str, tournament_id: str, count: int, *,
                            seed: int | None, pace: float, trusted_key: str | None,
                            keys_dir: str | None, receipts_dir: str | None, verbose: bool,
                            organiser_token_file: str | None, game: str | None) -> None:
    """Register ``count`` bots in the tournament (or resume those of ``keys_dir``), start it
    when holding the organiser's token, and play until it is over, printing a line for each
    round and match."""
    from fairdeal.client.tournament_bots import play_tournament

    tournament_id = checked_id(tournament_id)
    token = token_of(None, organiser_token_file, "organiser") if organiser_token_file \
        else None
    keys_folder = make_folder(keys_dir) if keys_dir else None
    receipts_folder = make_folder(receipts_dir) if receipts_dir else None
    site = server.rstrip("/").removesuffix("/api/v1")
    with talking_to(server) as tournaments:
        tournaments.api.wait_until_up(10.0, interval=0.2)  # a server started a moment ago
        shown = tournaments.get(tournament_id)
        played = shown["header"]["game"]
        if game is not None and game.lower() != played:
            raise click.BadParameter(f"tournament {tournament_id} plays {played}, not {game}",
                                     param_hint="--game")
        bots = _entered(tournaments, shown, count, seed, keys_folder)
        names = {bot.player: bot.name for bot in bots}
        if token is not None and shown["status"] == "registering":
            tournaments.start(tournament_id, token)
            click.echo(f"started: {tournament_id} with the players registered")
        elif shown["status"] == "registering":
            click.echo(f"waiting for the organiser to start {tournament_id} "
                       "(fairdeal tournament start)")
        for item in play_tournament(server, tournament_id, bots, seed=seed, pace=pace,
                                    server_key=trusted_key, moves=verbose,
                                    organiser_token=token):
            if "result" in item and receipts_folder is not None:
                write_file(receipts_folder / f"{item['id']}.receipts.json",
                           json.dumps(item["receipts"], indent=1) + "\n")
            if "finished" in item:
                for line in _finished_lines(item["finished"], names):
                    click.echo(line)
                continue
            line = tournament_play_line(item, played, site, names)
            if line is not None:
                click.echo(line)
