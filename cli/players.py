"""``fairdeal matches --seat-key KEY``: a seat key's matches, its names and its record, as the
page ``/k/<key id>`` shows them (ledger/players.py). Called by the ``matches`` command."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click

from .output import outcome_words

__all__ = ["print_key_matches"]

_WORDS = {"win": "won", "loss": "lost", "draw": "draw", None: "in play"}


def _when(ms: int) -> str:
    """UTC ISO 8601, to the second."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _record_line(game: str, counts: dict[str, int]) -> str:
    return (f"  {game:<10} {counts['wins']} won, {counts['losses']} lost, "
            f"{counts['draws']} drawn, {counts['unfinished']} unfinished")


def print_key_matches(ledger: Any, key: str, limit: int, cursor: str | None,
                      as_json: bool) -> None:
    """Print one page of a seat key's matches (``--json``: the API's answer as it is)."""
    from fairdeal.ledger.errors import BadRequest, KeyNotFound

    try:
        page = ledger.key_matches(key, limit, cursor)
    except (BadRequest, KeyNotFound) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(page, indent=2, ensure_ascii=False))
        return
    click.echo(f"seat key {page['key_id']}  ({', '.join(page['public_keys'])})")
    names = ", ".join(f"{item['name']!r} ({item['seats']})" for item in page["names"])
    click.echo(f"names it sat under: {names or '-'}  (labels only: the key is the identity)")
    click.echo(f"{page['total']} matches signed with this key; record by game:")
    for game, counts in page["record"].items():
        click.echo(_record_line(game, counts))
    click.echo("")
    for match in page["matches"]:
        seats = match["seats"]
        held = " and ".join(f"{seats[seat]!r}" if seat < len(seats) else f"seat {seat}"
                            for seat in match["key_seats"])
        outcome = outcome_words(match["game"], match["result"], seats or ())
        click.echo(f"{match['id']}  {_when(match['created_ms'])}  {match['game']:<10} "
                   f"{match['status']:<8} as {held}: {_WORDS[match['key_result']]}"
                   f"  ({outcome})")
    if page["next_cursor"]:
        click.echo(f"more: fairdeal matches --seat-key {page['key_id']} "
                   f"--cursor {page['next_cursor']}")
