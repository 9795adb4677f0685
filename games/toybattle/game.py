"""``GAME``: Toy Battle behind fairdeal's Game interface.

>>> from fairdeal.games.base import SimpleRng
>>> import random
>>> state = GAME.setup(GAME.default_params(), SimpleRng(random.Random(1)))
>>> GAME.legal_actions(state)[0]
Draw()
"""

from __future__ import annotations

from collections.abc import Mapping

from ..base import JSON, IllegalAction, InvalidParams, Outcome, Rng, TurnTimer, header_timer
from .actions import Action, Draw, Place, Skip, parse_action
from .boards import BOARD_BY_ID, BOARDS, SEAT_NAMES
from .describe import describe_action
from .engine import Work, pending_options, placements
from .rules import anchors, draw_count, free_copy, placement_error
from .state import NODE_SLOTS, LastEvent, State, state_from_json, state_to_json
from .troops import TROOPS, full_army
from .view import view

__all__ = ["GAME", "ToyBattle"]

#: troops each colour sets aside unseen at the start
SET_ASIDE = 4
#: troops the first and the second player draw at the start
OPENING_DRAW = (3, 4)


class ToyBattle:
    """The Toy Battle rules (seed 003 and the board facts), version ``toybattle/1``."""

    name = "toybattle"
    title = "Toy Battle"
    rules_version = "toybattle/1"
    seat_names: tuple[str, ...] = SEAT_NAMES

    # -- data and parameters ----------------------------------------------------------------

    def rules_data(self) -> JSON:
        """The troops, the boards, and a flat board summary for tables."""
        return {
            "troops": [kind.to_json() for kind in TROOPS],
            "boards": [board.to_json() for board in BOARDS],
            "board_summary": [board.summary() for board in BOARDS],
        }

    def default_params(self) -> dict[str, JSON]:
        """``{"board": "castle-field"}``"""
        return {"board": "castle-field"}

    def normalize_params(self, params: Mapping[str, JSON]) -> dict[str, JSON]:
        """Fill in defaults; ``board`` may be a board id or its English name, any case."""
        if not isinstance(params, Mapping):
            raise InvalidParams(f"parameters must be an object, got {params!r}")
        unknown = sorted(str(key) for key in params if key != "board")
        if unknown:
            raise InvalidParams(f"unknown parameter(s) {unknown!r}; Toy Battle takes only 'board'")
        board = params.get("board", self.default_params()["board"])
        if isinstance(board, str):
            wanted = board.strip().casefold()
            for candidate in BOARDS:
                if wanted in (candidate.id, candidate.name.casefold()):
                    return {"board": candidate.id}
        allowed = ", ".join(f"{b.id!r} ({b.name})" for b in BOARDS)
        raise InvalidParams(f"parameter 'board' must be one of {allowed}; got {board!r}")

    # -- the match --------------------------------------------------------------------------

    def setup(self, params: Mapping[str, JSON], rng: Rng) -> State:
        """Shuffle each colour's 24 troops (sub-streams ``troops/blue`` and ``troops/red``),
        set 4 aside, draw the first player (``first-player``): it draws 3, the other 4."""
        board_id = self.normalize_params(params)["board"]
        first = rng.substream("first-player").randbelow(2)
        armies = []
        for seat in (0, 1):
            army = full_army()
            rng.substream(f"troops/{SEAT_NAMES[seat]}").shuffle(army)
            armies.append(army)
        opening = {first: OPENING_DRAW[0], 1 - first: OPENING_DRAW[1]}
        racks = tuple(tuple(armies[s][SET_ASIDE : SET_ASIDE + opening[s]]) for s in (0, 1))
        reserves = tuple(tuple(armies[s][SET_ASIDE + opening[s] :]) for s in (0, 1))
        aside = tuple(tuple(armies[s][:SET_ASIDE]) for s in (0, 1))
        board = BOARD_BY_ID[str(board_id)]
        return State(
            board_id=board.id,
            first=first,
            turn=1,
            seat=first,
            stacks=((),) * NODE_SLOTS,
            racks=(racks[0], racks[1]),
            reserves=(reserves[0], reserves[1]),
            set_aside=(aside[0], aside[1]),
            discards=((), ()),
            frozen=((), ()),
            medals=(0, 0),
            regions=(None,) * len(board.regions),
        )

    def current_seat(self, state: State) -> int | None:
        """The seat to act (the deciding seat while effects are pending), None when over."""
        return None if state.outcome is not None else state.seat

    def legal_actions(self, state: State) -> list[Action]:
        """Every action the current seat may take: at a turn's start ``draw`` (if allowed) and
        each placement; while an effect is pending, each way to use it and ``skip``."""
        if state.outcome is not None:
            return []
        work = Work(state, None)
        if state.pending:
            return [*pending_options(work, state.pending[0]), Skip()]
        actions: list[Action] = []
        if draw_count(len(work.racks[work.seat]), len(work.reserves[work.seat])):
            actions.append(Draw())
        actions.extend(placements(work))
        return actions

    def apply(self, state: State, action: Action, rng: Rng) -> State:
        """Check ``action`` for the current seat, then return the next state (never mutates
        ``state``). Raises IllegalAction with the rules' reason."""
        if state.outcome is not None:
            raise IllegalAction(f"the match is over; {action.to_json()!r} cannot be played")
        work = Work(state, rng)
        _check(work, action)
        seat = work.seat
        work.timeouts[seat] = 0
        if state.pending:
            if isinstance(action, Skip):
                work.pending.pop(0)
            else:
                work.resolve(action)
        elif isinstance(action, Draw):
            work.draw(seat, draw_count(len(work.racks[seat]), len(work.reserves[seat])))
        else:
            assert isinstance(action, Place)
            work.place(seat, action.troop, action.base)
        work.settle()
        return work.done(LastEvent(seat, "action", action))

    def timeout(self, state: State, rng: Rng) -> State:
        """The current seat missed its deadline: pending optional effects are declined; at a
        turn's start it draws if it may, else passes. A seat's third timeout in a row loses."""
        if state.outcome is not None:
            raise IllegalAction("the match is over; no turn can time out")
        work = Work(state, rng)
        seat = work.seat
        work.timeouts[seat] += 1
        if work.timeouts[seat] >= 3:
            detail = f"{SEAT_NAMES[seat]} let 3 turns in a row time out"
            work.finish(Outcome(1 - seat, "timeouts", detail))
        elif work.pending:
            work.settle(declining=True)
        else:
            work.draw(seat, draw_count(len(work.racks[seat]), len(work.reserves[seat])))
            work.end_turn()
        return work.done(LastEvent(seat, "timeout"))

    def turn_timer(self, params: Mapping[str, JSON], turn_limit_ms: int | None) -> TurnTimer:
        """The header's limit, for each action (the creator picks it)."""
        return header_timer(turn_limit_ms)

    def resign(self, state: State, seat: int) -> State:
        """``seat`` resigns: the other seat wins (reason ``resigned``)."""
        if state.outcome is not None:
            raise IllegalAction("the match is over; nobody can resign")
        if seat not in (0, 1):
            raise IllegalAction(f"no seat {seat!r} in Toy Battle (0 blue, 1 red)")
        work = Work(state, None)
        work.finish(Outcome(1 - seat, "resigned", f"{SEAT_NAMES[seat]} resigned"))
        return work.done(LastEvent(seat, "resign"))

    def result(self, state: State) -> Outcome | None:
        """The outcome once the match is over, else None."""
        return state.outcome

    # -- JSON and people --------------------------------------------------------------------

    def parse_action(self, data: JSON) -> Action:
        """An action from its JSON form; raises InvalidAction naming what is wrong."""
        return parse_action(data)

    def action_to_json(self, action: Action) -> JSON:
        """The JSON form of ``action``."""
        return action.to_json()

    def state_to_json(self, state: State) -> JSON:
        """Everything in ``state``, hidden troops included."""
        return state_to_json(state)

    def state_from_json(self, data: JSON) -> State:
        """The state whose ``state_to_json`` form is ``data`` (ValueError when malformed)."""
        return state_from_json(data)

    def view(self, state: State, seat: int | None) -> JSON:
        """What ``seat`` may see (None: a spectator): never a hidden troop of someone else."""
        return view(state, seat)

    def describe_action(self, state: State, action: Action) -> str:
        """One line for people about ``action`` taken in ``state``."""
        return describe_action(state, action)

    def render_text(self, state: State, seat: int | None = None) -> str:
        """The state as plain text for a terminal (see text.render_text)."""
        from .text import render_text

        return render_text(state, seat)

    def render_svg(self, state: State, seat: int | None = None, *,
                   spectator: bool = False) -> str:
        """The state as a standalone SVG from ``seat``'s perspective (None: everything, or
        with ``spectator`` only what is public)."""
        from .render import board_svg

        return board_svg(state, seat, spectator=spectator)


