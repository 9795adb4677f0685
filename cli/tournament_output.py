"""What ``fairdeal tournament`` prints, and the choices it makes from a tournament as the server
shows it (the player's latest match, the oldest open dispute, a ruling's decision): pure
functions of the API's answers, so they are tested without a server."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import click

from fairdeal.verifier.protocol import utc_time

__all__ = ["created_lines", "decision_of", "latest_match_of", "open_dispute", "print_list",
           "print_status", "standings_lines", "window_words"]


def created_lines(created: Mapping[str, Any], token_file: str | None,
                  server: str) -> Iterator[str]:
    """What ``create`` says: the id, the commitment, where the organiser token went."""
    header = created.get("header") or {}
    site = server.rstrip("/").removesuffix("/api/v1")
    yield (f"created: {created['id']}  {header.get('name', '')!r}, {header.get('system')} of "
           f"{header.get('rounds')} round(s), {header.get('game')}  {site}/t/{created['id']}")
    yield f"commitment to the tournament seed: {created.get('commitment')}"
    if token_file:
        yield f"organiser token saved to {token_file}"
    else:
        yield f"organiser token (shown once; keep it): {created['organiser_token']}"


def print_list(page: Mapping[str, Any]) -> None:
    """One line per tournament, then how to get the next page."""
    found = page.get("tournaments") or []
    if not found:
        click.echo("no tournaments")
    for item in found:
        click.echo(f"{item['id']}  {item['status']:<11} {item['system']:<11} {item['game']:<10}"
                   f" round {item.get('round') or 0}/{item.get('rounds')}  "
                   f"{item.get('players')} players  {item['name']!r}")
    if page.get("next_cursor"):
        click.echo(f"more: fairdeal tournament list --cursor {page['next_cursor']}")


def _result_words(result: Mapping[str, Any] | None, names: Mapping[str, str]) -> str:
    if result is None:
        return "in play"
    outcome = result.get("outcome")
    winner = result.get("winner")
    if outcome == "double-forfeit":
        return "double forfeit"
    if winner is None:
        return "draw"
    won = f"{names.get(winner, winner)} won"
    return won + (" by forfeit" if outcome == "forfeit" else "")


#: what each tie-break's integer counts (verifier/tournament/standings.py): shown in points
_UNITS = {"buchholz": 2, "median-buchholz": 2, "sonneborn-berger": 4, "direct-encounter": 2,
          "wins": 1}


def window_words(until: int, open_disputes: list[int]) -> str:
    """What an ``auto`` tournament whose every round is played waits for before the server
    finishes it (docs/tournaments.md §8): the end of the last round's dispute window, and
    the arbiter's ruling on any open dispute.
    """
    if not open_disputes:
        return (f"waiting for disputes until {utc_time(until)}: every round is played; the "
                "server finishes the tournament then")
    numbers = ", ".join(str(number) for number in open_disputes)
    which = "dispute" if len(open_disputes) == 1 else "disputes"
    return (f"waiting for the arbiter's ruling on {which} {numbers}: the server finishes the "
            f"tournament once {'it is' if len(open_disputes) == 1 else 'they are'} ruled "
            f"(disputes were open until {utc_time(until)})")


def standings_lines(standings: list[Mapping[str, Any]], tiebreaks: list[str],
                    names: Mapping[str, str]) -> Iterator[str]:
    """The standings as a table: rank, player, score and each tie-break in the header's
    order, in points as organisers count them (the log keeps half-points, Sonneborn-Berger
    quarter-points, so that every number is an integer)."""
    yield "  rank  player            score  " + "  ".join(tiebreaks)
    for row in standings:
        score = row["score"] / 2
        breaks = "  ".join(f"{value / _UNITS.get(name, 1):>{len(name)}g}" for value, name
                           in zip(row.get("tiebreaks") or [], tiebreaks, strict=False))
        name = row.get("name") or names.get(row["player"], row["player"])
        yield f"  {row['rank']:>4}  {name[:16]:<16}  {score:>5g}  {breaks}"


def print_status(shown: Mapping[str, Any], server: str) -> None:
    """The tournament: header line, players, rounds with every pairing's match and result,
    disputes with their rulings, and the standings."""
    header = shown.get("header") or {}
    site = server.rstrip("/").removesuffix("/api/v1")
    names = {player["player"]: player["name"] for player in shown.get("players") or []}
    rounds = shown.get("rounds") or []
    total = shown.get("total_rounds") or header.get("rounds")
    click.echo(f"{shown['id']}  {shown.get('name')!r}  {shown['status']}  "
               f"{header.get('system')} {header.get('game')}, round {len(rounds)}/{total}"
               f"  {site}/t/{shown['id']}")
    if shown.get("disputes_until") is not None:
        click.echo(window_words(int(shown["disputes_until"]), [
            item["dispute"] for item in shown.get("disputes") or [] if not item.get("ruling")]))
    click.echo(f"players ({len(names)}): " + ", ".join(
        f"{name} ({player})" for player, name in names.items()))
    for round_ in rounds:
        click.echo(f"round {round_['round']}:")
        for pairing in round_.get("pairings") or []:
            seats = " vs ".join(names.get(seat, seat) for seat in pairing["seats"])
            click.echo(f"  table {pairing['table']}: {seats}  match {pairing.get('match_id')}"
                       f"  {_result_words(pairing.get('result'), names)}")
        for bye in round_.get("byes") or []:
            click.echo(f"  bye: {names.get(bye, bye)}")
    for item in shown.get("disputes") or []:
        ruling = item.get("ruling")
        decision = (ruling.get("decision") or {}).get("kind") if ruling else None
        click.echo(f"dispute {item['dispute']} by {names.get(item['player'], item['player'])} "
                   f"on match {item['match_id']} step {item['step']}: "
                   f"{decision or 'awaiting a ruling'}")
    if shown.get("standings"):
        click.echo("standings:")
        for line in standings_lines(shown["standings"], header.get("tiebreaks") or [], names):
            click.echo(line)


def latest_match_of(shown: Mapping[str, Any], player: str) -> str:
    """The newest match with a result that ``player`` played (what ``dispute`` disputes when
    no ``--match`` is given); a click error when it has played none yet."""
    for round_ in reversed(shown.get("rounds") or []):
        for pairing in round_.get("pairings") or []:
            result = pairing.get("result")
            if player in pairing["seats"] and result is not None \
                    and result.get("outcome", "match") == "match":
                return str(result.get("match_id") or pairing["match_id"])
    raise click.ClickException(f"player {player} has no ended match in {shown.get('id')} "
                               "to dispute yet")


def open_dispute(shown: Mapping[str, Any]) -> int:
    """The oldest dispute without a ruling (what ``rule`` rules on without ``--dispute``)."""
    for item in shown.get("disputes") or []:
        if item.get("ruling") is None:
            return int(item["dispute"])
    raise click.ClickException(f"{shown.get('id')} has no dispute awaiting a ruling")


def decision_of(kind: str, winner: str | None, player: str | None,
                points: int | None) -> dict[str, Any]:
    """A ruling's ``decision`` (docs/tournaments.md §2) from ``rule``'s options; a usage error
    naming the option a kind needs, or one it does not take."""
    given = {"--winner": winner, "--player": player, "--points": points}
    needs = {"result-changed": ("--winner",), "penalty": ("--player", "--points")}.get(kind, ())
    for option, value in given.items():
        if value is None and option in needs:
            raise click.UsageError(f"--decision {kind} needs {option}")
        if value is not None and option not in needs:
            raise click.UsageError(f"--decision {kind} takes no {option}")
    decision: dict[str, Any] = {"kind": kind}
    if kind == "result-changed":
        decision["winner"] = None if str(winner).lower() == "draw" else winner
    if kind == "penalty":
        decision.update(player=player, points=points)
    return decision
