"""(7) the pairings check: every round re-derived from the history before it (pairing.pair_round)
and compared, table by table, with what the log says was paired (docs/tournaments.md §4).

The history is the log's own (its results, withdrawals, rulings up to the round): whether
those results are the matches' is the results check's question, asked after this one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..keys import parse_public_key, verify_signature
from ..report import counted
from .model import Round
from .pairing import pair_round, total_rounds
from .primitives import signed_message
from .report import TournamentReport, fail
from .state import TournamentState, header_points

__all__ = ["check_pairings"]


def check_pairings(report: TournamentReport, events: Sequence[Mapping[str, Any]],
                   seed: bytes) -> None:
    """Re-derive every round; the first that differs fails, naming the table."""
    header = events[0]
    state = TournamentState(dict(header))
    match_ids: set[str] = set()
    total = 0
    for event in events[1:]:
        kind = event["type"]
        if kind == "start":
            total = total_rounds(header["system"], len(event["players"]), header["rounds"])
        elif kind == "round":
            _check_round(state, event, seed, total, match_ids)
        elif kind == "withdraw":
            _check_withdrawal(state, event)
        elif kind == "reveal" and (len(state.rounds) != total or not state.round_complete()):
            raise fail("pairings", event, f"the tournament ended after "
                       f"{counted(len(state.rounds), 'round')} of its {total}, or before "
                       "every result of its last round was in")
        state.apply(event)
    report.passed("pairings", f"{counted(len(state.rounds), 'round')} of {header['system']} "
                  "re-derived from the results and the seed: identical")


def _check_round(state: TournamentState, event: Mapping[str, Any], seed: bytes, total: int,
                 match_ids: set[str]) -> None:
    number = len(state.rounds) + 1
    if event["round"] != number:
        raise fail("pairings", event, f"round {event['round']} where round {number} comes "
                   "next: rounds are paired one after the other, in order")
    if number > total:
        raise fail("pairings", event, f"this tournament plays {counted(total, 'round')}; "
                   "this is one more")
    if not state.round_complete():
        raise fail("pairings", event, f"round {number} was paired before every result of "
                   f"round {number - 1} was in: its pairings depend on them")
    header = state.header
    try:
        derived = pair_round(header["system"], state.field(seed), number, state.history(),
                             header_points(header))
    except ValueError as e:  # a result the log gives that no table could have (its winner)
        raise fail("pairings", event, f"round {number} cannot be re-derived from the log's "
                   f"results: {e}") from None
    _compare(state, event, derived)
    for pairing in event["pairings"]:
        if pairing["match_id"] in match_ids:
            raise fail("pairings", event, f"match {pairing['match_id']} is named by two "
                       "tables: every table plays its own match")
        match_ids.add(pairing["match_id"])


def _compare(state: TournamentState, event: Mapping[str, Any], derived: Round) -> None:
    """The log's round against the derived one, in words naming the players."""
    names = {r.player: f"{r.name} ({r.player})" for r in state.registrations.values()}

    def who(player: str) -> str:
        return names.get(player, f"unregistered player {player}")

    logged = event["pairings"]
    for index, (mine, theirs) in enumerate(zip(logged, derived.pairings, strict=False)):
        seats = tuple(mine["seats"])
        if mine["table"] != index + 1:
            raise fail("pairings", event, f"the tables are numbered {mine['table']} where "
                       f"{index + 1} comes next: tables are numbered from 1 in pairing order")
        if seats != theirs.seats:
            raise fail("pairings", event, f"table {index + 1} pairs {who(seats[0])} (seat 0) "
                       f"with {who(seats[1])}, but the rules and the seed pair "
                       f"{who(theirs.seats[0])} (seat 0) with {who(theirs.seats[1])}: the "
                       "pairing was changed")
    if len(logged) != len(derived.pairings):
        raise fail("pairings", event, f"the round has {counted(len(logged), 'table')}, but "
                   f"the rules pair {counted(len(derived.pairings), 'table')}")
    if tuple(event["byes"]) != derived.byes:
        given = ", ".join(map(who, event["byes"])) or "nobody"
        due = ", ".join(map(who, derived.byes)) or "nobody"
        raise fail("pairings", event, f"the bye goes to {given}, but the rules give it to "
                   f"{due}")


def _check_withdrawal(state: TournamentState, event: Mapping[str, Any]) -> None:
    """A withdrawal is the player's own (signed with its registered key) and takes effect
    from a round not yet paired."""
    registration = state.registrations.get(event["player"])
    if registration is None:
        raise fail("pairings", event, f"player {event['player']} withdraws but never "
                   "registered")
    public = parse_public_key(registration.public_key)
    if not verify_signature(public, bytes.fromhex(event["sig"]), signed_message(event)):
        raise fail("pairings", event, f"the withdrawal of {registration.name!r} is not signed "
                   "by the player's registered key: only the player can withdraw")
    if event["from_round"] <= len(state.rounds):
        raise fail("pairings", event, f"the withdrawal takes effect from round "
                   f"{event['from_round']}, which is already paired")
    if event["player"] in state.withdrawn:
        raise fail("pairings", event, f"{registration.name!r} withdraws a second time")
