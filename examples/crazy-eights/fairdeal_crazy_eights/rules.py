"""The rules engine of Crazy Eights: the deal, plays, draws, the stock running out, the end.

Every function here takes a state and returns a new one; none changes its input. Randomness
comes only from the ``Rng`` handed in, through one sub-stream per purpose:

- ``setup``: ``"first-player"`` (one ``randbelow(2)``) and ``"deck"`` (the shuffle of the 52
  cards in the canonical order of cards.CARDS);
- ``apply`` / ``timeout``: ``"reshuffle"`` (the discard pile under its top card, shuffled into
  a new stock when a draw finds the stock empty), opened only when a draw needs it.

RULES.md states the rules and every decision the traditional game leaves open.
"""

from __future__ import annotations

from dataclasses import replace

from fairdeal.games import IllegalAction, InvalidAction, Outcome, Rng

from .cards import CARDS, EIGHT, POINTS, SUITS, card_name, rank_of, suit_of
from .state import DRAW, PASS, SEAT_NAMES, Action, CrazyEightsState, Last

__all__ = ["HAND_SIZE", "TIMEOUTS_TO_LOSE", "TURN_CAP", "apply", "can_draw", "check",
           "legal_actions", "matches", "points", "resign", "setup", "timeout"]

#: cards dealt to each seat (the traditional two-player deal)
HAND_SIZE = 7
#: this many turns in all end the match on points
TURN_CAP = 200
#: this many timeouts in a row by one seat lose the match
TIMEOUTS_TO_LOSE = 3


def setup(reshuffle: bool, rng: Rng) -> CrazyEightsState:
    """The first state: the first player drawn; A takes the first seven cards of the shuffled
    deck, B the next seven; the next card is the starter, and while it is an eight it is
    buried (put under the stock) and the next one turned."""
    first = rng.substream("first-player").randbelow(2)
    deck = list(CARDS)
    rng.substream("deck").shuffle(deck)
    rest = deck[2 * HAND_SIZE:]
    buried: list[str] = []
    while rank_of(rest[0]) == EIGHT:
        buried.append(rest.pop(0))
    starter = rest.pop(0)
    return CrazyEightsState(
        reshuffle=reshuffle, turn=first,
        hands=(tuple(deck[:HAND_SIZE]), tuple(deck[HAND_SIZE:2 * HAND_SIZE])),
        stock=tuple(rest + buried), discard=(starter,), suit=suit_of(starter), drawn=None,
        buried=tuple(buried), turns=0, stuck=0, timeouts=(0, 0), last=None, result=None)


def matches(state: CrazyEightsState, card: str) -> bool:
    """Whether ``card`` may go on the discard pile now: an eight always; else the suit to
    follow or the top card's rank."""
    rank = rank_of(card)
    return rank == EIGHT or suit_of(card) == state.suit or rank == rank_of(state.discard[-1])


def can_draw(state: CrazyEightsState) -> bool:
    """Whether a card can be drawn: from the stock, or (reshuffle rule) from the discard pile
    under its top card."""
    return bool(state.stock) or (state.reshuffle and len(state.discard) > 1)


def _plays(state: CrazyEightsState, cards: tuple[str, ...]) -> list[Action]:
    plays: list[Action] = []
    for card in dict.fromkeys(cards):
        if not matches(state, card):
            continue
        if rank_of(card) == EIGHT:
            plays.extend(Action("play", card, suit) for suit in SUITS)
        else:
            plays.append(Action("play", card))
    return plays


def legal_actions(state: CrazyEightsState) -> list[Action]:
    """The current seat's legal actions: every matching card played (an eight once per suit
    it may name), then drawing, then passing. After a draw: the drawn card, if it matches, or
    pass. A seat passes without drawing only when it can neither play nor draw."""
    if state.result is not None:
        return []
    if state.drawn is not None:
        return [*_plays(state, (state.drawn,)), PASS]
    plays = _plays(state, state.hands[state.turn])
    if can_draw(state):
        return [*plays, DRAW]
    return plays or [PASS]


def check(state: CrazyEightsState, action: Action) -> None:
    """Raise IllegalAction with the rules' reason unless the current seat may take
    ``action`` now (InvalidAction if it is no action of this game)."""
    if not isinstance(action, Action):
        raise InvalidAction(f"not an action of crazy eights: {action!r}")
    if state.result is not None:
        raise IllegalAction("match is over")
    name = SEAT_NAMES[state.turn]
    if action.kind == "play":
        assert action.card is not None
        if action.card not in state.hands[state.turn]:
            raise IllegalAction(f"{card_name(action.card)} is not in seat {name}'s hand")
        if state.drawn is not None and action.card != state.drawn:
            raise IllegalAction(f"seat {name} drew a card: it may play only that card, or pass")
        if not matches(state, action.card):
            raise IllegalAction(f"{card_name(action.card)} matches neither the suit to follow "
                                f"({state.suit}) nor the rank of {card_name(state.discard[-1])}")
    elif action.kind == "draw":
        if state.drawn is not None:
            raise IllegalAction(f"seat {name} has drawn already this turn")
        if not can_draw(state):
            raise IllegalAction("there is no card left to draw")
    elif state.drawn is None and (can_draw(state) or _plays(state, state.hands[state.turn])):
        raise IllegalAction(f"seat {name} may pass only after drawing, or when it can neither "
                            f"play nor draw")


