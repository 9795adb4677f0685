"""``fairdeal simulate``: bot matches played offline, one sealed bundle each; the games'
plug-ins add their parameter options (``--board`` ...)."""

from __future__ import annotations

import json
from typing import Any

import click

from fairdeal.games import RulesError, SimulateOption, get_bots, get_game, get_plugin, plugins

from .common import game_choice, server_key_of
from .files import make_folder, write_file
from .group import Context, cli
from .options import bounded_float, bounded_int
from .output import outcome_words

#: the bots' default behaviour (client/simulate.py's SimulationSettings), stated in --help
TIMEOUT_CHANCE = 0.01
TIMEOUT_STREAK = 0.45
DECLINE_CHANCE = 0.2


def _parse_params(game_name: str, pairs: tuple[str, ...], named: dict[str, str | None]) -> Any:
    params: dict[str, Any] = {key: value for key, value in named.items() if value is not None}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key or any(not part for part in key.split(".")):
            raise click.BadParameter(f"expected KEY=VALUE (KEY may be dotted, A.school), got "
                                     f"{pair!r}", param_hint="--param")
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text  # a bare word: the string itself
        *path, last = key.split(".")
        target = params
        for part in path:
            child = target.setdefault(part, {})
            if not isinstance(child, dict):
                raise click.BadParameter(f"{part!r} is not a group of parameters",
                                         param_hint="--param")
            target = child
        target[last] = value
    try:
        return get_game(game_name).normalize_params(params)
    except RulesError as e:
        raise click.BadParameter(str(e), param_hint="game parameters") from None


#: simulate's own options: a game's parameter option of the same name is not offered
_SIMULATE_OWN = frozenset({"param", "bots", "seed", "turn-limit", "signed", "out", "help",
                           "timeout-rate", "decline-rate"})


def _simulate_options() -> list[SimulateOption]:
    """The parameter options every game's plug-in offers ``simulate``, each name once, in
    the order of the games."""
    seen: dict[str, SimulateOption] = {}
    for plugin in plugins():
        for option in plugin.simulate_options:
            if option.name not in _SIMULATE_OWN:
                seen.setdefault(option.name, option)
    return list(seen.values())


def _game_options(command: Any) -> Any:
    """Add the games' parameter options (``--board`` ...) to ``simulate``."""
    for option in reversed(_simulate_options()):  # click lists the last one added first
        kind = click.Choice(option.choices) if option.choices else None
        command = click.option(f"--{option.name}", f"game_{option.name.replace('-', '_')}",
                               type=kind, help=option.help)(command)
    return command


def _turn_limit_help() -> str:
    notes = "; ".join(plugin.turn_limit_note for plugin in plugins() if plugin.turn_limit_note)
    fixed = f" (a game may fix it: {notes})" if notes else ""
    return f"Seconds per action before the server writes a timeout{fixed}."


def _named_params(game: str, given: dict[str, str | None]) -> dict[str, str | None]:
    """The chosen game's parameters from its options; a usage error for an option given that
    is another game's (naming whose it is)."""
    offered = {option.name for option in get_plugin(game).simulate_options}
    for plugin in plugins():
        names = [option.name for option in plugin.simulate_options
                 if option.name not in offered and option.name not in _SIMULATE_OWN]
        if not any(given.get(name) for name in names):
            continue
        flags = " and ".join(f"--{name}" for name in names)
        verb = "is" if len(names) == 1 else "are"
        for_whom = plugin.simulate_options[0].for_whom
        raise click.BadParameter(f"{flags} {verb} for {for_whom}",
                                 param_hint=flags if len(names) == 1 else None)
    return {name: given.get(name) for name in offered}


@cli.command()
@click.argument("game", type=game_choice())
@_game_options
@click.option("--param", "extra", multiple=True, metavar="KEY=VALUE",
              help="Any other game parameter; KEY may be dotted and VALUE JSON "
                   "(--param A.school=water --param training=true).")
@click.option("--bots", default="random,greedy", show_default=True,
              help="The two bots, seat A's first.")
@click.option("-n", "count", type=bounded_int(1, 1_000_000), default=1, show_default=True,
              help="How many matches.")
