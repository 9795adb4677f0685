"""The rules engine of the two-tower duel: the deal, turns, production, victory, timeouts.

Every function here takes a state and returns a new one; none changes its input. Randomness
comes only from the ``Rng`` handed in, through one sub-stream per purpose:

- ``setup``: ``"first-player"`` (one ``randbelow(2)``) and ``"deck"`` (the shuffle of ids
  1..102, or the twelve dealt draws of the infinite deck);
- ``apply`` / ``timeout``: ``"draw"`` (infinite-deck draws, ``randbelow(102) + 1`` each) and
  ``"reshuffle"`` (the discard pile's shuffle when the draw pile is empty, normal deck).

A sub-stream is only created when a draw needs it. docs/rules/arcomage.md states the rules and
every decision the seeds leave open.
"""

from __future__ import annotations

from typing import Any, Final

from ..base import IllegalAction, InvalidAction, Outcome, Rng
from .cards import CARD_BY_ID, CARDS, Battlefield
from .effects import BARRACKS, MANA, MINES, MONASTERIES, ORE, TROOPS
from .state import ACT, ACTIONS, DISCARD, HAND_SIZE, SEAT_NAMES, Action, ArcomageState, Last

__all__ = [
    "START_RESOURCES",
    "TIMEOUTS_TO_LOSE",
    "apply",
    "check",
    "current_seat",
    "legal_actions",
    "resign",
    "result",
    "setup",
    "timeout",
    "victory",
    "worst_card",
]

START_RESOURCES: Final = 5
#: this many timeouts in a row by one seat lose the match
TIMEOUTS_TO_LOSE: Final = 3
_N_CARDS: Final = len(CARDS)
# per card id: what it costs and where that resource sits in a player's block
_COST: Final[list[int]] = [0] + [card.cost for card in CARDS]
_RESOURCE: Final[list[int]] = [0] + [card.resource_index for card in CARDS]
#: the lowest cost first, then the lowest id (the seed's order): the card a timeout discards
_WORST_FIRST = {card.id: (card.cost, card.id) for card in CARDS}


class _Piles:
    """The draw and discard piles while one action resolves; streams are opened on first use."""

    __slots__ = ("_draws", "_reshuffles", "_rng", "discard_pile", "draw_pile", "infinite")

    def __init__(self, state: ArcomageState, rng: Rng) -> None:
        self.infinite = state.infinite
        self.draw_pile = state.draw_pile
        self.discard_pile = state.discard_pile
        self._rng = rng
        self._draws: Rng | None = None
        self._reshuffles: Rng | None = None

    def draw(self) -> int:
        """The next card: uniform over all 102 (infinite), else the top of the draw pile."""
        if self.infinite:
            if self._draws is None:
                self._draws = self._rng.substream("draw")
            return self._draws.randbelow(_N_CARDS) + 1
        if not self.draw_pile:
            # the discard pile holds at least 102 - 13 cards here: never empty
            if self._reshuffles is None:
                self._reshuffles = self._rng.substream("reshuffle")
            pile = list(self.discard_pile)
            self._reshuffles.shuffle(pile)
            self.draw_pile, self.discard_pile = tuple(pile), ()
        card = self.draw_pile[0]
        self.draw_pile = self.draw_pile[1:]
        return card

    def refill(self, hand: list[int]) -> None:
        """Draw until ``hand`` holds six cards."""
        need = HAND_SIZE - len(hand)
        pile = self.draw_pile
        if not self.infinite and 0 < need <= len(pile):
            # the top cards in order, as ``draw`` would take them one by one (the usual case)
            hand.extend(pile[:need])
            self.draw_pile = pile[need:]
            return
        while len(hand) < HAND_SIZE:
            hand.append(self.draw())

    def discard(self, card: int) -> None:
        """A played or discarded card goes on the discard pile (the infinite deck has none)."""
        if not self.infinite:
            self.discard_pile += (card,)


