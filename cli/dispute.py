"""``fairdeal dispute BUNDLE --step N``: the dispute report for one step of one match, as a
self-contained HTML page or JSON. A thin shell over fairdeal.verifier.dispute."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from fairdeal.verifier.dispute import DisputeError, dispute_report
from fairdeal.verifier.dispute_html import dispute_html
from fairdeal.verifier.verify import UnknownSeat

from .files import write_file
from .group import cli
from .options import bounded_int

__all__ = ["dispute"]


@cli.command()
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--step", type=bounded_int(0), required=True,
              help="The disputed step: 0 is the deal, N the N-th play.")
@click.option("--json", "as_json", is_flag=True, help="The report as JSON instead of HTML.")
@click.option("-o", "--out", type=click.Path(dir_okay=False, writable=True),
              help="Write the report to this file (default: standard output).")
@click.option("--trusted-key", default=None, metavar="ed25519:HEX",
              help="Pin the server key.")
@click.option("--seat-key", "seat_keys", multiple=True, metavar="SEAT=ed25519:HEX",
              help="Pin a player's move-signing key (SEAT is its name, e.g. A, or index).")
def dispute(bundle: str, step: int, as_json: bool, out: str | None, trusted_key: str | None,
            seat_keys: tuple[str, ...]) -> None:
    """A report that settles one disputed step: the verification of the whole match, the
    state before and after from each seat's view, the rule applied, who signed the move, its
    timing, and who could have influenced the deal.

    Exit status 0 when the match verifies, 1 when it does not (the report says where it
    diverges), 2 for a usage error."""
    try:
        data = sys.stdin.buffer.read() if bundle == "-" else Path(bundle).read_bytes()
    except OSError as e:
        raise click.FileError(bundle, hint=e.strerror or str(e)) from None
    pins: dict[str, str] = {}
    for pair in seat_keys:
        seat, sep, key = pair.partition("=")
        if not sep or not seat.strip():
            raise click.BadParameter(f"expected SEAT=ed25519:HEX, got {pair!r}",
                                     param_hint="--seat-key")
        pins[seat.strip()] = key.strip()
    try:
        report = dispute_report(data, step, trusted_key=trusted_key, seat_keys=pins)
    except UnknownSeat as e:  # a label the match has no seat for ("²", "C"): a usage error
        raise click.BadParameter(f"{bundle}: {e}", param_hint="--seat-key") from None
    except DisputeError as e:
        if "step" in str(e) and "does not exist" in str(e):
            raise click.BadParameter(str(e), param_hint="--step") from None
        raise click.ClickException(f"{bundle}: {e}") from None
    text = (json.dumps(report, indent=2, ensure_ascii=False) + "\n" if as_json
            else dispute_html(report))
    if out:
        write_file(out, text)
    else:
        click.echo(text, nl=False)
    sys.exit(0 if report["verification"]["ok"] else 1)
