"""Toy Battle's moves: a working copy of a state that one apply (or timeout) changes.

The public entry points (``game.ToyBattle.apply`` and ``timeout``) check legality first and
then call these steps; the steps themselves assume the move is legal. Every random pick comes
from the rng handed to that call, through one sub-stream per purpose ("xb42", "battlefield").
"""

from __future__ import annotations

from ..base import IllegalAction, Outcome, Rng
from .actions import Action, Castle, Cemetery, Clouds, Jumbo, Place, Skully, Star, Volcano, Xb42
from .boards import SEAT_NAMES, Board
from .rules import (
    RACK_MAX,
    TURN_LIMIT,
    anchors,
    draw_count,
    effect_draw_count,
    free_copy,
    placement_error,
)
from .state import LastEvent, Pending, Stack, State
from .troops import TROOP_BY_ID

__all__ = ["Work", "pending_options", "placements"]

#: troop effects that wait for an answer after the troop is placed (Hook acts while placing)
TROOP_EFFECTS = frozenset({"skully", "capn", "jumbo", "xb42", "star"})
#: special bases whose effect follows the troop effects (Metal-X and Tropical Pool have none)
BASE_EFFECTS = frozenset({"castle", "clouds", "volcano", "cemetery", "battlefield"})


class Work:
    """A mutable copy of a State; ``done()`` freezes it back into a new State."""

    def __init__(self, state: State, rng: Rng | None) -> None:
        self.state = state
        self.board: Board = state.board
        self.rng = rng
        self._streams: dict[str, Rng] = {}
        self.seat = state.seat
        self.turn = state.turn
        self.stacks: list[Stack] = list(state.stacks)
        self.racks = [list(state.racks[0]), list(state.racks[1])]
        self.reserves = [list(state.reserves[0]), list(state.reserves[1])]
        self.discards = [list(state.discards[0]), list(state.discards[1])]
        self.frozen = [list(state.frozen[0]), list(state.frozen[1])]
        self.medals = list(state.medals)
        self.regions = list(state.regions)
        self.pending = list(state.pending)
        self.timeouts = list(state.timeouts)
        self.outcome = state.outcome
        self.captor = state.captor

    def done(self, last: LastEvent | None) -> State:
        """The new state."""
        # the constructor itself, every field named, rather than dataclasses.replace: replace
        # is interpreted and works out the fields each call, and every play ends here
        state = self.state
        return State(
            board_id=state.board_id,
            first=state.first,
            turn=self.turn,
            seat=self.seat,
            stacks=tuple(self.stacks),
            racks=(tuple(self.racks[0]), tuple(self.racks[1])),
            reserves=(tuple(self.reserves[0]), tuple(self.reserves[1])),
            set_aside=state.set_aside,
            discards=(tuple(self.discards[0]), tuple(self.discards[1])),
            frozen=(tuple(self.frozen[0]), tuple(self.frozen[1])),
            medals=(self.medals[0], self.medals[1]),
            regions=tuple(self.regions),
            pending=tuple(self.pending),
            timeouts=(self.timeouts[0], self.timeouts[1]),
            last=last,
            outcome=self.outcome,
            captor=self.captor,
        )

    def stream(self, purpose: str) -> Rng:
        """The sub-stream for ``purpose``, one per call so repeated picks continue it."""
        if self.rng is None:
            raise IllegalAction(f"a random pick ({purpose}) needs the match's random stream")
        stream = self._streams.get(purpose)
        if stream is None:
            stream = self._streams[purpose] = self.rng.substream(purpose)
        return stream

    # -- the rack ---------------------------------------------------------------------------

    def draw(self, seat: int, count: int) -> None:
        """Move ``count`` troops from the top of ``seat``'s reserve to its rack."""
        for _ in range(count):
            self.racks[seat].append(self.reserves[seat].pop(0))

    def take_from_rack(self, seat: int, index: int) -> str:
        """Remove the troop at ``index`` of ``seat``'s rack; frozen marks follow their troops."""
        troop = self.racks[seat].pop(index)
        self.frozen[seat] = [i - (i > index) for i in self.frozen[seat] if i != index]
        return troop

    # -- the board --------------------------------------------------------------------------

    def top(self, base: int) -> tuple[int, str] | None:
        """The visible troop on ``base`` as (owner, troop), None when empty."""
        stack = self.stacks[base]
        return stack[-1] if stack else None

    def push(self, base: int, seat: int, troop: str) -> None:
        """Put ``seat``'s ``troop`` on top of ``base``."""
        self.stacks[base] = (*self.stacks[base], (seat, troop))

    def pop(self, base: int) -> tuple[int, str]:
        """Lift the top troop off ``base``, uncovering the one below."""
        stack = self.stacks[base]
        self.stacks[base] = stack[:-1]
        return stack[-1]

    def check_regions(self, actor: int) -> None:
        """Give every untaken region whose bases all have one seat's troop on top to that seat,
        then end the match if a seat reached the medals to win (the acting seat first)."""
        for index, region in enumerate(self.board.regions):
            if self.regions[index] is not None:
                continue
            owners = {
                self.stacks[base][-1][0] if self.stacks[base] else None for base in region.bases
            }
            if len(owners) == 1:
                (owner,) = owners
                if owner is not None:
                    self.regions[index] = owner
                    self.medals[owner] += region.medals
        goal = self.board.medals_to_win
        for seat in (actor, 1 - actor):
            if self.medals[seat] >= goal:
                self.finish(
                    Outcome(
                        seat,
                        "medals",
                        f"{SEAT_NAMES[seat]} took {self.medals[seat]} medals "
                        f"({goal} win on {self.board.name})",
                    )
                )
                return

    def finish(self, outcome: Outcome) -> None:
        """End the match: nothing pending survives it."""
        self.outcome = outcome
        self.pending = []

    # -- placing ----------------------------------------------------------------------------

    def place(self, seat: int, troop: str, node_id: int) -> None:
        """Place a troop (already checked legal) and queue its effects."""
        index = free_copy(self.racks[seat], self.frozen[seat], troop)
        assert index is not None
        self.take_from_rack(seat, index)
        node = self.board.node_by_id[node_id]
        if node.hq is not None:
            name = TROOP_BY_ID[troop].name
            self.captor = (node_id, seat, troop)
            self.finish(
                Outcome(seat, "hq-captured", f"{SEAT_NAMES[seat]}'s {name} took the HQ {node_id}")
            )
            return
        self.push(node_id, seat, troop)
        self.check_regions(seat)
        if self.outcome is not None:
            return
        # Troop effects come first (a Capn's extra troop's effect before the bases'), then the
        # special bases' effects in the order their troops were placed.
        if troop in TROOP_EFFECTS and node.special != "metal":
            self.pending.insert(0, Pending(troop, node_id))
        if node.special in BASE_EFFECTS:
            self.pending.append(Pending(node.special, node_id))

    # -- resolving the pending effects ------------------------------------------------------

    def resolve(self, action: Action) -> None:
        """Carry out the answer ``action`` to the first pending effect (already checked)."""
        head = self.pending.pop(0)
        seat, enemy = self.seat, 1 - self.seat
        match action:
            case Skully():
                rack, reserve = len(self.racks[seat]), len(self.reserves[seat])
                self.draw(seat, effect_draw_count(2, rack, reserve))
            case Star() | Clouds():
                self.draw(seat, 1)
            case Xb42():
                index = self.stream("xb42").randbelow(len(self.racks[enemy]))
                self.discards[enemy].append(self.take_from_rack(enemy, index))
            case Place(troop=troop, base=base):
                self.place(seat, troop, base)
            case Jumbo(target=target):
                self.discards[enemy].append(self.pop(target)[1])
                self.check_regions(seat)
            case Castle(target=target):
                self.racks[seat].append(self.pop(target)[1])
                self.check_regions(seat)
            case Volcano(target=target, to=to):
                moved = self.pop(target)
                self.push(to, moved[0], moved[1])
                self.check_regions(seat)
            case Cemetery(troop=troop):
                self.discards[seat].remove(troop)
                self.racks[seat].append(troop)
            case _:
                raise AssertionError(f"{action!r} does not answer {head!r}")

    def freeze(self) -> None:
        """The Battlefield: one random troop of the opponent's rack that is not frozen yet."""
        enemy = 1 - self.seat
        free = [i for i in range(len(self.racks[enemy])) if i not in self.frozen[enemy]]
        if free:
            pick = free[self.stream("battlefield").randbelow(len(free))]
            self.frozen[enemy] = sorted([*self.frozen[enemy], pick])

    def settle(self, declining: bool = False) -> None:
        """Run the automatic effects and drop the effects with nothing to choose from, until a
        decision is due; end the turn when nothing is left. ``declining`` (a timeout) drops
        every optional effect."""
        while self.outcome is None and self.pending:
            head = self.pending[0]
            if head.effect == "battlefield":
                self.pending.pop(0)
                self.freeze()
            elif declining or not pending_options(self, head):
                self.pending.pop(0)
            else:
                return
        if self.outcome is None:
            self.end_turn()

    def end_turn(self) -> None:
        """The turn passes; the finishing seat's frozen troops thaw; the next turn may not be
        playable (stalemate) or may be past the turn limit."""
        self.frozen[self.seat] = []
        self.seat = 1 - self.seat
        self.turn += 1
        self.start_turn()

    def start_turn(self) -> None:
        """A turn begins: the turn limit, then whether the seat to move can act at all."""
        seat, other = self.seat, 1 - self.seat
        mine, theirs = self.medals[seat], self.medals[other]
        if self.turn > TURN_LIMIT:
            winner = None if mine == theirs else seat if mine > theirs else other
            detail = f"turn limit {TURN_LIMIT} reached; medals {mine}-{theirs}"
            self.finish(Outcome(winner, "turn-limit", detail))
        elif not self.can_act():
            if self.frozen[seat] and self.can_act(ignore_frozen=True):
                # Only a freeze stops it: it skips this turn (the troops thaw as it ends)
                # instead of ending the match, since it can still act next turn.
                self.end_turn()
                return
            winner = seat if mine > theirs else other
            detail = f"{SEAT_NAMES[seat]} could not act; medals {mine}-{theirs}" + (
                f", so {SEAT_NAMES[seat]} loses the tie" if mine == theirs else ""
            )
            self.finish(Outcome(winner, "stalemate", detail))

    def can_act(self, ignore_frozen: bool = False) -> bool:
        """Can the seat to move draw or place anything (counting frozen troops as free)?"""
        seat = self.seat
        if draw_count(len(self.racks[seat]), len(self.reserves[seat])):
            return True
        return bool(placements(self, stop_at_first=True, ignore_frozen=ignore_frozen))


