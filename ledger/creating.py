"""Creating a match: the request checked field by field, the server seed drawn and committed
to, the seat tokens issued, and the genesis stored with its transparency-log leaf.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal.games import Game, RulesError, get_game
from fairdeal.verifier.bundle import InvalidBundle
from fairdeal.verifier.canonical import CanonicalError, canonical_bytes
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.logleaf import genesis_leaf
from fairdeal.verifier.protocol import MIN_SEATING_MS, PROTOCOL
from fairdeal.verifier.record import make_genesis

from .answers import JsonAnswer
from .errors import BadRequest
from .live import token_hash
from .names import check_name
from .store import EventStore, StoredEvent

__all__ = ["DEFAULT_SEED_DEADLINE_MS", "DEFAULT_TURN_LIMIT_MS", "CreatedMatch", "MatchCreator",
           "SeatToken"]

DEFAULT_TURN_LIMIT_MS = 60_000
#: how long seats have to add or decline their seeds when the match has no turn limit
DEFAULT_SEED_DEADLINE_MS = 300_000
#: the longest turn limit and seating window a match may ask for (a day)
_LONGEST_MS = 86_400_000


@dataclass(frozen=True)
class SeatToken:
    """One seat of a new match, with the token that opens it (given out once, never kept)."""

    seat: int
    name: str
    token: str


@dataclass(frozen=True, eq=False)
class CreatedMatch(JsonAnswer):
    """What ``create_match`` answers. Its JSON form (``to_json``) is what the API returns;
    it also reads as that JSON (``created["id"]``, ``created["seats"][0]["token"]``), so the
    callers written against the answer's JSON read it unchanged."""

    id: str
    game: str
    params: Mapping[str, Any]
    commitment: str
    turn_limit_ms: int | None
    seed_deadline_ms: int
    server_key_id: str
    next_seq: int
    seats: tuple[SeatToken, ...]

    def to_json(self) -> dict[str, Any]:
        """The API's answer, key for key as it always was."""
        return {
            "id": self.id, "game": self.game, "params": self.params,
            "commitment": self.commitment, "turn_limit_ms": self.turn_limit_ms,
            "seed_deadline_ms": self.seed_deadline_ms, "server_key_id": self.server_key_id,
            "next_seq": self.next_seq,
            "seats": [{"seat": seat.seat, "name": seat.name, "token": seat.token}
                      for seat in self.seats],
        }


class MatchCreator:
    """Creates matches: checks the request, deals the server seed, stores the genesis."""

    def __init__(self, store: EventStore, server_key: SigningKey,
                 clock: Callable[[], int]) -> None:
        self.store = store
        self.server_key = server_key
        self.clock = clock

    def create_match(self, game: str, params: Mapping[str, Any] | None = None, *,
                     turn_limit_ms: int | None = DEFAULT_TURN_LIMIT_MS,
                     seats: Sequence[str] | None = None,
                     seed_deadline_ms: int | None = None,
                     protocol: str = PROTOCOL) -> CreatedMatch:
        """Create a match (see ``Ledger.create_match``)."""
        rules = _rules(game)
        params = _checked_params(rules, params, turn_limit_ms)
        seed_deadline_ms = _seating_window(seed_deadline_ms, turn_limit_ms)
        names = _seat_names(rules, seats)
        server_seed = secrets.token_bytes(32)
        match_id = secrets.token_hex(8)
        created = self.clock()
        try:
            genesis = make_genesis(game_name=game, params=params, seats=names,
                                   match_id=match_id, server_seed=server_seed,
                                   server_key_id=self.server_key.key_id,
                                   turn_limit_ms=turn_limit_ms, ts=created,
                                   seating_ms=seed_deadline_ms, protocol=protocol)
        except (RulesError, InvalidBundle, CanonicalError) as e:
            raise BadRequest(str(e), code="invalid-params") from None
        tokens = [secrets.token_urlsafe(32) for _ in names]
        row = {
            "id": match_id, "game": genesis["game"],
            "params": canonical_bytes(genesis["params"]).decode(),
            "turn_limit_ms": turn_limit_ms, "created_ms": created, "status": "seating",
            "seat_names": json.dumps(names),
            "token_hashes": json.dumps([token_hash(token) for token in tokens]),
            "server_seed": server_seed.hex(), "commitment": genesis["commitment"],
            "next_seq": 1, "deadline_ms": created + seed_deadline_ms,
        }
        # the genesis joins the transparency log in the same transaction: a match created and
        # never finished stays visible
        self.store.create_match(row, [StoredEvent.of(genesis)], log_leaf=genesis_leaf(genesis))
        return CreatedMatch(
            match_id, genesis["game"], genesis["params"], genesis["commitment"], turn_limit_ms,
            created + seed_deadline_ms, self.server_key.key_id, 1,
            tuple(SeatToken(index, name, token)
                  for index, (name, token) in enumerate(zip(names, tokens, strict=True))))


