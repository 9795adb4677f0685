"""``fairdeal gif``: a match's replay as an animated GIF, one frame a step, for a chat message."""

from __future__ import annotations

import io
from pathlib import Path

import click
from PIL import Image

from fairdeal.web.viewer.animation import (
    MAX_GIF_FRAMES,
    StepRangeError,
    match_gif,
    parse_steps,
)
from fairdeal.web.viewer.matches import load_bundle

from .files import read_file, write_file
from .group import cli


@cli.command()
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--step", "steps", metavar="A:B", default=None,
              help=f"Only steps A to B (either may be left out: 10: or :20), at most "
                   f"{MAX_GIF_FRAMES}; default all, or the last {MAX_GIF_FRAMES} of a longer "
                   "match.")
@click.option("--seat", default=None, metavar="SEAT",
              help="Draw from a seat's view (its name, e.g. A) instead of the spectator's.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              required=True, help="Where to write the GIF.")
def gif(bundle: Path, steps: str | None, seat: str | None, output: Path) -> None:
    """Draw a sealed match as an animated GIF (480 to 720 px wide, as its text needs; one
    frame a step, at most 400 frames: the same cap as the server's /m/ID.gif).

    The match is verified first: a replay of a file that does not verify proves nothing, so
    none is drawn."""
    match = load_bundle(read_file(str(bundle)))
    if not match.report.ok:
        raise click.ClickException(f"{bundle} does not verify, so no replay is drawn: "
                                   f"{match.report.failure}")
    seat_index = None
    if seat is not None:
        names = [name.lower() for name in match.game.seat_names]
        if seat.strip().lower() not in names:
            raise click.BadParameter(f"this match's seats are "
                                     f"{', '.join(match.game.seat_names)}, not {seat!r}",
                                     param_hint="--seat")
        seat_index = names.index(seat.strip().lower())
    try:
        first, last = parse_steps(steps, match.last_step)
    except StepRangeError as e:
        raise click.BadParameter(str(e), param_hint="--step") from None
    data = match_gif(match, first, last, seat_index)
    write_file(output, data)
    with Image.open(io.BytesIO(data)) as drawn:
        width = drawn.width
    click.echo(f"{output}: steps {first} to {last} ({last - first + 1} frames, {width} px wide, "
               f"{len(data) / 1024:.0f} kB)")
    if steps is None and first > 0:
        click.echo(f"  the last {MAX_GIF_FRAMES} of the match's {match.last_step + 1} steps: a "
                   f"GIF holds at most {MAX_GIF_FRAMES} frames (--step picks others)")