def placements(work: Work, stop_at_first: bool = False, ignore_frozen: bool = False) -> list[Place]:
    """Every legal placement of the seat to move (by troop in table order, then node)."""
    seat = work.seat
    rack = work.racks[seat]
    frozen = () if ignore_frozen else work.frozen[seat]
    troops = {troop for index, troop in enumerate(rack) if index not in frozen}
    if not troops:
        return []
    board = work.board
    reach = anchors(board, work.stacks, seat)
    targets = [node.id for node in board.nodes if node.hq != seat]
    found: list[Place] = []
    for troop in TROOP_BY_ID:
        if troop not in troops:
            continue
        for node_id in targets:
            if placement_error(board, work.stacks, seat, troop, node_id, reach) is None:
                found.append(Place(troop, node_id))
                if stop_at_first:
                    return found
    return found


def pending_options(work: Work, head: Pending) -> list[Action]:
    """The ways to use the pending effect ``head`` (empty when it can do nothing now)."""
    seat, enemy = work.seat, 1 - work.seat
    rack, reserve = len(work.racks[seat]), len(work.reserves[seat])
    board = work.board
    nodes = board.node_by_id
    effect = head.effect
    if effect == "skully":
        return [Skully()] if effect_draw_count(2, rack, reserve) else []
    if effect in ("star", "clouds"):
        if not effect_draw_count(1, rack, reserve):
            return []
        return [Star()] if effect == "star" else [Clouds()]
    if effect == "xb42":
        return [Xb42()] if work.racks[enemy] else []
    if effect == "capn":
        return list(placements(work))
    enemy_tops = [
        n for n in nodes[head.base].neighbours if nodes[n].is_base and _owner(work, n) == enemy
    ]
    if effect == "jumbo":
        return [Jumbo(target) for target in enemy_tops]
    if effect == "volcano":
        return [
            Volcano(target, to)
            for target in enemy_tops
            for to in nodes[target].neighbours
            if nodes[to].is_base
        ]
    if rack >= RACK_MAX:
        return []
    if effect == "castle":
        return [
            Castle(base) for base in board.bases if base != head.base and _owner(work, base) == seat
        ]
    if effect == "cemetery":
        return [Cemetery(troop) for troop in TROOP_BY_ID if troop in work.discards[seat]]
    raise AssertionError(f"unknown pending effect {effect!r}")


def _owner(work: Work, base: int) -> int | None:
    stack = work.stacks[base]
    return stack[-1][0] if stack else None