@click.option("--seed", default=None,
              help="Make the run byte-for-byte reproducible (seeds, clock, keys).")
@click.option("--turn-limit", type=bounded_int(1, 86_400), default=60, show_default=True,
              help=_turn_limit_help())
@click.option("--signed", is_flag=True, help="Seats register keys and sign their moves.")
@click.option("--timeout-rate", type=bounded_float(0, 1), default=TIMEOUT_CHANCE,
              show_default=True,
              help="How likely a bot lets a turn's time run out, so the server writes a "
                   f"timeout (one turn in {round(1 / TIMEOUT_CHANCE)}; right after one, "
                   f"{TIMEOUT_STREAK:.0%} of the next); 0 for never.")
@click.option("--decline-rate", type=bounded_float(0, 1), default=DECLINE_CHANCE,
              show_default=True,
              help="How likely a seat declines to add a seed of its own (one in "
                   f"{round(1 / DECLINE_CHANCE)}). A declined or unsigned seed leaves the deal "
                   "to the others: only --signed --decline-rate 0 makes every deal read "
                   "\"fair unless both players and the server colluded\".")
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Folder for the bundles, one <match id>.json each.")
@click.pass_obj
def simulate(obj: Context, game: str, extra: tuple[str, ...], bots: str, count: int,
             seed: str | None, turn_limit: int, signed: bool, timeout_rate: float,
             decline_rate: float, out: str, **game_options: str | None) -> None:
    """Play bot matches and write one sealed bundle per match.

    The bots behave like people, not like the best case: by default a bot lets one turn in a
    hundred run out and a seat declines to add its seed one time in five, and seats sign
    nothing. `--signed --decline-rate 0` shows the strongest guarantee."""
    from fairdeal.client.simulate import SimulationSettings, simulate_matches

    game = game.lower()
    given = {name.removeprefix("game_").replace("_", "-"): value
             for name, value in game_options.items()}
    named = _named_params(game, given)
    params = _parse_params(game, extra, named)
    names = tuple(name.strip() for name in bots.split(","))
    known = get_bots(game)
    if len(names) != 2 or any(name not in known for name in names):
        raise click.BadParameter(f"expected two of {', '.join(known)} separated by a comma, "
                                 f"got {bots!r}", param_hint="--bots")
    server_key = None if seed is not None else server_key_of(obj.data_dir)
    try:  # a game may fix the limit (e.g. 60 s for the whole turn)
        get_game(game).turn_timer(params, turn_limit * 1000)
    except RulesError as e:
        raise click.BadParameter(str(e), param_hint="--turn-limit") from None
    settings = SimulationSettings(game=game, params=params, bots=(names[0], names[1]),
                                  turn_limit_ms=turn_limit * 1000, signed_moves=signed,
                                  timeout_chance=timeout_rate, decline_chance=decline_rate)
    folder = make_folder(out)
    signed_with = None
    for bundle in simulate_matches(settings, count, seed=seed, server_key=server_key):
        signed_with = bundle["signature"]["key"]
        match_id = bundle["events"][0]["match_id"]
        path = folder / f"{match_id}.json"
        write_file(path, json.dumps(bundle, ensure_ascii=False, separators=(",", ":")) + "\n")
        players = [seat["name"] for seat in bundle["events"][0]["seats"]]
        outcome = outcome_words(game, bundle["events"][-1]["result"], players)
        click.echo(f"{path}  {len(bundle['events'])} events, {outcome}")
        if signed:
            # what `verify --seat-key` takes, so that a player's key can be pinned
            seat_names = get_game(game).seat_names
            keys = " ".join(f"{seat_names[event['seat']]}={event['public_key']}"
                            for event in bundle["events"] if event["type"] == "seat_key")
            click.echo(f"  seat keys: {keys}")
    # the key, so that `verify --trusted-key` can be given the right one
    if seed is None:
        click.echo(f"signed with {signed_with} (the server key of {obj.data_dir}, as "
                   "`fairdeal keys show` prints it)")
    else:
        click.echo(f"signed with {signed_with} (derived from --seed {seed!r}, not the server "
                   "key: pin this one with --trusted-key)")