def points(hand: tuple[str, ...]) -> int:
    """What the cards left in a hand count against it (cards.POINTS)."""
    return sum(POINTS[card] for card in hand)


def _on_points(state: CrazyEightsState, reason: str) -> Outcome:
    """The outcome of a blocked or capped match: fewer points in hand wins; equal, a draw."""
    a, b = points(state.hands[0]), points(state.hands[1])
    detail = f"A holds {a} points, B {b}"
    return Outcome(None if a == b else (0 if a < b else 1), reason, detail)


def _end_turn(state: CrazyEightsState, stuck: int, timeouts: tuple[int, int]
              ) -> CrazyEightsState:
    """Pass the turn to the other seat, unless the game is now blocked or at its cap."""
    turns = state.turns + 1
    ended = replace(state, drawn=None, turns=turns, stuck=stuck, timeouts=timeouts)
    if stuck >= 2:
        return replace(ended, result=_on_points(ended, "blocked"))
    if turns >= TURN_CAP:
        return replace(ended, result=_on_points(ended, "turn-cap"))
    return replace(ended, turn=1 - state.turn)


def _with_hand(state: CrazyEightsState, hand: tuple[str, ...]
               ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (hand, state.hands[1]) if state.turn == 0 else (state.hands[0], hand)


def _draw(state: CrazyEightsState, rng: Rng) -> tuple[str, CrazyEightsState]:
    """The next card of the stock, into the current seat's hand; an empty stock is first
    rebuilt from the discard pile under its top card, shuffled."""
    stock, discard = state.stock, state.discard
    if not stock:
        pile = list(discard[:-1])
        rng.substream("reshuffle").shuffle(pile)
        stock, discard = tuple(pile), discard[-1:]
    card = stock[0]
    hand = (*state.hands[state.turn], card)
    drawn = replace(state, hands=_with_hand(state, hand), stock=stock[1:], discard=discard)
    return card, drawn


def _cleared(state: CrazyEightsState) -> tuple[int, int]:
    """The timeouts after a real action: the seat's run of timeouts is over."""
    return (0, state.timeouts[1]) if state.turn == 0 else (state.timeouts[0], 0)


def _play(state: CrazyEightsState, action: Action) -> CrazyEightsState:
    assert action.card is not None
    seat = state.turn
    hand = list(state.hands[seat])
    hand.remove(action.card)
    last: Last = (seat, "play", action.card, action.suit)
    played = replace(state, hands=_with_hand(state, tuple(hand)),
                     discard=(*state.discard, action.card),
                     suit=action.suit or suit_of(action.card), last=last)
    if not hand:
        out = Outcome(seat, "out", f"{SEAT_NAMES[seat]} played their last card")
        return replace(played, drawn=None, timeouts=_cleared(state), result=out)
    return _end_turn(played, 0, _cleared(state))


def apply(state: CrazyEightsState, action: Action, rng: Rng) -> CrazyEightsState:
    """The state after the current seat takes ``action`` (checked first; see ``check``)."""
    check(state, action)
    if action.kind == "play":
        return _play(state, action)
    if action.kind == "draw":
        card, drawn = _draw(state, rng)
        return replace(drawn, drawn=card, stuck=0, timeouts=_cleared(state),
                       last=(state.turn, "draw", None, None))
    passed = replace(state, last=(state.turn, "pass", None, None))
    return _end_turn(passed, 0 if state.drawn is not None else state.stuck + 1,
                     _cleared(state))


def timeout(state: CrazyEightsState, rng: Rng) -> CrazyEightsState:
    """The current seat's turn timed out: it draws a card if it has not drawn yet and one can
    be drawn, and the turn passes. The third timeout in a row by the same seat loses."""
    if state.result is not None:
        raise IllegalAction("match is over")
    seat = state.turn
    count = state.timeouts[seat] + 1
    timeouts = (count, state.timeouts[1]) if seat == 0 else (state.timeouts[0], count)
    after = replace(state, last=(seat, "timeout", None, None))
    if count >= TIMEOUTS_TO_LOSE:
        lost = Outcome(1 - seat, "timeouts", f"{SEAT_NAMES[seat]} timed out {count} times in a row")
        return replace(after, drawn=None, timeouts=timeouts, result=lost)
    stuck = state.stuck
    if state.drawn is None and can_draw(state):
        _, after = _draw(after, rng)
        stuck = 0
    return _end_turn(after, stuck, timeouts)


def resign(state: CrazyEightsState, seat: int) -> CrazyEightsState:
    """``seat`` resigns (at any moment, on either seat's turn): the other seat wins."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise InvalidAction(f"seat must be 0 or 1, got {seat!r}")
    if state.result is not None:
        raise IllegalAction("match is over")
    return replace(state, turn=seat, drawn=None, last=(seat, "resign", None, None),
                   result=Outcome(1 - seat, "resigned", f"{SEAT_NAMES[seat]} resigned"))
