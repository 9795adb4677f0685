"""Tournaments driven through the real ledger by players that sign with their keys, and their
matches played with the games' own ``legal_actions`` (no client/: the ledger's tests must not
import it). What tests/ledger/test_tournaments*.py and tests/web/api/test_tournaments*.py use.

    created, players = registered(ledger, 4)            # a round-robin, 4 players registered
    play_round(ledger, created["id"], players)          # every match of the round sealed
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal.ledger.service import Ledger
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import seat_message
from fairdeal.verifier.tournament.primitives import signed_message

ARBITER = SigningKey.from_seed(b"\x44" * 32)


@dataclass
class Player:
    """A registered player: its key, key id and player token."""

    name: str
    key: SigningKey
    player: str = ""
    token: str = ""


def signed(ledger: Ledger, tournament_id: str, key: SigningKey, kind: str,
           fields: Mapping[str, Any], player: str | None = None) -> dict[str, Any]:
    """The body of a signed request: ``fields`` with ``expected_seq`` and ``sig`` over the
    event they make at the head (with ``player``, which the server adds, when given)."""
    now = ledger.tournament(tournament_id)
    event = {"seq": now["next_seq"], "prev": now["head"], "type": kind, **fields}
    if player is not None:
        event["player"] = player
    return {**fields, "expected_seq": now["next_seq"],
            "sig": key.sign(signed_message(event)).hex()}


def register(ledger: Ledger, tournament_id: str, player: Player) -> dict[str, Any]:
    fields = {"public_key": player.key.public_text, "name": player.name,
              "entropy": secrets.token_hex(32)}
    body = signed(ledger, tournament_id, player.key, "register", fields, player.key.key_id)
    answer = ledger.register_player(tournament_id, body)
    player.player, player.token = answer["player"], answer["player_token"]
    return answer


def registered(ledger: Ledger, count: int, **fields: Any) -> tuple[dict[str, Any], list[Player]]:
    """A tournament created with ``fields`` (a round-robin of arcomage by default) and
    ``count`` players registered."""
    created = ledger.create_tournament(**{
        "name": "club night", "game": "arcomage", "system": "round-robin", "rounds": 1,
        "arbiter_key": ARBITER.public_text, "turn_limit_ms": None, **fields})
    players = [Player(f"bot {index}", SigningKey.from_seed(bytes([index + 1]) * 32))
               for index in range(count)]
    for player in players:
        register(ledger, created["id"], player)
    return created, players


def _seat_fields(ledger: Ledger, match_id: str, token: str, seat: int, key: SigningKey,
                 kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    view = ledger.seat_view(match_id, token)
    draft = {"seq": view["next_seq"], "prev": view["head"], "type": kind, "seat": seat,
             **fields}
    return {"expected_seq": view["next_seq"], "sig": key.sign(seat_message(draft)).hex()}


def play_match(ledger: Ledger, match_id: str, seats: Sequence[Player], moves: int = 6,
               loser: int = 1) -> None:
    """Both seats decline their seeds (signed; unless play has started), play up to
    ``moves`` legal moves between them (the first legal action each time), then seat
    ``loser`` resigns: the match is sealed."""
    for seat, player in enumerate(seats):
        if ledger.seat_view(match_id, player.token)["started"]:
            break  # the seeds are in already (a game begun elsewhere)
        ledger.add_seed(match_id, player.token, None, **_seat_fields(
            ledger, match_id, player.token, seat, player.key, "client_seed",
            {"client_seed": None}))
    for number in range(moves):
        view = ledger.seat_view(match_id, seats[0].token)
        seat = view["current_seat"]
        if seat is None or view["status"] != "playing":
            break
        player = seats[seat]
        legal = ledger.seat_view(match_id, player.token)["legal_actions"]
        fields = {"action": legal[0], "action_id": f"m{number}", "client_ts": ledger.clock()}
        extra = _seat_fields(ledger, match_id, player.token, seat, player.key, "move", fields)
        ledger.play(match_id, player.token, legal[0], expected_seq=extra["expected_seq"],
                    action_id=fields["action_id"], client_ts=fields["client_ts"],
                    sig=extra["sig"])
    if ledger.get_match(match_id)["status"] != "ended":
        player = seats[loser]
        fields = {"client_ts": ledger.clock()}
        extra = _seat_fields(ledger, match_id, player.token, loser, player.key, "resign",
                             fields)
        ledger.resign(match_id, player.token, client_ts=fields["client_ts"], **extra)


def play_round(ledger: Ledger, tournament_id: str, players: Sequence[Player],
               moves: int = 4) -> list[dict[str, Any]]:
    """Play every match of the current round (seat 1 resigns each); its pairings."""
    by_id = {player.player: player for player in players}
    current = ledger.tournament(tournament_id)["rounds"][-1]
    for pairing in current["pairings"]:
        play_match(ledger, pairing["match_id"], [by_id[s] for s in pairing["seats"]], moves)
    return list(current["pairings"])
