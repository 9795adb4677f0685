"""Simulation players for Toy Battle. Not part of the protocol: they draw on the
``random.Random`` they are handed (never the match stream), and only choose legal actions.

``greedy`` looks one decision ahead: it applies each legal action to a copy (the rules'
randomness drawn from its own generator through SimpleRng) and keeps the best-scoring result.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from ..base import JSON, Bot, RandomBot, SimpleRng
from .actions import Action
from .game import GAME
from .rules import RACK_MAX, anchors
from .state import State
from .troops import TROOP_BY_ID

__all__ = ["BOTS", "GreedyBot", "RandomBot", "evaluate", "play_match"]

WIN = 1_000_000.0


class GreedyBot:
    """Plays the action whose immediate result ``evaluate`` scores best for itself."""

    name = "greedy"

    def choose(self, state: State, rng: random.Random) -> Action:
        """The best-scoring legal action (ties broken by ``rng``)."""
        seat = state.seat
        best: Action | None = None
        best_score = -2 * WIN
        for action in GAME.legal_actions(state):
            after = GAME.apply(state, action, SimpleRng(rng))
            score = evaluate(after, seat) + rng.random()
            if score > best_score:
                best, best_score = action, score
        assert best is not None, "greedy was asked to move in a finished match"
        return best


def _distance(state: State, sources: frozenset[int], goals: Sequence[int]) -> int:
    """Steps from ``sources`` to the nearest of ``goals`` through the graph (99 if none)."""
    nodes = state.board.node_by_id
    seen = set(sources)
    frontier = list(sources)
    steps = 0
    while frontier:
        if any(node in goals for node in frontier):
            return steps
        steps += 1
        following = []
        for node in frontier:
            for neighbour in nodes[node].neighbours:
                if neighbour not in seen:
                    seen.add(neighbour)
                    following.append(neighbour)
        frontier = following
    return 99


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` looks for ``seat``: the result, medals, regions half held, the race
    to the enemy HQ, and the troops each side still has to play."""
    if state.outcome is not None:
        if state.outcome.winner is None:
            return 0.0
        return WIN if state.outcome.winner == seat else -WIN
    board = state.board
    enemy = 1 - seat
    score = 100.0 * (state.medals[seat] - state.medals[enemy])
    for index, region in enumerate(board.regions):
        if state.regions[index] is not None:
            continue
        owners = [state.stacks[base][-1][0] for base in region.bases if state.stacks[base]]
        mine, theirs = owners.count(seat), owners.count(enemy)
        size = len(region.bases)
        if not theirs:
            score += 12.0 * region.medals * (mine / size) ** 2
        if not mine:
            score -= 12.0 * region.medals * (theirs / size) ** 2
    my_reach = anchors(board, state.stacks, seat)
    their_reach = anchors(board, state.stacks, enemy)
    their_gap = _distance(state, their_reach, board.hqs(seat))
    if their_gap <= 1 and state.racks[enemy]:
        score -= 5000.0  # the enemy can take our HQ on its next turn
    score -= 4.0 * min(_distance(state, my_reach, board.hqs(enemy)), 10)
    score += 3.0 * min(their_gap, 10)
    for base in board.bases:
        stack = state.stacks[base]
        if stack:
            owner, troop = stack[-1]
            value = 2.0 + (TROOP_BY_ID[troop].strength or 3) * 0.3
            score += value if owner == seat else -value
    score += 1.5 * min(len(state.racks[seat]), RACK_MAX) - 1.5 * len(state.racks[enemy])
    return score


BOTS: dict[str, Bot] = {"random": RandomBot(GAME.legal_actions), "greedy": GreedyBot()}


def play_match(
    params: Mapping[str, JSON], bots: Sequence[str], rng: random.Random
) -> tuple[State, list[Action]]:
    """Play one whole match between ``bots`` (seat 0 first) with rules randomness and bot
    choices both from ``rng``; return the final state and the actions taken."""
    state = GAME.setup(GAME.normalize_params(params), SimpleRng(rng))
    players = [BOTS[name] for name in bots]
    actions: list[Action] = []
    while True:
        seat = GAME.current_seat(state)
        if seat is None:
            return state, actions
        action = players[seat].choose(state, rng)
        actions.append(action)
        state = GAME.apply(state, action, SimpleRng(rng))
