"""The ``fairdeal`` command line: a thin shell over games/, verifier/ and ledger/.

Every user error becomes a click error (exit 1 or 2) with a sentence that names the problem;
no input prints a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from fairdeal.games import (
    RulesError,
    SimulateOption,
    broken_plugins,
    game_names,
    get_bots,
    get_game,
    get_plugin,
    get_rules,
    plugins,
)
from fairdeal.verifier.bundle import MAX_BUNDLE_BYTES, Bundle, InvalidBundle
from fairdeal.verifier.inputs import InvalidInput, resolve_inputs
from fairdeal.verifier.keys import InvalidKey, parse_public_key
from fairdeal.verifier.receipts import (
    InvalidReceipts,
    ReceiptsFile,
    parse_receipts_file,
)
from fairdeal.verifier.replay import replay_steps
from fairdeal.verifier.report import VerificationError
from fairdeal.verifier.verify import UnknownSeat, verify_bytes

from .files import make_folder, write_file
from .options import bounded_int
from .output import outcome_words, print_records, report_lines
from .paths import bundle_paths

DEFAULT_DATA_DIR = click.get_app_dir("fairdeal")


class Context:
    """Options shared by every command."""

    def __init__(self, data_dir: str, database_url: str | None) -> None:
        self.data_dir = Path(data_dir)
        self.database_url = database_url


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data-dir", envvar="FAIRDEAL_DATA_DIR", default=DEFAULT_DATA_DIR,
              show_default=True, type=click.Path(file_okay=False),
              help="Where the embedded database and the server key live.")
@click.option("--database-url", envvar="FAIRDEAL_DATABASE_URL", default=None,
              help="A database URL (sqlite:///… or postgresql+psycopg://…); overrides "
                   "the SQLite file in the data folder.")
@click.version_option(package_name="fairdeal")
@click.pass_context
def cli(ctx: click.Context, data_dir: str, database_url: str | None) -> None:
    """fairdeal: provably fair match records you can verify yourself."""
    ctx.obj = Context(data_dir, database_url)


def _game_choice() -> click.Choice:
    return click.Choice(game_names(), case_sensitive=False)


def _warn_broken() -> None:
    """Name, on stderr, every game plug-in that failed to load (each was skipped)."""
    for broken in broken_plugins():
        click.echo(f"warning: {broken.words()}", err=True)


@cli.command()
@click.argument("game", type=_game_choice(), required=False)
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
_SIMULATE_OWN = frozenset({"param", "bots", "seed", "turn-limit", "signed", "out", "help"})


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
@click.argument("game", type=_game_choice())
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
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Folder for the bundles, one <match id>.json each.")
@click.pass_obj
def simulate(obj: Context, game: str, extra: tuple[str, ...], bots: str, count: int,
             seed: str | None, turn_limit: int, signed: bool, out: str,
             **game_options: str | None) -> None:
    """Play bot matches and write one sealed bundle per match."""
    from fairdeal.ledger.simulate import SimulationSettings, simulate_matches

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
                                  turn_limit_ms=turn_limit * 1000, signed_moves=signed)
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


def server_key_of(data_dir: Path) -> Any:
    """The server key of a data folder (created on first use), or a click error naming the
    folder and what is wrong with its key file (unreadable, not a key, a folder)."""
    from fairdeal.ledger.keys import load_or_create_server_key

    try:
        return load_or_create_server_key(data_dir)
    except (OSError, ValueError) as e:
        raise click.ClickException(f"cannot read the server key in {data_dir}: {e}") from None


def checked_key(text: str | None, option: str) -> str | None:
    """An ``ed25519:HEX`` key given on the command line, or a usage error naming the option."""
    if text is None:
        return None
    try:
        parse_public_key(text.strip())
    except InvalidKey as e:
        raise click.BadParameter(str(e), param_hint=option) from None
    return text.strip()


def _read(path: str) -> bytes:
    """A file's bytes; past MAX_BUNDLE_BYTES only one byte more is read (the verifier then
    refuses it by its size, naming the limit), so a huge file cannot fill the memory."""
    try:
        with Path(path).open("rb") as stream:
            return stream.read(MAX_BUNDLE_BYTES + 1)
    except OSError as e:
        raise click.FileError(path, hint=e.strerror or str(e)) from None


@cli.command()
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, allow_dash=True))
@click.option("-r", "--recursive", is_flag=True,
              help="A folder's bundles include those in its folders, at any depth.")
@click.option("--json", "as_json", is_flag=True, help="One JSON report per file.")
@click.option("--trusted-key", default=None, metavar="ed25519:HEX",
              help="Pin the server key: fail unless the bundle is signed by it.")
@click.option("--seat-key", "seat_keys", multiple=True, metavar="SEAT=ed25519:HEX",
              help="Pin a player's signing key (SEAT is its name, e.g. A, or index): the "
                   "seat must register that key and sign every seed event, move and "
                   "resignation with it (a pin on a version 1 bundle fails); it overrides the "
                   "receipts file's key for that seat.")
@click.option("--receipts", "receipt_files", multiple=True, metavar="FILE",
              type=click.Path(exists=True, dir_okay=False),
              help="A player's receipts (as `fairdeal play --receipts` keeps them): the bundle "
                   "must be the file's match, every event the server signed for must be in it, "
                   "unchanged, and the seat keys the file records are pinned.")
@click.option("--checkpoint", "checkpoint_file", default=None,
              type=click.Path(exists=True, dir_okay=False),
              help="A log checkpoint you trust, or the state file of `fairdeal log monitor` "
                   "or `log witness`: the bundle's log proofs must be against that very tree.")
@click.option("--witness", "witness_texts", multiple=True, metavar="VKEY",
              help="A witness's cosigner key, name+keyid+base64 as `fairdeal log witness-key` "
                   "prints it (repeatable): the checkpoint the bundle's log proofs lead to must "
                   "carry valid C2SP tlog-cosignatures of at least --witnesses of these keys.")
@click.option("--witnesses", "quorum", type=click.IntRange(1, 64), default=None, metavar="N",
              help="How many of the --witness keys must have cosigned (default 1).")
@click.option("-v", "--verbose", is_flag=True, help="List every check, not only the verdict.")
def verify(files: tuple[str, ...], recursive: bool, as_json: bool, trusted_key: str | None,
           seat_keys: tuple[str, ...], receipt_files: tuple[str, ...],
           checkpoint_file: str | None, witness_texts: tuple[str, ...], quorum: int | None,
           verbose: bool) -> None:
    """Verify match bundles offline: the chain, the signature, the commitment, the players'
    seeds, the deal, every move under the rules, the timers and the result — and say who could
    have influenced each deal. A folder stands for the .json files in it.

    Exit status 0 when every file verifies, 1 when any does not, 2 for a usage error.
    """
    trusted_key = checked_key(trusted_key, "--trusted-key")
    pinned_seats: dict[str, str] = {}
    for pair in seat_keys:
        seat, sep, key = pair.partition("=")
        try:
            if not sep or not seat.strip():
                raise InvalidKey(f"expected SEAT=ed25519:HEX, got {pair!r}")
            parse_public_key(key.strip())
        except InvalidKey as e:
            raise click.BadParameter(str(e), param_hint="--seat-key") from None
        pinned_seats[seat.strip()] = key.strip()
    receipts_files: list[ReceiptsFile] = []
    for receipt_file in receipt_files:
        try:
            receipts_files.append(parse_receipts_file(_read(receipt_file)))
        except InvalidReceipts as e:
            raise click.BadParameter(f"{receipt_file}: {e}", param_hint="--receipts") from None
    checkpoint = None
    if checkpoint_file is not None:
        from .log import trusted_checkpoint

        checkpoint = trusted_checkpoint(_read(checkpoint_file))
    from .log import witness_policy

    witnesses = witness_policy(witness_texts, quorum)
    failures = 0
    reports = []
    for path in bundle_paths(files, recursive):
        data = sys.stdin.buffer.read(MAX_BUNDLE_BYTES + 1) if path == "-" else _read(path)
        try:
            use = resolve_inputs(data, pinned_seats, receipts_files)
        except InvalidInput as e:
            raise click.BadParameter(f"{path}: {e}", param_hint="--receipts") from None
        pins, sources, receipts, receipts_for = (use.pins, use.sources, use.receipts,
                                                 use.receipts_for)
        try:
            report = verify_bytes(data, trusted_key, pins, receipts, checkpoint, receipts_for,
                                  witnesses=witnesses)
        except UnknownSeat as e:
            raise click.BadParameter(f"{path}: {e}", param_hint="--seat-key") from None
        if sources:
            report.facts["pin_sources"] = sources
        failures += not report.ok
        if as_json:
            reports.append({"file": path, **report.to_json()})
        else:
            for line in report_lines(path, report, verbose):
                click.echo(line)
    if as_json:
        click.echo(json.dumps(reports if len(reports) > 1 else reports[0], indent=2,
                              ensure_ascii=False))
    sys.exit(1 if failures else 0)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--step", type=bounded_int(0), default=None,
              help="Only the state after step N (0 is the deal, N the N-th play).")
@click.option("--json", "as_json", is_flag=True, help="States as JSON.")
def replay(file: str, step: int | None, as_json: bool) -> None:
    """Re-derive and print the states of a sealed match, step by step, as the game's own text
    (--json: one JSON state a line)."""
    data = sys.stdin.buffer.read(MAX_BUNDLE_BYTES + 1) if file == "-" else _read(file)
    try:
        bundle = Bundle.from_bytes(data)
    except InvalidBundle as e:
        raise click.ClickException(f"{file} is not a valid bundle: {e}") from None
    report = verify_bytes(data)
    if not report.ok:
        click.echo(f"warning: {file} does not verify ({report.failure}); showing the states "
                   "up to the failure", err=True)
    try:
        replayer, steps, _ = replay_steps(bundle.events,
                                          bytes.fromhex(bundle.events[-1]["server_seed"]))
    except VerificationError as e:
        raise click.ClickException(f"cannot replay {file}: {e}") from None
    game = replayer.game
    if not steps:
        outcome = replayer.outcome
        why = f" ({outcome.reason})" if outcome is not None else ""
        raise click.ClickException(f"{file}: the match ended before any deal was made{why}: "
                                   "there are no states to replay")
    if step is not None:
        if step >= len(steps):
            raise click.BadParameter(f"the match has steps 0 to {len(steps) - 1}",
                                     param_hint="--step")
    previous = None
    if step is not None:
        # the step before, so that the step's words can say what was played
        previous = steps[step - 1].state if step else None
        steps = [steps[step]]
    for item in steps:
        if as_json:
            click.echo(json.dumps({"step": item.number, "seq": item.seq,
                                   **game.state_to_json(item.state)}, ensure_ascii=False))
            continue
        click.echo(f"step {item.number} (event {item.seq}): {_step_words(game, previous, item)}")
        click.echo(game.render_text(item.state))
        click.echo()
        previous = item.state


def _step_words(game: Any, previous: Any, item: Any) -> str:
    if item.number == 0:
        return "the deal"
    event = item.event
    if event["type"] == "move" and previous is not None:
        return str(game.describe_action(previous, game.parse_action(event["action"])))
    return f"{event['type']} by seat {game.seat_names[event['seat']]}"


def main() -> None:  # pragma: no cover - console entry point
    cli()


# the commands of other modules: gif; log monitor and log witness; serve, matches, export, ...;
# verifier-hash
from . import gif, log, service, verifier_hash  # noqa: E402,F401
from .audit import audit as _audit  # noqa: E402,F401  (fairdeal audit)
from .dispute import dispute as _dispute  # noqa: E402,F401  (fairdeal dispute)
