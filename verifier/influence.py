"""Who could have influenced a deal: the smallest groups of parties that, acting together, could
have chosen the deal seed of one match, worked out from the order in which each contribution
to it was fixed and made known.

The model (docs/guarantees.md). The deal seed mixes the server seed with every seat's client
seed. Each contribution is *fixed* at one event (the server's at the genesis, through its
commitment; a seat's at its commitment, or at its one-step seed) and *exposed* at one event
(the server's at the final reveal; a seat's at its reveal, or at once for a one-step seed). A
contribution is *controlled* by whoever could have written it: a seat that signed its seed
events controls its own; an unsigned seat's seed could have been written by the server as
well as by the seat. A group can choose the deal exactly when it controls a contribution fixed
after every contribution it does not control was exposed: it then knows everything else and
picks its last one to suit. Any group that cannot do that faces at least one contribution it
could neither see nor change, and the deal is uniform to it.

>>> server = Contribution("server", fixed=0, exposed=9, controllers=frozenset({"server"}))
>>> a = Contribution("A", fixed=2, exposed=5, controllers=frozenset({"A"}))
>>> [sorted(group) for group in minimal_groups([server, a], ["server", "A", "B"])]
[['A', 'server']]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

__all__ = ["Contribution", "SeatSeed", "deal_influence", "minimal_groups"]

SERVER = "server"


@dataclass(frozen=True)
class Contribution:
    """One input to the deal seed: who may have written it, when it was fixed and made known."""

    owner: str
    fixed: int
    exposed: int
    controllers: frozenset[str]


@dataclass
class SeatSeed:
    """What one seat did about its seed, as the replayer saw it.

    ``how``: ``"commit-reveal"`` (committed, then revealed), ``"one-step"`` (sent the seed at
    once), ``"declined"``, ``"expired"`` (sent nothing before the seating deadline),
    ``"forfeited"`` (committed and never revealed), or None (nothing yet)."""

    how: str | None = None
    signed: bool = False
    fixed: int | None = None
    exposed: int | None = None
    pinned: bool = False


def minimal_groups(contributions: Sequence[Contribution],
                   parties: Sequence[str]) -> list[frozenset[str]]:
    """Every smallest group of ``parties`` that could have chosen the deal."""
    return list(_minimal_groups(tuple((c.fixed, c.exposed, c.controllers)
                                      for c in contributions), tuple(parties)))


#: what the answer reads of a Contribution: when it was fixed, when exposed, who controls it
_Input = tuple[int, int, frozenset[str]]


# the answer depends only on the order the seeds came in, and matches come in a handful of
# orders: an audit of a hundred thousand matches works each out once (a per-process cache).
# Keyed by plain tuples, not Contributions: a dataclass's __hash__ and __eq__ are interpreted
# even in the compiled build, and every verified match asks once
@lru_cache(maxsize=256)
def _minimal_groups(contributions: tuple[_Input, ...],
                    parties: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    def can_choose(group: frozenset[str]) -> bool:
        outside = [c for c in contributions if not (c[2] & group)]
        if not outside:
            return True
        latest_exposure = max(exposed for _, exposed, _ in outside)
        return any(fixed > latest_exposure for fixed, _, controllers in contributions
                   if controllers & group)

    found: list[frozenset[str]] = []
    for size in range(1, len(parties) + 1):
        for members in combinations(parties, size):
            group = frozenset(members)
            if can_choose(group) and not any(smaller <= group for smaller in found):
                found.append(group)
    return tuple(found)


def _party(party: str, seat_names: Sequence[str]) -> str:
    return "the server" if party == SERVER else f"seat {party}"


def _join(words: Sequence[str]) -> str:
    if len(words) <= 2:
        return " and ".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def deal_influence(protocol: str, seats: Sequence[SeatSeed], seat_names: Sequence[str], *,
                   genesis_seq: int = 0, reveal_seq: int) -> dict[str, Any]:
    """The "who could have influenced this deal" line, as text and as data.

    ``seats`` in seat order; ``reveal_seq`` is the final reveal, where the server seed is made
    known. For ``fairdeal/1`` every client seed is unsigned and uncommitted."""
    if protocol == "fairdeal/1":
        return {
            "text": "version 1 bundle, client seeds unsigned: the server could have chosen "
                    "this deal",
            "colluders_needed": [[SERVER]],
            "seats": [_seat_json(name, seat) for name, seat in zip(seat_names, seats,
                                                                  strict=True)],
        }
    forfeited = [name for name, seat in zip(seat_names, seats, strict=True)
                 if seat.how == "forfeited"]
    if forfeited:
        who = _join([f"seat {name}" for name in forfeited])
        return {
            "text": f"no deal was made: {who} committed to a seed and never revealed it, and "
                    "forfeited the match",
            "colluders_needed": [],
            "seats": [_seat_json(name, seat) for name, seat in zip(seat_names, seats,
                                                                  strict=True)],
        }
    # the server's seed and each seat's, as minimal_groups reads a Contribution
    contributions: list[_Input] = [(genesis_seq, reveal_seq, frozenset({SERVER}))]
    for name, seat in zip(seat_names, seats, strict=True):
        if seat.how in ("commit-reveal", "one-step"):
            assert seat.fixed is not None and seat.exposed is not None
            controllers = frozenset({name}) if seat.signed else frozenset({name, SERVER})
            contributions.append((seat.fixed, seat.exposed, controllers))
    parties = [SERVER, *seat_names]
    groups = list(_minimal_groups(tuple(contributions), tuple(parties)))
    ordered = [sorted(group, key=parties.index) for group in groups]
    seat_json = [_seat_json(name, seat) for name, seat in zip(seat_names, seats, strict=True)]
    everyone = len(groups) == 1 and groups[0] == frozenset(parties)
    if everyone:
        players = "both players" if len(seat_names) == 2 else f"all {len(seat_names)} players"
        subject = ("seats " if len(seat_names) > 1 else "seat ") + _join(list(seat_names))
        text = (f"fixed before any seat's entropy was known; {subject} contributed signed "
                f"seeds: fair unless {players} and the server colluded")
    else:
        reasons = _reasons(seats, seat_names, groups)
        choosers = " or ".join(_join([_party(p, seat_names) for p in group])
                               for group in ordered)
        text = f"{'; '.join(reasons)}: {choosers} could have chosen this deal"
    unpinned = [name for name, seat in zip(seat_names, seats, strict=True)
                if seat.signed and not seat.pinned and seat.how in ("commit-reveal", "one-step")]
    if len(unpinned) == 1:
        text += (f" (key of seat {unpinned[0]} not pinned: pin it with --seat-key to be sure "
                 "it is the player's)")
    elif unpinned:
        text += (f" (keys of seats {_join(unpinned)} not pinned: pin them with --seat-key to "
                 "be sure they are the players')")
    return {"text": text, "colluders_needed": ordered, "seats": seat_json}


def _reasons(seats: Sequence[SeatSeed], seat_names: Sequence[str],
             groups: Sequence[frozenset[str]]) -> list[str]:
    """Why each seat outside every smallest group could not protect the deal."""
    needed = set().union(*groups) if groups else set()
    reasons = []
    fixes = [seat.fixed for seat in seats if seat.how in ("commit-reveal", "one-step")
             and seat.fixed is not None]
    for name, seat in zip(seat_names, seats, strict=True):
        if name in needed:
            continue
        if seat.how == "declined":
            reasons.append(f"seat {name} declined")
        elif seat.how == "expired":
            reasons.append(f"seat {name} sent no seed in time")
        elif not seat.signed:
            reasons.append(f"seat {name}'s seed is not signed")
        elif seat.how == "one-step" and seat.exposed is not None and any(
                fixed > seat.exposed for fixed in fixes):
            reasons.append(f"seat {name} showed its seed before every other seat had "
                           "committed")
        else:
            reasons.append(f"seat {name} could not protect the deal")
    return reasons or ["the seeds were fixed in an order that lets a smaller group choose"]


def _seat_json(name: str, seat: SeatSeed) -> dict[str, Any]:
    return {"seat": name, "how": seat.how, "signed": seat.signed, "key_pinned": seat.pinned,
            "fixed_at": seat.fixed, "shown_at": seat.exposed}