def _produce(stats: list[int], seat: int) -> None:
    base = 8 * seat
    stats[base + ORE] += stats[base + MINES]
    stats[base + MANA] += stats[base + MONASTERIES]
    stats[base + TROOPS] += stats[base + BARRACKS]


def _reason(stats: list[int] | tuple[int, ...], me: int, vt: int, vr: int) -> str | None:
    if stats[me] >= vt:
        return "tower-built"
    if stats[me + ORE] >= vr or stats[me + MANA] >= vr or stats[me + TROOPS] >= vr:
        return "resource"
    if stats[8 - me] <= 0:
        return "tower-destroyed"
    return None


_DETAIL = {
    "tower-built": "{seat}'s tower reached {tower}",
    "resource": "{seat} gathered {resource} of a resource",
    "tower-destroyed": "{other}'s tower was destroyed",
}


def victory(stats: list[int] | tuple[int, ...], battlefield: Battlefield) -> Outcome | None:
    """The outcome if a player now meets a victory condition, else None.

    A player wins when their tower reaches the battlefield's victory tower, any one of their
    resources reaches its victory resource, or the enemy tower reaches 0. If both players meet
    a condition at the same moment, the match is a draw ("simultaneous"). One winner meeting
    several conditions gets the first of tower-built, resource, tower-destroyed.
    """
    vt, vr = battlefield.victory_tower, battlefield.victory_resource
    first = _reason(stats, 0, vt, vr)
    second = _reason(stats, 8, vt, vr)
    if first is None and second is None:
        return None
    if first is not None and second is not None:
        return Outcome(None, "simultaneous", f"both players won at once (A: {first}, B: {second})")
    winner, reason = (0, first) if first is not None else (1, second)
    assert reason is not None
    detail = _DETAIL[reason].format(
        seat=SEAT_NAMES[winner], other=SEAT_NAMES[1 - winner], tower=vt, resource=vr
    )
    return Outcome(winner, reason, detail)


def _victory(stats: list[int], battlefield: Battlefield) -> Outcome | None:
    """``victory`` for the rules' own list of stats, its usual case (nobody has won) decided in
    one test on a typed list, which the compiled build reads without boxing a number."""
    vt, vr = battlefield.victory_tower, battlefield.victory_resource
    if (0 < stats[0] < vt and 0 < stats[8] < vt and stats[5] < vr and stats[6] < vr
            and stats[7] < vr and stats[13] < vr and stats[14] < vr and stats[15] < vr):
        return None
    return victory(stats, battlefield)


def setup(battlefield: Battlefield, infinite: bool, rng: Rng) -> ArcomageState:
    """The first state: the first player drawn, six cards dealt to each seat (A takes the first
    six of the shuffled deck, B the next six), and the first player's production done."""
    first = rng.substream("first-player").randbelow(2)
    deck_rng = rng.substream("deck")
    if infinite:
        dealt = [deck_rng.randbelow(_N_CARDS) + 1 for _ in range(2 * HAND_SIZE)]
        draw_pile: tuple[int, ...] = ()
    else:
        deck = list(range(1, _N_CARDS + 1))
        deck_rng.shuffle(deck)
        dealt, draw_pile = deck[: 2 * HAND_SIZE], tuple(deck[2 * HAND_SIZE :])
    block = [
        battlefield.tower,
        battlefield.wall,
        battlefield.mines,
        battlefield.monasteries,
        battlefield.barracks,
        START_RESOURCES,
        START_RESOURCES,
        START_RESOURCES,
    ]
    stats = block * 2
    _produce(stats, first)
    return ArcomageState(
        battlefield=battlefield,
        infinite=infinite,
        turn=first,
        phase=ACT,
        stats=tuple(stats),
        hands=(tuple(dealt[:HAND_SIZE]), tuple(dealt[HAND_SIZE:])),
        draw_pile=draw_pile,
        discard_pile=(),
        timeouts=(0, 0),
        last=None,
        result=_victory(stats, battlefield),
    )


