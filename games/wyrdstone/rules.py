"""The rules of the Wyrdstone duel: the start, legal actions, checking and applying them,
timeouts and resignation. Every function returns a new state and never changes its input.

Randomness comes only from the ``Rng`` handed in, one sub-stream per purpose, opened only when
a rule draws: ``"first-player"`` (setup: one ``randbelow(2)``), ``"start"`` (random picks at
the start of a turn), ``"rune"``, ``"cast"`` and ``"combat"`` (random picks of a rune, a
scroll, and abilities fired during the attacks).
"""

from __future__ import annotations

from collections.abc import Callable

from ..base import IllegalAction, InvalidAction, Outcome, Rng
from .book import ELEMENT_NAMES, ELEMENTS, RUNE_BY_ID, SCROLL_BY_ID, Scroll
from .engine import DRAW_TURN, Duel, DuelOver
from .state import HEALTH, SEAT_NAMES, SKIP, SLOTS, Action, Creature, Last, Loadout, WyrdState
from .versions import RuleSet

__all__ = ["START_ENERGY", "SCHOOL_ENERGY", "apply", "cast", "check", "legal_actions", "resign",
           "setup", "timeout"]

#: each mage starts with 7 energy in its school's element and 4 in each other (23 in all)
SCHOOL_ENERGY, START_ENERGY = 7, 4


def _settle(duel: Duel, last: Last | None, resolve: Callable[[], Outcome | None]) -> WyrdState:
    """Run ``resolve`` on ``duel`` and freeze the result; a mage who falls under defeat at
    zero stops the sequence at that blow (``DuelOver``) and ends the duel there."""
    try:
        result = resolve()
    except DuelOver as over:
        result = over.outcome
        duel.bury()
    return duel.freeze(last, result)


def setup(loadouts: tuple[Loadout, Loadout], training: bool, rng: Rng,
          rules: RuleSet) -> WyrdState:
    """The first state: the first player drawn, the tavern effects (wyrdstone/2), then the
    start of turn 1 resolved."""
    first = rng.substream("first-player").randbelow(2)
    energy = tuple(
        SCHOOL_ENERGY if element == loadouts[seat].element else START_ENERGY
        for seat in (0, 1)
        for element in ELEMENTS
    )
    blank = WyrdState(
        loadouts=loadouts,
        training=training,
        turn=1,
        seat=first,
        health=(HEALTH, HEALTH),
        energy=energy,
        board=(None,) * (2 * SLOTS),
        belts=(loadouts[0].runes, loadouts[1].runes),
        rune_used=False,
        last=None,
        last_cast=None,
        result=None,
        rules=rules,
    )
    duel = Duel(blank, rng)

    def begin() -> Outcome | None:
        duel.duel_start()
        duel.start_turn()
        return duel.outcome()

    return _settle(duel, None, begin)


def _affordable(state: WyrdState, seat: int, scroll: Scroll) -> bool:
    base = 5 * seat
    return all(state.energy[base + ELEMENTS.index(element)] >= amount
               for element, amount in scroll.cost)


def _slots(state: WyrdState, seat: int, scroll: Scroll) -> list[int | None]:
    """The slots ``scroll`` may name for ``seat`` now."""
    if scroll.kind == "creature":
        return [n for n in range(1, SLOTS + 1) if state.creature(seat, n) is None]
    if not scroll.target:
        return [None]
    side = 1 - seat if scroll.target == "enemy-creature" else seat
    return [n for n in range(1, SLOTS + 1) if state.creature(side, n) is not None]


def legal_actions(state: WyrdState) -> list[Action]:
    """Every legal action of the acting mage: each distinct rune left on the belt (unless one
    was used this turn), each affordable scroll of the deck on each slot it may name (in deck
    order, slots left to right), and skip."""
    if state.result is not None:
        return []
    seat = state.seat
    actions: list[Action] = []
    if not state.rune_used:
        actions += [Action("rune", rune=rune) for rune in dict.fromkeys(state.belts[seat])]
    for scroll_id in dict.fromkeys(state.loadouts[seat].deck):
        scroll = SCROLL_BY_ID[scroll_id]
        if _affordable(state, seat, scroll):
            actions += [Action("cast", scroll=scroll_id, slot=n)
                        for n in _slots(state, seat, scroll)]
    actions.append(SKIP)
    return actions


