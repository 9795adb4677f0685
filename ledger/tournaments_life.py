"""A tournament's lifecycle on the server (docs/tournaments.md, api.md): create, register,
start, pair each round (creating its matches in the same transaction), withdraw.

Every event goes through ``TournamentCore.append``: stamped with the server clock (never
decreasing), chained to the head, stored at the position the caller expects. Events a party
signs (``register``, ``withdraw``, and in ledger.tournaments_results ``dispute`` and
``ruling``) are drafted at the ``expected_seq`` the client signed and checked against its
signature over ``primitives.signed_message`` before anything is stored; the server's own
events are drafted at the head and retried when another writer moved it.
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fairdeal.verifier.keys import (
    InvalidKey,
    SigningKey,
    key_id,
    parse_public_key,
    verify_signature,
)
from fairdeal.verifier.logleaf import tournament_leaf
from fairdeal.verifier.tournament.events import InvalidTournament, validate_event
from fairdeal.verifier.tournament.pairing import pair_round, total_rounds
from fairdeal.verifier.tournament.primitives import event_hash, field_hash, signed_message

from .errors import BadRequest, ConflictError, Forbidden, Unauthorized
from .live import token_hash
from .names import check_name
from .store import EventStore
from .tournaments import Extra, TournamentStore, insert_player
from .tournaments_create import draft_tournament
from .tournaments_matches import insert_matches, new_match
from .tournaments_state import TournamentState, points_of

__all__ = ["TournamentCore", "TournamentLife"]

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEX128 = re.compile(r"^[0-9a-f]{128}$")
#: how often a server event is drafted again when another writer moved the head meanwhile
_RETRIES = 8


def check_signature(event: Mapping[str, Any], public_key: str, sig: Any, who: str) -> None:
    """``sig`` is ``public_key``'s Ed25519 signature of ``signed_message(event)``."""
    if not isinstance(sig, str) or not _HEX128.match(sig):
        raise BadRequest("sig must be 128 hex digits (an Ed25519 signature)",
                         code="bad-signature")
    if not verify_signature(parse_public_key(public_key), bytes.fromhex(sig),
                            signed_message(event)):
        raise BadRequest(f"sig is not {who}'s signature of this event at seq {event['seq']} "
                         "(sign primitives.signed_message of {seq, prev, type, …fields})",
                         code="bad-signature")


