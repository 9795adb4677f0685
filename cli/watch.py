"""``fairdeal watch ID``: a match's events printed as they are played, from the server's live
stream (GET /api/v1/matches/ID/stream); resumes after a dropped connection, exits when the
match ends."""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from typing import Any

import click

from fairdeal.games import RulesError, get_game

from .group import cli
from .options import bounded_int
from .output import outcome_words


def _seat(game: str, seat: Any, players: Sequence[str]) -> str:
    """``seat A (alice)`` in the game's own seat names (the index for a game not installed)."""
    try:
        name = f"seat {get_game(game).seat_names[seat]}"
    except (RulesError, IndexError, TypeError):
        name = f"seat {seat}"
    if isinstance(seat, int) and 0 <= seat < len(players) and players[seat]:
        name += f" ({players[seat]})"
    return name


def _utc(ts: Any) -> str:
    if not isinstance(ts, int):
        return "-"
    moment = datetime.datetime.fromtimestamp(ts / 1000, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def event_words(event: Mapping[str, Any], caption: str | None, game: str,
                players: Sequence[str]) -> str:
    """What one event says, for people: ``seat A (alice): plays Quarry`` and the like."""
    kind = event.get("type")
    seat = _seat(game, event.get("seat"), players)
    if kind == "genesis":
        try:
            title = get_game(game).title
        except RulesError:
            title = game  # a game this install does not know: its name is all we have
        return (f"match created: {title}, {' vs '.join(players) or 'two seats'}; the deal is "
                f"committed to {str(event.get('commitment', ''))[:16]}…")
    if kind == "move":
        return f"{seat}: {caption or json.dumps(event.get('action'), separators=(',', ':'))}"
    words = {
        "seat_key": "registers its signing key",
        "seed_commit": "commits to its seed",
        "seed_reveal": "reveals its seed",
        "seed_expired": "did not fix its seed in time: the deal goes on without it",
        "seed_forfeit": "did not reveal its committed seed in time, and forfeits",
        "timeout": "ran out of time",
        "resign": "resigns",
    }
    if kind == "client_seed":
        return f"{seat} " + ("declines to add a seed" if event.get("client_seed") is None
                             else "adds its seed")
    if kind == "reveal":
        outcome = outcome_words(game, event.get("result"), players)
        return f"the server reveals the deal's seed; the match is over: {outcome}"
    return f"{seat} {words.get(str(kind), f'writes a {kind} event')}"


@cli.command()
@click.argument("match_id")
@click.option("--server", default="http://127.0.0.1:5000", show_default=True,
              envvar="FAIRDEAL_SERVER", help="The server's base URL.")
@click.option("--after", type=bounded_int(-1, 10**9), default=-1,
              help="Start after this event's number (default: from the first event).")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object a line: each event as the API gives it, with its caption; "
                   "the end of the match last.")
def watch(match_id: str, server: str, after: int, as_json: bool) -> None:
    """Print a match's events as they are played, until it ends.

    Each event is one line: its number, its time (UTC) and what happened in words. A dropped
    connection is resumed from the last event printed, so none is missed or repeated.
    """
    from fairdeal.client import ApiClient, ApiError, MatchStream

    try:
        stream = MatchStream(server, match_id, after)
        match = ApiClient(server, timeout=10).call("GET", f"/matches/{match_id}")
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--server") from None
    except ApiError as e:
        raise click.ClickException(_refused(e, match_id, server)) from None
    except OSError as e:
        raise click.ClickException(f"cannot reach {server}: {e}") from None
    game, players = str(match.get("game")), [str(name) for name in match.get("seats") or ()]
    try:
        for item in stream.follow():
            _print_item(item.kind, item.data, game, players, as_json)
    except ApiError as e:
        raise click.ClickException(_refused(e, match_id, server)) from None
    except OSError as e:
        raise click.ClickException(f"lost {server} and could not reconnect: {e}") from None


def _refused(error: Any, match_id: str, server: str) -> str:
    if error.status == 404:
        return f"{server} has no match {match_id!r}"
    return f"{server} refused: {error.message}"


def _reconnecting(data: Mapping[str, Any]) -> str:
    after = data.get("next_after")
    if data.get("reason") == "idle":  # the server closes a quiet stream: not a failure
        return f"no event for a while; listening again after event {after}"
    return f"connection lost ({data.get('reason')}); resuming after event {after}…"


def _print_item(kind: str, data: Mapping[str, Any], game: str, players: Sequence[str],
                as_json: bool) -> None:
    if kind == "reconnecting":
        click.echo(_reconnecting(data), err=True)
        return
    if as_json:
        if kind in ("event", "end"):
            click.echo(json.dumps({"kind": kind, **data}, ensure_ascii=False))
        return
    if kind == "event":
        event = data.get("event") or {}
        click.echo(f"#{event.get('seq')}  {_utc(event.get('ts'))}  "
                   f"{event_words(event, data.get('caption'), game, players)}")
    elif kind == "end":
        click.echo(f"ended: {outcome_words(game, data.get('result'), players)}")
