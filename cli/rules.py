"""``fairdeal rules``: a game's rules data, or the list of the registered games."""

from __future__ import annotations

import json

import click

from fairdeal.games import RulesError, broken_plugins, get_game, get_rules, plugins

from .common import game_choice
from .group import cli
from .output import print_records


def _warn_broken() -> None:
    """Name, on stderr, every game plug-in that failed to load (each was skipped)."""
    for broken in broken_plugins():
        click.echo(f"warning: {broken.words()}", err=True)


@cli.command()
@click.argument("game", type=game_choice(), required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the rules data as JSON.")
@click.option("--rules-version", default=None, metavar="VERSION",
              help="An older rules version a recorded match may name (default: the newest).")
def rules(game: str | None, as_json: bool, rules_version: str | None) -> None:
    """Show a game's cards, troops and boards (GAME: one of the registered games); without
    GAME, list the registered games (every plug-in of the fairdeal.games entry points)."""
    if game is None:
        _list_games(as_json)
        return
    try:
        rules_game = (get_game(game.lower()) if rules_version is None
                      else get_rules(game.lower(), rules_version))
    except RulesError as e:
        raise click.BadParameter(str(e), param_hint="--rules-version") from None
    data = rules_game.rules_data()
    if as_json:
        click.echo(json.dumps({"game": rules_game.name, "rules_version": rules_game.rules_version,
                               **data}, ensure_ascii=False, indent=2))
        return
    click.echo(f"{rules_game.title} — rules {rules_game.rules_version}")
    for section, records in data.items():
        if isinstance(records, list) and records and isinstance(records[0], dict):
            click.echo(f"\n{section.replace('_', ' ').capitalize()} ({len(records)})")
            print_records(records)


def _list_games(as_json: bool) -> None:
    """Every game that loaded: its name, title and rules versions; a broken plug-in is named
    on stderr and skipped."""
    _warn_broken()
    found = [{"game": plugin.name, "title": plugin.title,
              "rules_versions": list(plugin.versions)} for plugin in plugins()]
    if as_json:
        click.echo(json.dumps(found, ensure_ascii=False, indent=2))
        return
    for entry in found:
        versions = ", ".join(entry["rules_versions"])
        click.echo(f"{entry['game']:<12} {entry['title']} (rules {versions})")