def position(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadRequest("expected_seq must be the tournament's next_seq (an integer)",
                         code="invalid-expected-seq")
    return value


class TournamentCore:
    """What every tournament action shares: the state from the log, the parties' tokens, and
    the one append."""

    def __init__(self, tstore: TournamentStore, store: EventStore, server_key: SigningKey,
                 clock: Callable[[], int]) -> None:
        self.tstore = tstore
        self.store = store
        self.server_key = server_key
        self.clock = clock
        #: one writer per tournament in this process (others: the store's position check)
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def lock(self, tournament_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(tournament_id, threading.Lock())

    def load(self, tournament_id: str) -> tuple[dict[str, Any], list[dict[str, Any]],
                                                TournamentState]:
        row = self.tstore.row(tournament_id)
        events = self.tstore.events(tournament_id)
        return row, events, TournamentState.of(events)

    def organiser(self, row: Mapping[str, Any], token: str | None) -> None:
        if token is None:
            raise Unauthorized("this needs the organiser token: send 'Authorization: Bearer "
                               "<token>'")
        if not hmac.compare_digest(token_hash(token), row["organiser_hash"]):
            raise Forbidden("this token is not the organiser's of this tournament")

    def player(self, tournament_id: str, token: str | None) -> str:
        if token is None:
            raise Unauthorized("this needs a player token: send 'Authorization: Bearer "
                               "<token>'")
        player = self.tstore.player_by_token(tournament_id, token_hash(token))
        if player is None:
            raise Forbidden("this token is no player's of this tournament")
        return player

    def stamp(self, events: Sequence[Mapping[str, Any]]) -> int:
        """The server clock, never before the last event's ``ts``."""
        return max(self.clock(), events[-1]["ts"])

    def draft(self, row: Mapping[str, Any], events: Sequence[Mapping[str, Any]], kind: str,
              seq: int | None = None, **fields: Any) -> dict[str, Any]:
        """The next event (``ts`` added last, after any signature check)."""
        return {"seq": row["next_seq"] if seq is None else seq, "prev": row["head"],
                "type": kind, **fields}

    def append(self, tournament_id: str, events: Sequence[dict[str, Any]],
               update_row: Mapping[str, Any] | None = None, extra: Extra | None = None,
               leaf_kind: str | None = None, leaf_number: int = 0) -> None:
        """Stamp ``events`` and store them at their seq (ConflictError ``stale-seq`` when
        the position was taken)."""
        stored = self.tstore.events(tournament_id, events[0]["seq"] - 2)
        now = self.stamp(stored) if stored else self.clock()
        chained: list[dict[str, Any]] = []
        for event in events:
            if chained:
                event["seq"], event["prev"] = chained[-1]["seq"] + 1, event_hash(chained[-1])
            event["ts"] = now
            chained.append(event)
        try:  # the verifier's shape check, before anything is stored
            for event in chained:
                validate_event(event, event["seq"])
        except InvalidTournament as e:
            raise BadRequest(f"the verifier would refuse this event: {e}",
                             code="invalid-event") from None
        leaf = None
        if leaf_kind is not None:
            leaf = (leaf_kind, tournament_leaf(leaf_kind, tournament_id,
                                               event_hash(chained[-1]), leaf_number))
        self.tstore.append(tournament_id, chained[0]["seq"], chained, update_row, extra, leaf)

    def server_write(self, tournament_id: str,
                     write: Callable[[dict[str, Any], list[dict[str, Any]], TournamentState],
                                     Any]) -> Any:
        """Run ``write`` on the fresh state, again if another writer moved the head."""
        with self.lock(tournament_id):
            for attempt in range(_RETRIES):
                row, events, state = self.load(tournament_id)
                try:
                    return write(row, events, state)
                except ConflictError as e:
                    if e.code != "stale-seq" or attempt == _RETRIES - 1:
                        raise
        raise AssertionError("unreachable")


class TournamentLife:
    """Create, register, start, pair, withdraw (over the shared ``TournamentCore``)."""

    def __init__(self, core: TournamentCore) -> None:
        self.core = core

    def create(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(fields, Mapping):
            raise BadRequest("the tournament must be an object", code="invalid-json")
        row, header, leaf, token = draft_tournament(fields, self.core.server_key.key_id,
                                                    self.core.clock())
        self.core.tstore.create(row, header, leaf)
        return {"id": row["id"], "commitment": header["commitment"],
                "organiser_token": token, "header": header, "next_seq": 1,
                "head": row["head"]}

    def register(self, tournament_id: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(fields) - {"public_key", "name", "entropy", "expected_seq", "sig"})
        if unknown:
            raise BadRequest(f"unexpected field {unknown[0]!r}", code="unknown-field")
        public_key, name, entropy = (fields.get("public_key"), fields.get("name"),
                                     fields.get("entropy"))
        try:
            player = key_id(parse_public_key(public_key if isinstance(public_key, str) else ""))
        except InvalidKey as e:
            raise BadRequest(f"public_key: {e}", code="invalid-public-key") from None
        if not isinstance(name, str) or not 0 < len(name) <= 80:
            raise BadRequest("name must be 1 to 80 characters", code="invalid-name")
        check_name(name, "the player's name")
        if not isinstance(entropy, str) or not _HEX64.match(entropy):
            raise BadRequest("entropy must be 64 lowercase hex digits", code="invalid-entropy")
        seq = position(fields.get("expected_seq"))
        token = secrets.token_urlsafe(32)
        with self.core.lock(tournament_id):
            row, events, state = self.core.load(tournament_id)
            if state.started is not None:
                raise ConflictError("registration is closed: the tournament has started",
                                    code="registration-closed")
            if seq != row["next_seq"]:
                raise ConflictError(f"expected_seq {seq} is stale: the next is "
                                    f"{row['next_seq']}", code="stale-seq",
                                    next_seq=row["next_seq"])
            if player in state.players:
                raise ConflictError(f"key {player} is registered already",
                                    code="already-registered")
            if len(state.players) >= state.header["max_players"]:
                raise ConflictError(f"the tournament is full ({state.header['max_players']} "
                                    "players)", code="tournament-full")
            event = self.core.draft(row, events, "register", seq, player=player,
                               public_key=public_key, name=name, entropy=entropy)
            check_signature(event, str(public_key), fields.get("sig"), "the registering key")
            event["sig"] = fields["sig"]
            self.core.append(tournament_id, [event],
                        extra=insert_player(tournament_id, player, token_hash(token)))
        return {"player": player, "player_token": token, "event": event}

    def start(self, tournament_id: str, token: str | None,
              pair: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
        self.core.organiser(self.core.tstore.row(tournament_id), token)

        def write(row: dict[str, Any], events: list[dict[str, Any]],
                  state: TournamentState) -> dict[str, Any]:
            if state.started is not None:
                raise ConflictError("the tournament has started already", code="started")
            # every registrant: withdrawals come after the start (docs §2's order)
            players = [(event["player"], event["entropy"]) for event in state.registrations]
            if len(players) < 2:
                raise ConflictError(f"a tournament needs 2 players or more; it has "
                                    f"{len(players)}", code="too-few-players")
            header = state.header
            if header["system"] == "swiss" and header["rounds"] > len(players) - 1:
                raise ConflictError(f"a Swiss of {len(players)} players can play at most "
                                    f"{len(players) - 1} rounds without a rematch, not "
                                    f"{header['rounds']}", code="too-many-rounds")
            event = self.core.draft(row, events, "start",
                               players=[player for player, _ in players],
                               field=field_hash(players))
            self.core.append(tournament_id, [event], {"status": "running"})
            return event

        event = self.core.server_write(tournament_id, write)
        answer: dict[str, Any] = {"event": event}
        if self.core.tstore.row(tournament_id)["auto"]:
            answer["round"] = pair(tournament_id)["event"]
        return answer

    def pair_next(self, tournament_id: str) -> dict[str, Any]:
        """Pair the next round and create its matches (the organiser's word, or auto)."""
        def write(row: dict[str, Any], events: list[dict[str, Any]],
                  state: TournamentState) -> dict[str, Any]:
            if state.started is None:
                raise ConflictError("the tournament has not started", code="not-started")
            if not state.round_complete():
                raise ConflictError(f"round {state.rounds[-1]['round']} is not complete",
                                    code="round-not-complete")
            header = state.header
            number = len(state.rounds) + 1
            if number > total_rounds(header["system"], len(state.started["players"]),
                                     header["rounds"]) or state.revealed is not None:
                raise ConflictError("every round has been played", code="tournament-over")
            try:
                paired = pair_round(header["system"], state.field(bytes.fromhex(row["seed"])),
                                    number, state.history(), points_of(header))
            except (ValueError, NotImplementedError) as e:
                raise ConflictError(f"round {number} cannot be paired: {e}",
                                    code="pairing-impossible") from None
            return self._store_round(tournament_id, row, events, state, paired)

        return {"event": self.core.server_write(tournament_id, write)}

    def _store_round(self, tournament_id: str, row: dict[str, Any],
                     events: list[dict[str, Any]], state: TournamentState,
                     paired: Any) -> dict[str, Any]:
        registered = state.players
        hashes = self.core.tstore.token_hashes(tournament_id)
        now = self.core.stamp(events)
        drafted = [new_match(state.header, [registered[seat] for seat in pairing.seats],
                             [hashes[seat] for seat in pairing.seats],
                             self.core.server_key.key_id, now) for pairing in paired.pairings]
        pairings = [{"table": pairing.table, "seats": list(pairing.seats),
                     "match_id": match.match_id}
                    for pairing, match in zip(paired.pairings, drafted, strict=True)]
        event = self.core.draft(row, events, "round", round=paired.number, pairings=pairings,
                           byes=list(paired.byes))
        self.core.append(tournament_id, [event], extra=lambda conn: insert_matches(conn, drafted),
                    leaf_kind="tournament-round", leaf_number=paired.number)
        return event

    def withdraw(self, tournament_id: str, token: str | None,
                 fields: Mapping[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(fields) - {"from_round", "expected_seq", "sig"})
        if unknown:
            raise BadRequest(f"unexpected field {unknown[0]!r}", code="unknown-field")
        player = self.core.player(tournament_id, token)
        seq = position(fields.get("expected_seq"))
        from_round = fields.get("from_round")
        if isinstance(from_round, bool) or not isinstance(from_round, int) or from_round < 1:
            raise BadRequest("from_round must be a round number (from 1)",
                             code="invalid-round")
        with self.core.lock(tournament_id):
            row, events, state = self.core.load(tournament_id)
            if state.started is None:
                raise ConflictError("the tournament has not started: a player who will not "
                                    "play asks the organiser before the start (registration "
                                    "cannot be undone in the log)", code="not-started")
            if player in state.withdrawn:
                raise ConflictError("this player has withdrawn already", code="withdrawn")
            if state.revealed is not None:
                raise ConflictError("the tournament is over", code="tournament-over")
            self._check_from_round(state, player, from_round)
            if seq != row["next_seq"]:
                raise ConflictError(f"expected_seq {seq} is stale: the next is "
                                    f"{row['next_seq']}", code="stale-seq",
                                    next_seq=row["next_seq"])
            event = self.core.draft(row, events, "withdraw", seq, player=player,
                               from_round=from_round)
            check_signature(event, state.players[player]["public_key"], fields.get("sig"),
                            "the player")
            event["sig"] = fields["sig"]
            self.core.append(tournament_id, [event])
        return {"event": event}

    def _check_from_round(self, state: TournamentState, player: str, from_round: int) -> None:
        """A player withdraws from a round not paired yet (docs §2: ``from_round`` is the first
        round it is not paired in). Withdrawing from the next round while the current one's
        game has had no move forfeits that game (ledger.tournaments_results)."""
        current = len(state.rounds)
        if from_round <= current:
            raise BadRequest(f"from_round must be {current + 1} or later: round {from_round} "
                             "is paired already (play its game, resign it, or withdraw from "
                             f"round {current + 1} to forfeit it before its first move)",
                             code="invalid-round")


def has_moves(store: EventStore, match_id: str) -> bool:
    """Whether a match has had its first move (or a resignation): after it, a withdrawn
    player's game is played out, not forfeited."""
    return any(event.type in ("move", "resign") for event in store.read(match_id))
