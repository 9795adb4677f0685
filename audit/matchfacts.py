"""The audited facts of one match, as a value: what audit/facts.py derives and the modules that
describe a deal (audit/strength.py) fill in.

It lives in a module of its own, importing nothing from audit/, so the module that builds it and
the modules that complete it both import it from here instead of from each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["MatchFacts"]


@dataclass
class MatchFacts:
    """The audited facts of one match (all re-derived from its seeds)."""

    match_id: str
    game: str
    #: the group whose deals are comparable: the game, and its deck type if it has several
    deck_key: str
    players: tuple[str, ...]
    first_seat: int
    server_seed: bytes
    #: named dealt orders: ``{"deck": [card ids in deal order]}``, ``{"blue": [...], ...}``
    orders: dict[str, list[Any]] = field(default_factory=dict)
    #: each seat's opening-hand strength, standardised: mean 0, variance 1 under a fair deal
    #: (None for a game without dealt hands)
    hand_z: tuple[float, ...] | None = None
    #: each seat's raw opening-hand strength (total card cost, total troop strength)
    hand_raw: tuple[int, ...] | None = None
    #: every random pick a rule made during play (and the setup's, where the game's plug-in
    #: asks for them: ``setup_picks``): (purpose, n, value)
    picks: list[tuple[str, int, int]] = field(default_factory=list)
    #: items drawn with replacement (an infinite deck's draws), dealt and during play: of any
    #: type the game's plug-in deals (``DealFacts.draws``)
    draws: list[Any] = field(default_factory=list)
    #: the key id each seat signed with (``verifier.keys.key_id``), None for a seat that
    #: registered no key: a seat's identity, where its name is only a label
    seat_keys: tuple[str | None, ...] = ()
