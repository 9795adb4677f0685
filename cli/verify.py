"""``fairdeal verify``: match bundles checked offline by the verifier, one verdict each."""

from __future__ import annotations

import json
import sys

import click

from fairdeal.verifier.bundle import MAX_BUNDLE_BYTES
from fairdeal.verifier.checkpoint import WitnessPolicy
from fairdeal.verifier.inputs import InvalidInput, resolve_inputs, seat_pin
from fairdeal.verifier.keys import InvalidKey
from fairdeal.verifier.receipts import (
    InvalidReceipts,
    ReceiptsFile,
    parse_receipts_file,
)
from fairdeal.verifier.report import Report, counted
from fairdeal.verifier.tournament import TournamentReport
from fairdeal.verifier.verify import UnknownSeat, verify_bytes

from .common import checked_key, trusted_checkpoint, witness_policy
from .files import read_file
from .group import cli
from .output import report_lines, say, use_colour
from .paths import bundle_paths
from .verify_tournament import (
    ZIP_MAGIC,
    is_tournament_json,
    player_pins,
    read_export_file,
    tournament_lines,
    verify_export,
)


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
@click.option("--arbiter-key", default=None, metavar="ed25519:HEX",
              help="A tournament export: pin the arbiter's key (the tournament must name it, "
                   "and every ruling be signed by it).")
@click.option("--player-key", "player_keys", multiple=True, metavar="ed25519:HEX",
              help="A tournament export: pin a player's key (repeatable): it must be "
                   "registered, and every match of that player is checked signed by it.")
@click.option("-v", "--verbose", is_flag=True, help="List every check, not only the verdict.")
def verify(files: tuple[str, ...], recursive: bool, as_json: bool, trusted_key: str | None,
           seat_keys: tuple[str, ...], receipt_files: tuple[str, ...],
           checkpoint_file: str | None, witness_texts: tuple[str, ...], quorum: int | None,
           arbiter_key: str | None, player_keys: tuple[str, ...], verbose: bool) -> None:
    """Verify match bundles offline: the chain, the signature, the commitment, the players'
    seeds, the deal, every move under the rules, the timers and the result — and say who could
    have influenced each deal. A folder stands for the .json files in it.

    A tournament export (`fairdeal tournament export`'s zip) is verified whole: its log,
    pairings, every match with its players' keys pinned, results, disputes, rulings, standings.

    Exit status 0 when every file verifies, 1 when any does not, 2 for a usage error.
    """
    trusted_key = checked_key(trusted_key, "--trusted-key")
    arbiter_key = checked_key(arbiter_key, "--arbiter-key")
    players = player_pins(player_keys)
    pinned_seats = _seat_pins(seat_keys)
    receipts_files: list[ReceiptsFile] = []
    for receipt_file in receipt_files:
        try:
            receipts_files.append(parse_receipts_file(read_file(receipt_file)))
        except InvalidReceipts as e:
            raise click.BadParameter(f"{receipt_file}: {e}", param_hint="--receipts") from None
    checkpoint = None
    if checkpoint_file is not None:
        checkpoint = trusted_checkpoint(read_file(checkpoint_file))
    witnesses = witness_policy(witness_texts, quorum)
    failures = checked = 0
    reports = []
    colour = use_colour()
    for path in bundle_paths(files, recursive):
        data = sys.stdin.buffer.read(MAX_BUNDLE_BYTES + 1) if path == "-" else read_file(path)
        if data.startswith(ZIP_MAGIC):
            if path != "-" and len(data) > MAX_BUNDLE_BYTES:
                data = read_export_file(path)
            report: Report | TournamentReport = verify_export(
                data, trusted_key, arbiter_key, players, checkpoint)
            lines = tournament_lines(path, report, verbose)
        else:
            report = _verify_match(path, data, trusted_key, pinned_seats, receipts_files,
                                   checkpoint, witnesses)
            lines = report_lines(path, report, verbose)
        failures += not report.ok
        checked += 1
        if as_json:
            reports.append({"file": path, **report.to_json()})
        else:
            for line in lines:
                say(line, colour)
    if checked > 1 and not as_json:
        # the verdict over many files, the line a person reads last
        say(f"{counted(checked, 'file')}: {checked - failures} OK, {failures} FAIL", colour)
    if as_json:
        click.echo(json.dumps(reports if len(reports) > 1 else reports[0], indent=2,
                              ensure_ascii=False))
    sys.exit(1 if failures else 0)


def _verify_match(path: str, data: bytes, trusted_key: str | None,
                  pinned_seats: dict[str, str], receipts_files: list[ReceiptsFile],
                  checkpoint: str | None, witnesses: WitnessPolicy | None) -> Report:
    """One match bundle's report, its pins resolved from the options and receipts files."""
    try:
        use = resolve_inputs(data, pinned_seats, receipts_files)
    except InvalidInput as e:
        raise click.BadParameter(f"{path}: {e}", param_hint="--receipts") from None
    try:
        report = verify_bytes(data, trusted_key, use.pins, use.receipts, checkpoint,
                              use.receipts_for, witnesses=witnesses)
    except UnknownSeat as e:
        raise click.BadParameter(f"{path}: {e}", param_hint="--seat-key") from None
    if use.sources:
        report.facts["pin_sources"] = use.sources
    if not report.ok and report.failure is not None and report.failure.check == "format" \
            and is_tournament_json(data):
        raise click.BadParameter(f"{path} is a tournament's log alone: verify its export "
                                 "(`fairdeal tournament export ID -o t.zip`), which holds "
                                 "its matches too", param_hint="FILES")
    return report


def _seat_pins(seat_keys: tuple[str, ...]) -> dict[str, str]:
    """The ``--seat-key SEAT=KEY`` pins by seat, or a usage error naming the bad one."""
    pinned_seats: dict[str, str] = {}
    for pair in seat_keys:
        try:
            seat, key = seat_pin(pair)
        except (InvalidInput, InvalidKey) as e:
            raise click.BadParameter(str(e), param_hint="--seat-key") from None
        pinned_seats[seat] = key
    return pinned_seats
