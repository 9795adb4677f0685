"""The replayer: feeds a match's events one at a time through the protocol's and the rules'
checks. The verifier replays a sealed bundle with it; the ledger validates every append with the
very same code, so what the ledger writes is what the verifier checks.

Events are assumed well-formed (bundle.validate_event) and already chain-checked by the caller;
the replayer checks their meaning and raises VerificationError naming the check and the event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairdeal.games import Game, Outcome, RulesError, TurnTimer, get_rules

from .keys import parse_public_key, verify_signature
from .protocol import (
    PLAY_TYPES,
    deal_seed,
    move_message,
    ply_stream,
    rules_hash,
    setup_stream,
)
from .report import VerificationError

__all__ = ["MatchReplayer", "Step", "load_game", "replay_steps"]

_rules_hash_cache: dict[tuple[str, str], str] = {}


def load_game(genesis: Mapping[str, Any]) -> Game:
    """The game a genesis event names, under the rules version it names (any the registry can
    replay, old or new), checked against its data hash, seats, params and turn limit."""
    try:
        game = get_rules(genesis["game"], genesis["rules_version"])
    except RulesError as e:
        raise VerificationError(
            "rules", f"the match was played under rules {genesis['rules_version']!r}: {e}",
            0) from None
    key = (game.name, game.rules_version)
    expected = _rules_hash_cache.get(key)
    if expected is None:
        expected = _rules_hash_cache[key] = rules_hash(game.rules_data())
    if genesis["rules_hash"] != expected:
        raise VerificationError(
            "rules",
            f"the rules data hash {genesis['rules_hash'][:16]}… is not the hash of "
            f"{game.rules_version} ({expected[:16]}…): the card or board data differ",
            0,
        )
    if len(genesis["seats"]) != len(game.seat_names):
        raise VerificationError(
            "rules", f"{game.title} has {len(game.seat_names)} seats, the match lists "
            f"{len(genesis['seats'])}", 0)
    try:
        normalized = game.normalize_params(genesis["params"])
    except RulesError as e:
        raise VerificationError("rules", f"parameters: {e}", 0) from None
    if normalized != genesis["params"]:
        raise VerificationError(
            "rules", f"parameters {genesis['params']!r} are not in their normal form "
            f"{normalized!r}", 0)
    turn_timer(game, genesis)
    return game


def turn_timer(game: Game, genesis: Mapping[str, Any]) -> TurnTimer:
    """The deadline the rules set for the match: the header's ``turn_limit_ms`` per action, or
    the rules' own (a whole turn's, under wyrdstone/2); VerificationError if they refuse it."""
    try:
        return game.turn_timer(genesis["params"], genesis["turn_limit_ms"])
    except RulesError as e:
        raise VerificationError("rules", f"turn limit: {e}", 0) from None


class MatchReplayer:
    """The state of one match, advanced event by event.

    ``server_seed`` is known to the server during play and to everyone after the reveal;
    without it (a spectator before the reveal) only the protocol checks run and ``state`` stays
    None. With ``keep_states`` the state after every event is kept, so a viewer can step back.
    """

    def __init__(
        self,
        genesis: Mapping[str, Any],
        server_seed: bytes | None,
        *,
        keep_states: bool = False,
    ) -> None:
        self.genesis = genesis
        self.game = load_game(genesis)
        self.server_seed = server_seed
        self.seats = len(genesis["seats"])
        self.timer = turn_timer(self.game, genesis)
        self.turn_limit_ms: int | None = self.timer.limit_ms
        #: under a per-turn timer: whose turn the last play was in, and when that turn began
        self.turn_seat: int | None = None
        self.turn_began_ts: int = genesis["ts"]
        self.client_seeds: list[str | None] = [None] * self.seats
        self.seeded = [False] * self.seats
        self.seat_keys: list[bytes | None] = [None] * self.seats
        self.deal: bytes | None = None
        self.started = False
        self.ended = False
        self.state: Any = None
        self.ply = 0
        self.last_ts: int = genesis["ts"]
        self.last_seq = 0
        self.keep_states = keep_states
        self.states: list[Any] = [None] if keep_states else []
        self.outcome: Outcome | None = None

    # --- helpers ---------------------------------------------------------------------------

    def _seat(self, event: Mapping[str, Any]) -> int:
        seat: int = event["seat"]
        if seat >= self.seats:
            raise VerificationError(
                "moves", f"seat {seat} does not exist (the match has {self.seats} seats)",
                event["seq"])
        return seat

    def seat_name(self, seat: int) -> str:
        return f"seat {self.game.seat_names[seat]} ({self.genesis['seats'][seat]['name']})"

    def _check_signature(self, event: Mapping[str, Any], seat: int) -> None:
        key = self.seat_keys[seat]
        if key is None:
            if "sig" in event:
                raise VerificationError(
                    "move-signatures", f"{self.seat_name(seat)} registered no key, yet the "
                    "event carries a signature", event["seq"])
            return
        if "sig" not in event:
            raise VerificationError(
                "move-signatures", f"{self.seat_name(seat)} registered a key but this "
                f"{event['type']} is not signed by it", event["seq"])
        if not verify_signature(key, bytes.fromhex(event["sig"]), move_message(event)):
            raise VerificationError(
                "move-signatures", f"the signature on this {event['type']} is not "
                f"{self.seat_name(seat)}'s: the event was altered or forged", event["seq"])

    def _check_playable(self, event: Mapping[str, Any], seat: int) -> None:
        seq = event["seq"]
        if self.ended:
            raise VerificationError("moves", f"a {event['type']} after the match ended", seq)
        if not self.started:
            missing = [self.game.seat_names[i] for i in range(self.seats) if not self.seeded[i]]
            raise VerificationError(
                "timing", f"a {event['type']} before every seat added or declined its client "
                f"seed (missing: {', '.join(missing)})", seq)
        if self.state is not None and event["type"] != "resign":
            current = self.game.current_seat(self.state)
            if current != seat:
                who = "nobody" if current is None else self.seat_name(current)
                raise VerificationError(
                    "moves", f"{self.seat_name(seat)} acted, but it was {who}'s turn", seq)

    # --- the events --------------------------------------------------------------------------

    def feed(self, event: Mapping[str, Any]) -> None:
        """Check one event (after the genesis) and advance; raise VerificationError."""
        seq = event["seq"]
        kind = event["type"]
        if self.ended and kind != "reveal":
            raise VerificationError("moves", f"a {kind} event after the match ended", seq)
        if event["ts"] < self.last_ts:
            raise VerificationError(
                "timers", f"the clock runs backwards: this event is stamped {event['ts']}, "
                f"{self.last_ts - event['ts']} ms before the event before it", seq)
        handler = getattr(self, "_on_" + kind, None)
        if handler is None or kind == "genesis":
            raise VerificationError("chain", f"a second {kind} event", seq)
        handler(event)
        self.last_ts = event["ts"]
        self.last_seq = seq
        if self.keep_states:
            self.states.append(self.state)

    def _on_seat_key(self, event: Mapping[str, Any]) -> None:
        seat = self._seat(event)
        if self.started:
            raise VerificationError(
                "timing", f"{self.seat_name(seat)} registered a key after play began",
                event["seq"])
        if self.seat_keys[seat] is not None:
            raise VerificationError(
                "moves", f"{self.seat_name(seat)} registered a second key", event["seq"])
        self.seat_keys[seat] = parse_public_key(event["public_key"])

    def _on_client_seed(self, event: Mapping[str, Any]) -> None:
        seat = self._seat(event)
        seq = event["seq"]
        if self.started:
            raise VerificationError(
                "timing", f"{self.seat_name(seat)}'s client seed came after the deal was "
                "fixed", seq)
        if self.seeded[seat]:
            raise VerificationError(
                "timing", f"{self.seat_name(seat)} added a second client seed", seq)
        self.seeded[seat] = True
        self.client_seeds[seat] = event["client_seed"]
        if all(self.seeded):
            self._start(seq)

    def _start(self, seq: int) -> None:
        self.started = True
        if self.server_seed is None:
            return
        self.deal = deal_seed(self.server_seed, self.genesis["match_id"], self.client_seeds)
        try:
            self.state = self.game.setup(self.genesis["params"], setup_stream(self.deal))
        except RulesError as e:
            raise VerificationError("deal", f"the deal could not be set up: {e}", seq) from None

    def turn_began(self, seat: int | None) -> int:
        """When ``seat``'s deadline started counting: the previous event's ``ts`` under a
        per-action timer; under a per-turn one the ``ts`` of the event that handed ``seat`` the
        turn, i.e. of the last event that was not a play of ``seat``'s (docs/SPEC.md, 6)."""
        if self.timer.per_turn and seat is not None and seat == self.turn_seat:
            return self.turn_began_ts
        return self.last_ts

    def deadline_ms(self) -> int | None:
        """When the seat to act times out (None: no limit, or no play due). The ledger writes
        timeouts at this moment."""
        limit = self.turn_limit_ms
        if limit is None or not self.started or self.ended or self.outcome is not None:
            return None
        seat = self.game.current_seat(self.state) if self.state is not None else None
        return self.turn_began(seat) + limit

    def _check_deadline(self, event: Mapping[str, Any]) -> None:
        limit = self.turn_limit_ms
        began = self.turn_began(event["seat"])
        elapsed = event["ts"] - began
        if event["type"] == "timeout":
            if limit is None:
                raise VerificationError(
                    "timers", "a timeout in a match without a turn limit", event["seq"])
            if elapsed < limit:
                raise VerificationError(
                    "timers", f"a timeout written {elapsed} ms into the turn, before its "
                    f"{limit} ms limit ran out (a forged timeout)", event["seq"])
        elif limit is not None and event["type"] == "move" and elapsed > limit:
            raise VerificationError(
                "timers", f"the move came {elapsed} ms into the turn, after its {limit} ms "
                "limit: a timeout should have been recorded instead", event["seq"])
        # the turn this play belongs to (a later play of the same seat continues it)
        self.turn_seat, self.turn_began_ts = event["seat"], began

    def _advance(self, event: Mapping[str, Any], seat: int) -> None:
        seq = event["seq"]
        kind = event["type"]
        rng = ply_stream(self.deal, self.ply) if self.deal is not None else None
        self.ply += 1
        if self.state is None or rng is None:
            return
        game = self.game
        try:
            if kind == "move":
                action = game.parse_action(event["action"])
                self.state = game.apply(self.state, action, rng)
            elif kind == "timeout":
                self.state = game.timeout(self.state, rng)
            else:
                self.state = game.resign(self.state, seat)
        except RulesError as e:
            raise VerificationError("moves", f"{self.seat_name(seat)}: {e}", seq) from None
        self.outcome = game.result(self.state)
        if self.outcome is not None:
            self.ended = True

    def _on_move(self, event: Mapping[str, Any]) -> None:
        seat = self._seat(event)
        self._check_playable(event, seat)
        self._check_deadline(event)
        self._check_signature(event, seat)
        self._advance(event, seat)

    def _on_timeout(self, event: Mapping[str, Any]) -> None:
        seat = self._seat(event)
        self._check_playable(event, seat)
        self._check_deadline(event)
        self._advance(event, seat)

    def _on_resign(self, event: Mapping[str, Any]) -> None:
        seat = self._seat(event)
        self._check_playable(event, seat)
        self._check_signature(event, seat)
        self._advance(event, seat)

    def _on_reveal(self, event: Mapping[str, Any]) -> None:
        seq = event["seq"]
        if self.state is not None and not self.ended:
            raise VerificationError(
                "result", "the seed was revealed before the match was over", seq)
        if self.outcome is not None:
            declared = Outcome.from_json(event["result"])
            if (declared.winner, declared.reason) != (self.outcome.winner, self.outcome.reason):
                raise VerificationError(
                    "result", f"the match declares {_words(declared, self)}, but the moves "
                    f"produce {_words(self.outcome, self)}", seq)
        self.ended = True

    @property
    def plies(self) -> int:
        """How many state changes (moves, timeouts, resignations) so far."""
        return self.ply