def _check(work: Work, action: Action) -> None:
    """Raise IllegalAction unless ``action`` is legal for the seat to move."""
    seat = work.seat
    colour = SEAT_NAMES[seat]
    if work.pending:
        head = work.pending[0]
        if isinstance(action, Skip):
            return
        options = pending_options(work, head)
        if action in options:
            return
        if head.effect == "capn" and isinstance(action, Place):
            _check_place(work, action)  # raises with the placement's own reason
        expected = "place" if head.effect == "capn" else head.effect
        if action.kind != expected:
            raise IllegalAction(
                f"{colour} must answer the pending {head.effect} effect (base {head.base}) "
                f"with {expected!r} or 'skip', not {action.to_json()!r}"
            )
        raise IllegalAction(
            f"{action.to_json()!r} is not a possible use of the pending {head.effect} effect "
            f"(base {head.base}); possible: {[o.to_json() for o in options]!r}"
        )
    if isinstance(action, Draw):
        if not draw_count(len(work.racks[seat]), len(work.reserves[seat])):
            why = "the reserve is empty" if not work.reserves[seat] else "the rack is full (8)"
            raise IllegalAction(f"{colour} cannot draw: {why}")
        return
    if isinstance(action, Place):
        _check_place(work, action)
        return
    raise IllegalAction(f"no effect is pending: {action.to_json()!r} cannot be played now")


def _check_place(work: Work, action: Place) -> None:
    seat = work.seat
    colour = SEAT_NAMES[seat]
    rack = work.racks[seat]
    if action.troop not in rack:
        raise IllegalAction(f"{colour} has no {action.troop!r} on the rack")
    if free_copy(rack, work.frozen[seat], action.troop) is None:
        raise IllegalAction(f"{colour}'s {action.troop!r} is frozen until the end of this turn")
    reach = anchors(work.board, work.stacks, seat)
    problem = placement_error(work.board, work.stacks, seat, action.troop, action.base, reach)
    if problem is not None:
        raise IllegalAction(f"{colour} cannot place {action.troop!r} on {action.base}: {problem}")


GAME = ToyBattle()