def current_seat(state: Any) -> int | None:
    """The seat to act, or None once the match is over. (``state`` untyped: the game's face
    hands it on as it comes, and a wrong one fails as it does in the pure build.)"""
    seat: int | None = None if state.result is not None else state.turn
    return seat


def result(state: Any) -> Outcome | None:
    """The outcome once the match is over, else None (``state`` as in ``current_seat``)."""
    outcome: Outcome | None = state.result
    return outcome


def legal_actions(state: ArcomageState) -> list[Action]:
    """The current seat's legal actions: every affordable card played, then every card
    discarded (each distinct card once, in hand order). Only discards while one is pending."""
    if state.result is not None:
        return []
    distinct = dict.fromkeys(state.hands[state.turn])
    discards = [ACTIONS["discard", card] for card in distinct]
    if state.phase == DISCARD:
        return discards
    base = 8 * state.turn
    stats = state.stats
    plays = [
        ACTIONS["play", card] for card in distinct if _COST[card] <= stats[base + _RESOURCE[card]]
    ]
    return plays + discards


def check(state: ArcomageState, action: object) -> int:
    """The seat that may take ``action`` now; raise IllegalAction with the rules' reason.

    ``action`` may be anything (a caller's malformed input): it is refused as InvalidAction
    here, in both builds (typed ``Action``, the compiled build would raise a TypeError)."""
    if not isinstance(action, Action) or (action.kind, action.card) not in ACTIONS:
        raise InvalidAction(f"not an action of the two-tower duel: {action!r}")
    if state.result is not None:
        raise IllegalAction("match is over")
    seat = state.turn
    number = action.card
    play = action.kind == "play"
    # the card and the seat's name are looked up only to word a refusal: every move of every
    # verified match passes here
    if play and state.phase == DISCARD:
        assert state.last is not None and state.last[2] is not None
        pending = CARD_BY_ID[state.last[2]].name
        raise IllegalAction(
            f"a discard is pending after {pending}: seat {SEAT_NAMES[seat]} must discard a "
            f"card, not play {CARD_BY_ID[number].name}"
        )
    if number not in state.hands[seat]:
        card = CARD_BY_ID[number]
        raise IllegalAction(f"card {card.id} ({card.name}) is not in seat {SEAT_NAMES[seat]}'s "
                            "hand")
    if play:
        have = state.stats[8 * seat + _RESOURCE[number]]
        if have < _COST[number]:
            card = CARD_BY_ID[number]
            raise IllegalAction(
                f"cannot afford {card.name}: costs {card.cost} {card.resource}, "
                f"seat {SEAT_NAMES[seat]} has {have}"
            )
    return seat


def _build(
    state: ArcomageState,
    seat: int,
    stats: list[int],
    hand: list[int],
    piles: _Piles,
    *,
    turn: int,
    phase: int,
    timeouts: tuple[int, int],
    last: Last,
    result: Outcome | None,
) -> ArcomageState:
    hands = (tuple(hand), state.hands[1]) if seat == 0 else (state.hands[0], tuple(hand))
    # positional, in the fields' order (battlefield, infinite, turn, phase, stats, hands,
    # draw_pile, discard_pile, timeouts, last, result): half the cost of naming all eleven,
    # and every move of every verified match builds a state here
    return ArcomageState(state.battlefield, state.infinite, turn, phase, tuple(stats), hands,
                         piles.draw_pile, piles.discard_pile, timeouts, last, result)


def _end_turn(
    state: ArcomageState,
    seat: int,
    stats: list[int],
    hand: list[int],
    piles: _Piles,
    timeouts: tuple[int, int],
    last: Last,
) -> ArcomageState:
    """Pass the turn: the other seat's production, then the victory check."""
    following = 1 - seat
    _produce(stats, following)
    result = _victory(stats, state.battlefield)
    return _build(
        state,
        seat,
        stats,
        hand,
        piles,
        turn=seat if result is not None else following,
        phase=ACT,
        timeouts=timeouts,
        last=last,
        result=result,
    )


