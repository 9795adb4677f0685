"""The replayer: feeds a match's events one at a time through the protocol's and the rules'
checks. The verifier replays a sealed bundle with it; the ledger validates every append with the
very same code, so what the ledger writes is what the verifier checks.

Events are assumed well-formed (bundle.validate_event) and already chain-checked by the caller;
the replayer checks their meaning and raises VerificationError naming the check and the event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from fairdeal.games import Game, Outcome, RulesError, TurnTimer, get_rules

from .influence import SeatSeed, deal_influence
from .protocol import (
    EVENT_TYPES,
    PLAY_TYPES,
    deal_seed,
    ply_stream,
    rules_hash,
    setup_stream,
    utc_time,
)
from .report import VerificationError
from .seating import SEATING_TYPES, Seating

__all__ = ["MatchReplayer", "Step", "load_game", "replay_steps"]

_rules_hash_cache: Final[dict[tuple[str, str], str]] = {}


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
    the rules' own (a whole turn's, where a game fixes it); VerificationError if they refuse it."""
    try:
        return game.turn_timer(genesis["params"], genesis["turn_limit_ms"])
    except RulesError as e:
        raise VerificationError("rules", f"turn limit: {e}", 0) from None


class MatchReplayer:
    """The state of one match, advanced event by event.

    ``server_seed`` is known to the server during play and to everyone after the reveal;
    without it (a spectator before the reveal) only the protocol checks run and ``state`` stays
    None. With ``keep_states`` the state after every event is kept, so a viewer can step back.
    ``seat_pins`` maps a seat index to the Ed25519 key its player is known to hold: a pin is a
    requirement (docs/SPEC.md §9, verifier/seating.py).

    The lifecycle (docs/SPEC.md §4, §6) is enforced for every event type: the genesis first;
    then, per seat, its key and its seed events; the commitments (fairdeal/2) before any seed is
    revealed; play only once every seed is fixed; nothing but the one reveal after the end, and
    nothing after the reveal. The seating phase — keys, pins, seeds, their deadlines and the
    seats' signatures — is its `Seating` (``seating``); the replayer deals once the seating is
    complete, then checks the plays, their deadlines and the result.
    """

    def __init__(
        self,
        genesis: Mapping[str, Any],
        server_seed: bytes | None,
        *,
        keep_states: bool = False,
        seat_pins: Mapping[int, bytes] | None = None,
    ) -> None:
        self.genesis = genesis
        self.protocol: str = genesis["protocol"]
        self.game = load_game(genesis)
        self.seating = Seating(genesis, self.game)
        self.v2 = self.seating.v2
        self.server_seed = server_seed
        self.seats = len(genesis["seats"])
        self.timer = turn_timer(self.game, genesis)
        self.turn_limit_ms: int | None = self.timer.limit_ms
        #: under a per-turn timer: whose turn the last play was in, and when that turn began
        self.turn_seat: int | None = None
        self.turn_began_ts: int = genesis["ts"]
        self.pin(seat_pins or {})
        self.deal: bytes | None = None
        self.started = False
        self.ended = False
        self.revealed = False
        self.state: Any = None
        #: the state the deal set up (states are never changed: keeping it costs nothing)
        self.dealt: Any = None
        self.ply = 0
        self.last_ts: int = genesis["ts"]
        self.last_seq = 0
        self.keep_states = keep_states
        self.states: list[Any] = [None] if keep_states else []
        self.outcome: Outcome | None = None

    def pin(self, seat_pins: Mapping[int, bytes]) -> None:
        """Pin players' keys by seat index, before any event is fed."""
        self.seating.pin(seat_pins)

    def check_genesis(self) -> None:
        """What the genesis alone decides, for a verifier (the ledger replays matches it made
        itself and skips this): a pin needs a protocol whose seeds are signed, and a
        fairdeal/2 seating window is at least MIN_SEATING_MS. Call after ``pin``, before any
        event is fed; raises VerificationError at event 0."""
        self.seating.check_genesis()

    # --- the seating, as the seating has it ---------------------------------------------------

    @property
    def seating_ms(self) -> int | None:
        """fairdeal/2: how long the seats have to fix their seeds (the genesis says)."""
        return self.seating.seating_ms

    @property
    def client_seeds(self) -> list[str | None]:
        """Each seat's client seed once known (None: declined, expired, or not yet shown)."""
        return self.seating.client_seeds

    @property
    def seeded(self) -> list[bool]:
        """Whether each seat's seed is fixed: committed, sent, declined or expired."""
        return self.seating.seeded

    @property
    def seat_keys(self) -> list[bytes | None]:
        """The Ed25519 key each seat registered, if it did."""
        return self.seating.seat_keys

    @property
    def seat_seeds(self) -> list[SeatSeed]:
        """What each seat did about its seed (verifier.influence)."""
        return self.seating.seat_seeds

    @property
    def commitments(self) -> list[str | None]:
        """fairdeal/2: each seat's seed commitment, once made."""
        return self.seating.commitments

    @property
    def seat_pins(self) -> dict[int, bytes]:
        """The players' keys pinned by seat index."""
        return self.seating.seat_pins

    @property
    def commits_closed_ts(self) -> int | None:
        """fairdeal/2: when every seat's seed was fixed (the reveals' deadline counts from it)."""
        return self.seating.commits_closed_ts

    @property
    def seating_deadline(self) -> int | None:
        """fairdeal/2: until when seats may commit (or send, or decline) their seeds."""
        return self.seating.seating_deadline

    @property
    def reveal_deadline(self) -> int | None:
        """fairdeal/2: until when committed seats may reveal (None before every seed is fixed)."""
        return self.seating.reveal_deadline

    @property
    def revealing(self) -> bool:
        """fairdeal/2: every seed is fixed, and some committed seat has yet to reveal."""
        return (self.commits_closed_ts is not None and not self.started and not self.ended
                and any(seed.how == "committed" for seed in self.seat_seeds))

    def seat_name(self, seat: int) -> str:
        return self.seating.seat_name(seat)

    # --- helpers ---------------------------------------------------------------------------

    def _seat(self, event: Mapping[str, Any]) -> int:
        seat: int = event["seat"]
        if seat >= self.seats:
            raise VerificationError(
                "moves", f"seat {seat} does not exist (the match has {self.seats} seats)",
                event["seq"])
        return seat

    def _check_playable(self, event: Mapping[str, Any], seat: int) -> None:
        seq = event["seq"]
        if self.ended:
            raise VerificationError("moves", f"a {event['type']} after the match ended", seq)
        if not self.started:
            seating = self.seating
            missing = [self.game.seat_names[i] for i in range(self.seats)
                       if not seating.seeded[i] or seating.seat_seeds[i].how == "committed"]
            raise VerificationError(
                "timing", f"a {event['type']} before every seat's seed was in (missing: "
                f"{', '.join(missing)})", seq)
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
        if self.revealed:
            raise VerificationError(
                "timing", f"a {kind} after the reveal: the server seed is revealed once, in "
                "the last event" + (" (a second reveal)" if kind == "reveal" else ""), seq)
        if self.ended and kind != "reveal":
            raise VerificationError("moves", f"a {kind} event after the match ended", seq)
        ts = event["ts"]
        if ts < self.last_ts:
            raise VerificationError(
                "timers", f"the clock runs backwards: this event is stamped {utc_time(ts)}, "
                f"{self.last_ts - ts} ms before the event before it", seq)
        handler = _HANDLERS.get("_on_" + kind)
        if handler is None:  # the genesis has no handler: it came first, or it is a second one
            raise VerificationError("chain", f"a second {kind} event", seq)
        handler(self, event)
        self.last_ts = ts
        self.last_seq = seq
        if self.keep_states:
            self.states.append(self.state)

    def _on_seating(self, event: Mapping[str, Any]) -> None:
        """A key or seed event, checked by the seating; then the deal once every seed is in,
        or the end of a match a seat forfeited."""
        forfeit = self.seating.feed(event, self._seat(event))
        if forfeit is not None:
            self.outcome = forfeit
            self.ended = True
        elif self.seating.complete and not self.started:
            self._start(event["seq"])

    def _start(self, seq: int) -> None:
        self.started = True
        if self.server_seed is None:
            return
        self.deal = deal_seed(self.server_seed, self.genesis["match_id"],
                              self.seating.client_seeds)
        try:
            self.state = self.game.setup(self.genesis["params"], setup_stream(self.deal))
        except RulesError as e:
            raise VerificationError("deal", f"the deal could not be set up: {e}", seq) from None
        self.dealt = self.state

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
        # once per play of every match: locals rather than attribute lookups
        deal, state, ply = self.deal, self.state, self.ply
        self.ply = ply + 1
        if state is None or deal is None:
            return
        rng = ply_stream(deal, ply)
        game = self.game
        kind = event["type"]
        try:
            if kind == "move":
                state = game.apply(state, game.parse_action(event["action"]), rng)
            elif kind == "timeout":
                state = game.timeout(state, rng)
            else:
                state = game.resign(state, seat)
        except RulesError as e:
            raise VerificationError("moves", f"{self.seat_name(seat)}: {e}",
                                    event["seq"]) from None
        self.state = state
        outcome = self.outcome = game.result(state)
        if outcome is not None:
            self.ended = True

    def _on_move(self, event: Mapping[str, Any]) -> None:
        # most events of every match: the usual case (a seat that exists, in play, on its
        # turn; unsigned, or signed and checked) is decided inline, and only an event that
        # may fail goes through the checks, which also word the failure
        seat: int = event["seat"]
        state = self.state
        if (seat >= self.seats or self.ended or not self.started
                or (state is not None and self.game.current_seat(state) != seat)):
            seat = self._seat(event)
            self._check_playable(event, seat)
        self._check_deadline(event)
        seating = self.seating
        if (seating.seat_keys[seat] is not None or "sig" in event or "client_ts" in event
                or seat in seating.seat_pins):
            seating.check_signature(event, seat)
        self._advance(event, seat)

    def _on_timeout(self, event: Mapping[str, Any]) -> None:
        seat = self._seat(event)
        self._check_playable(event, seat)
        self._check_deadline(event)
        self._advance(event, seat)

    def _on_resign(self, event: Mapping[str, Any]) -> None:
        seat = self._seat(event)
        self._check_playable(event, seat)
        self.seating.check_signature(event, seat)
        self._advance(event, seat)

    def _on_reveal(self, event: Mapping[str, Any]) -> None:
        seq = event["seq"]
        if self.seating.seat_pins:
            self.seating.check_pins_kept(seq)
        if not self.ended and (self.state is not None or not self.started):
            raise VerificationError(
                "result", "the seed was revealed before the match was over", seq)
        if self.outcome is not None:
            declared = Outcome.from_json(event["result"])
            if (declared.winner, declared.reason) != (self.outcome.winner, self.outcome.reason):
                raise VerificationError(
                    "result", f"the match declares {_words(declared, self)}, but the moves "
                    f"produce {_words(self.outcome, self)}", seq)
        self.ended = True
        self.revealed = True

    @property
    def plies(self) -> int:
        """How many state changes (moves, timeouts, resignations) so far."""
        return self.ply

    def deal_influence(self, reveal_seq: int) -> dict[str, Any]:
        """Who could have chosen this match's deal (verifier.influence)."""
        return deal_influence(self.protocol, self.seating.seat_seeds, self.game.seat_names,
                              reveal_seq=reveal_seq)


#: each event type's handler by its method's name (the genesis has none: it is read when the
#: replayer is made; the seating's events all go to the seating): a dictionary lookup per
#: event instead of getattr on the instance
_HANDLERS: Final[dict[str, Callable[[MatchReplayer, Mapping[str, Any]], None]]] = {
    "_on_" + kind: MatchReplayer._on_seating if kind in SEATING_TYPES
    else getattr(MatchReplayer, "_on_" + kind) for kind in EVENT_TYPES if kind != "genesis"
}


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
        if event["type"] not in PLAY_TYPES and replayer.started and not steps \
                and replayer.state is not None:
            steps.append(Step(0, event["seq"], event, replayer.state))
        elif event["type"] in PLAY_TYPES and replayer.state is not None:
            steps.append(Step(replayer.plies, event["seq"], event, replayer.state))
    return replayer, steps, error