def _rules(game: str) -> Game:
    try:
        return get_game(game)
    except RulesError as e:
        raise BadRequest(str(e), code="unknown-game") from None


def _checked_params(rules: Game, params: Mapping[str, Any] | None,
                    turn_limit_ms: int | None) -> Mapping[str, Any]:
    """The match's parameters as given (``{}`` for none), once the rules accept them and the
    turn limit with them."""
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise BadRequest("params must be an object", code="invalid-params")
    if turn_limit_ms is not None and (
            not isinstance(turn_limit_ms, int) or isinstance(turn_limit_ms, bool)
            or not 1 <= turn_limit_ms <= _LONGEST_MS):
        raise BadRequest("turn_limit_ms must be an integer from 1 to 86400000, or null",
                         code="invalid-turn-limit")
    try:
        normal = rules.normalize_params(params)
    except RulesError as e:
        raise BadRequest(str(e), code="invalid-params") from None
    try:  # a game may fix the limit itself (e.g. 60 s for the whole turn)
        rules.turn_timer(normal, turn_limit_ms)
    except RulesError as e:
        raise BadRequest(str(e), code="invalid-turn-limit") from None
    return params


def _seating_window(seed_deadline_ms: int | None, turn_limit_ms: int | None) -> int:
    """How long seats have to fix their seeds: as asked, else the turn limit but at least
    MIN_SEATING_MS, else DEFAULT_SEED_DEADLINE_MS; never below MIN_SEATING_MS."""
    if seed_deadline_ms is None:  # a short turn limit never makes a window below the minimum
        seed_deadline_ms = (max(turn_limit_ms, MIN_SEATING_MS) if turn_limit_ms
                            else DEFAULT_SEED_DEADLINE_MS)
    if (not isinstance(seed_deadline_ms, int) or isinstance(seed_deadline_ms, bool)
            or not MIN_SEATING_MS <= seed_deadline_ms <= _LONGEST_MS):
        raise BadRequest(
            f"seed_deadline_ms must be an integer from {MIN_SEATING_MS} to 86400000: the "
            f"protocol's shortest seating window is {MIN_SEATING_MS} ms, so that every "
            "player has the time to commit to a seed", code="invalid-seed-deadline")
    return seed_deadline_ms


def _seat_names(rules: Game, seats: Sequence[str] | None) -> list[str]:
    """The players' names, one per seat (``player A``… by default), each a name the ledger
    accepts (names.check_name)."""
    if seats is None:
        seats = [f"player {name}" for name in rules.seat_names]
    if (not isinstance(seats, Sequence) or len(seats) != len(rules.seat_names)
            or not all(isinstance(name, str) and 0 < len(name) <= 80 for name in seats)):
        raise BadRequest(f"seats must be {len(rules.seat_names)} names of 1 to 80 "
                         "characters", code="invalid-seats")
    for index, name in enumerate(seats):
        check_name(name, f"the name of seat {rules.seat_names[index]}")
    return list(seats)