def _words(outcome: Outcome, replayer: MatchReplayer) -> str:
    if outcome.winner is None:
        return f"a draw ({outcome.reason})"
    if outcome.winner >= replayer.seats:
        return f"a win for a seat that does not exist ({outcome.reason})"
    return f"a win for {replayer.seat_name(outcome.winner)} ({outcome.reason})"


class Step:
    """One moment of a match: step 0 is the deal, step k the state after the k-th play."""

    __slots__ = ("number", "seq", "event", "state")

    def __init__(self, number: int, seq: int, event: Mapping[str, Any] | None,
                 state: Any) -> None:
        self.number = number
        self.seq = seq
        self.event = event
        self.state = state


def replay_steps(
    events: list[dict[str, Any]], server_seed: bytes
) -> tuple[MatchReplayer, list[Step], VerificationError | None]:
    """Every step of a match, kept as snapshots so any step is at hand without a replay.

    Replays as far as the events allow: on a rules failure it returns the steps up to it and
    the error, so a viewer can still show the match up to the event that breaks it.
    """
    replayer = MatchReplayer(events[0], server_seed)
    steps: list[Step] = []
    error: VerificationError | None = None
    for event in events[1:]:
        try:
            replayer.feed(event)
        except VerificationError as e:
            error = e
            break
        if event["type"] == "client_seed" and replayer.started and replayer.state is not None:
            steps.append(Step(0, event["seq"], event, replayer.state))
        elif event["type"] in PLAY_TYPES and replayer.state is not None:
            steps.append(Step(replayer.plies, event["seq"], event, replayer.state))
    return replayer, steps, error