def check(state: WyrdState, action: object) -> None:
    """Raise IllegalAction with the rules' reason unless the acting mage may take ``action``.

    ``action`` may be anything (a caller's malformed input): it is refused as InvalidAction
    here, in both builds (typed ``Action``, the compiled build would raise a TypeError)."""
    if not isinstance(action, Action) or not (
        (action.kind == "cast" and action.scroll in SCROLL_BY_ID and action.rune is None)
        or (action.kind == "rune" and action.rune in RUNE_BY_ID and action.scroll is None)
        or action == SKIP
    ):
        raise InvalidAction(f"not an action of the Wyrdstone duel: {action!r}")
    if state.result is not None:
        raise IllegalAction("the duel is over")
    seat = state.seat
    name = SEAT_NAMES[seat]
    if action.kind == "rune":
        if state.rune_used:
            raise IllegalAction(f"seat {name} has already used a rune this turn")
        if action.rune not in state.belts[seat]:
            raise IllegalAction(f"{action.rune} is not on seat {name}'s rune belt")
        return
    if action.kind == "skip":
        return
    assert action.scroll is not None
    scroll = SCROLL_BY_ID[action.scroll]
    if action.scroll not in state.loadouts[seat].deck:
        raise IllegalAction(f"{scroll.name} is not in seat {name}'s deck")
    for element, amount in scroll.cost:
        have = state.energy[5 * seat + ELEMENTS.index(element)]
        if have < amount:
            raise IllegalAction(
                f"not enough {ELEMENT_NAMES[element]}: {scroll.name} costs {scroll.cost_text}, "
                f"seat {name} has {have}"
            )
    if action.slot in _slots(state, seat, scroll):
        return
    if scroll.kind == "creature":
        if action.slot is None:
            raise IllegalAction(f"{scroll.name} is a creature: name an empty slot (1-{SLOTS})")
        taken = state.creature(seat, action.slot)
        assert taken is not None
        raise IllegalAction(f"slot {action.slot} of seat {name} is taken by {taken.name}")
    if not scroll.target:
        raise IllegalAction(f"{scroll.name} names no slot: slot must be null")
    side = "an enemy" if scroll.target == "enemy-creature" else "one of your"
    raise IllegalAction(f"{scroll.name} needs {side} creatures: slot {action.slot!r} holds none")


def cast(duel: Duel, seat: int, scroll: Scroll, slot: int | None) -> None:
    """Pay for ``scroll`` and resolve it on ``duel`` (assumes it was checked)."""
    duel.streams.purpose = "cast"
    duel.pay(seat, scroll)
    index = None if slot is None else slot - 1 + SLOTS * (
        1 - seat if scroll.target == "enemy-creature" else seat)
    if scroll.kind == "creature":
        assert index is not None
        duel.board[index] = Creature(scroll.id, scroll.attack, scroll.health, scroll.health,
                                     duel.turn)
        if scroll.wolf is not None:  # Death may already exceed 5 when it comes in
            duel.check_werewolves(seat)
        duel.fire(scroll.abilities, "summon", seat, index)
    else:
        duel.fire(scroll.abilities, "cast", seat, None, index)
    duel.last_cast = (seat, scroll.id, slot)


def _finish(duel: Duel) -> Outcome | None:
    """After a cast or a skip: the attacks, then the next turn's start, or the draw of two
    living mages at turn 70 (after it under wyrdstone/2, as it would begin under /1)."""
    draw = Outcome(None, "turn-70", f"both mages were alive {duel.rules.draw_when}")
    result = duel.outcome()
    if result is None:
        duel.attacks()
        result = duel.outcome()
    if result is None and duel.rules.turn_70_played and duel.turn >= DRAW_TURN:
        return draw
    if result is None:
        duel.end_turn()
        result = duel.outcome()
        if result is None and duel.turn >= DRAW_TURN and not duel.rules.turn_70_played:
            result = draw
    return result


def apply(state: WyrdState, action: object, rng: Rng) -> WyrdState:
    """The state after the acting mage takes ``action`` (checked first, see ``check``)."""
    check(state, action)
    assert isinstance(action, Action)  # check refused anything else
    seat = state.seat
    duel = Duel(state, rng)
    if action.kind == "rune":
        assert action.rune is not None
        duel.streams.purpose = "rune"
        duel.belts[seat].remove(action.rune)
        duel.rune_used = True
        rune = RUNE_BY_ID[action.rune]

        def use() -> Outcome | None:
            duel.fire(rune.abilities, "cast", seat)
            return duel.outcome()

        return _settle(duel, (seat, "rune", action.rune, None), use)
    if action.kind == "cast":
        scroll = SCROLL_BY_ID[action.scroll or ""]

        def play() -> Outcome | None:
            cast(duel, seat, scroll, action.slot)
            return _finish(duel)

        return _settle(duel, (seat, "cast", action.scroll, action.slot), play)
    return _settle(duel, (seat, "skip", None, None), lambda: _finish(duel))


def timeout(state: WyrdState, rng: Rng) -> WyrdState:
    """The acting mage let the turn's time run out: it loses, except in a training battle,
    where the turn is skipped (exactly as the skip action: its creatures still attack)."""
    if state.result is not None:
        raise IllegalAction("the duel is over")
    seat = state.seat
    duel = Duel(state, rng)
    if not state.training:
        lost = Outcome(1 - seat, "timeout", f"{SEAT_NAMES[seat]} ran out of time")
        return duel.freeze((seat, "timeout", None, None), lost)
    return _settle(duel, (seat, "timeout", None, None), lambda: _finish(duel))


def resign(state: WyrdState, seat: int) -> WyrdState:
    """``seat`` resigns (at any moment, on either mage's turn): the other wins."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise InvalidAction(f"seat must be 0 or 1, got {seat!r}")
    if state.result is not None:
        raise IllegalAction("the duel is over")
    duel = Duel(state, None)  # resigning draws nothing
    return duel.freeze((seat, "resign", None, None),
                       Outcome(1 - seat, "resigned", f"{SEAT_NAMES[seat]} resigned"))
