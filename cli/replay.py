"""``fairdeal replay``: a sealed match's states, step by step, re-derived from its events."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from fairdeal.verifier.bundle import MAX_BUNDLE_BYTES, Bundle, InvalidBundle
from fairdeal.verifier.replay import replay_steps
from fairdeal.verifier.report import VerificationError
from fairdeal.verifier.verify import verify_bytes

from .files import read_file
from .group import cli
from .options import bounded_int


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--step", type=bounded_int(0), default=None,
              help="Only the state after step N (0 is the deal, N the N-th play).")
@click.option("--json", "as_json", is_flag=True, help="States as JSON.")
def replay(file: str, step: int | None, as_json: bool) -> None:
    """Re-derive and print the states of a sealed match, step by step, as the game's own text
    (--json: one JSON state a line)."""
    data = sys.stdin.buffer.read(MAX_BUNDLE_BYTES + 1) if file == "-" else read_file(file)
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