def apply(state: ArcomageState, action: object, rng: Rng) -> ArcomageState:
    """The state after the current seat takes ``action`` (checked first; see ``check``)."""
    seat = check(state, action)
    assert isinstance(action, Action)  # check refused anything else
    me = 8 * seat
    stats = list(state.stats)
    hand = list(state.hands[seat])
    hand.remove(action.card)
    piles = _Piles(state, rng)
    # a real action clears the seat's run of timeouts
    timeouts = (0, state.timeouts[1]) if seat == 0 else (state.timeouts[0], 0)
    last: Last = (seat, action.kind, action.card)
    piles.discard(action.card)
    # the seat acts again (phase), or the match ended (result): no closure over the locals
    # here, as a nested function would make every one of them a slower cell variable (the
    # verifier runs this once per move of every match it checks)
    phase = -1
    result: Outcome | None = None
    if action.kind == "play":
        card = CARD_BY_ID[action.card]
        stats[me + _RESOURCE[action.card]] -= _COST[action.card]
        card.run(stats, me, 8 - me)
        result = _victory(stats, state.battlefield)
        if result is not None:  # nothing happens after the end: no refill
            phase = ACT
        elif card.draw_discard:  # draw one now; refill only after the pending discard
            hand.append(piles.draw())
            phase = DISCARD
        else:
            piles.refill(hand)
            if card.play_again:
                phase = ACT
    else:
        piles.refill(hand)
        if state.phase == DISCARD:  # the discard Prism / Elven Scout asked for: act again
            phase = ACT
    if phase < 0:
        return _end_turn(state, seat, stats, hand, piles, timeouts, last)
    return _build(state, seat, stats, hand, piles, turn=seat, phase=phase, timeouts=timeouts,
                  last=last, result=result)


def worst_card(hand: tuple[int, ...] | list[int]) -> int:
    """The card a timeout discards: the lowest cost; on a tie, the one listed first in the
    seed (the lowest id)."""
    return min(hand, key=_WORST_FIRST.__getitem__)


def timeout(state: ArcomageState, rng: Rng) -> ArcomageState:
    """The current seat's turn timed out: its worst card is discarded and the turn ends (in a
    pending discard, that is the discard, and the play again is lost). The third timeout in a
    row by the same seat loses the match at once."""
    if state.result is not None:
        raise IllegalAction("match is over")
    seat = state.turn
    hand = list(state.hands[seat])
    card = worst_card(hand)
    hand.remove(card)
    piles = _Piles(state, rng)
    piles.discard(card)
    count = state.timeouts[seat] + 1
    timeouts = (count, state.timeouts[1]) if seat == 0 else (state.timeouts[0], count)
    last: Last = (seat, "timeout", card)
    if count >= TIMEOUTS_TO_LOSE:
        lost = Outcome(1 - seat, "timeouts", f"{SEAT_NAMES[seat]} timed out {count} times in a row")
        return _build(
            state,
            seat,
            list(state.stats),
            hand,
            piles,
            turn=seat,
            phase=ACT,
            timeouts=timeouts,
            last=last,
            result=lost,
        )
    piles.refill(hand)
    return _end_turn(state, seat, list(state.stats), hand, piles, timeouts, last)


def resign(state: ArcomageState, seat: int) -> ArcomageState:
    """``seat`` resigns (at any moment, on either seat's turn): the other seat wins."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise InvalidAction(f"seat must be 0 or 1, got {seat!r}")
    if state.result is not None:
        raise IllegalAction("match is over")
    return ArcomageState(
        battlefield=state.battlefield,
        infinite=state.infinite,
        turn=seat,
        phase=state.phase,
        stats=state.stats,
        hands=state.hands,
        draw_pile=state.draw_pile,
        discard_pile=state.discard_pile,
        timeouts=state.timeouts,
        last=(seat, "resign", None),
        result=Outcome(1 - seat, "resigned", f"{SEAT_NAMES[seat]} resigned"),
    )
