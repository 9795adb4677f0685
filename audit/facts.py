"""What one verified match contributes to the audit: its deal, re-derived from the seeds.

The deal is re-derived through the verifier's own replayer (the protocol's deal seed and setup
stream, the game's ``setup``), never read from anything the server says about it. Matches whose
rules draw during play (the game's plug-in says so: ``replays_play``) are replayed once more
with a stream that records every pick, so the picks can be tested too.

>>> facts = match_facts(Bundle.from_bytes(open(path, "rb").read()))  # doctest: +SKIP
>>> facts.deck_key, facts.first_seat
('<game>/normal', 1)
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

from fairdeal.games import Rng, get_plugin
from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.keys import key_id
from fairdeal.verifier.protocol import PLAY_TYPES, SEAT_SIGNED_TYPES, ply_stream, setup_stream
from fairdeal.verifier.replay import MatchReplayer

from . import strength
from .matchfacts import MatchFacts

__all__ = ["MatchFacts", "RecordingStream", "deck_key", "match_facts", "seat_players"]

T = TypeVar("T")


class RecordingStream:
    """An Rng that passes every draw through to the protocol's stream and notes each pick.

    Shuffles are passed through unrecorded: the deal's shuffle is tested by position, and a
    reshuffle's picks (one per card, over a shrinking range) are too sparse to count."""

    __slots__ = ("_inner", "_purpose", "_picks")

    def __init__(self, inner: Rng, purpose: str, picks: list[tuple[str, int, int]]) -> None:
        self._inner = inner
        self._purpose = purpose
        self._picks = picks

    def randbelow(self, n: int) -> int:
        value = self._inner.randbelow(n)
        self._picks.append((self._purpose, n, value))
        return value

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self._inner.shuffle(items)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.randbelow(len(items))]

    def substream(self, label: str) -> RecordingStream:
        return RecordingStream(self._inner.substream(label), label, self._picks)


def deck_key(genesis: dict[str, Any]) -> str:
    """The group a match's deals are compared within: the game's name, or its name and a
    variant (``"<game>/infinite"``), as the game's plug-in says."""
    return get_plugin(str(genesis["game"])).deck_key(genesis["params"])


def seat_players(genesis: dict[str, Any]) -> tuple[str, ...]:
    """The player names in seat order."""
    return tuple(seat["name"] for seat in genesis["seats"])


def _signing_keys(keys: list[bytes | None], events: list[dict[str, Any]]
                  ) -> tuple[str | None, ...]:
    """Each seat's key id where the seat signed an event with its key (registering a key
    proves nothing: anyone can register anyone's public key), else None."""
    if keys.count(None) == len(keys):  # no seat registered a key: no event needs reading
        return (None,) * len(keys)
    signed = {event.get("seat") for event in events
              if event.get("type") in SEAT_SIGNED_TYPES and "sig" in event}
    return tuple(None if raw is None or seat not in signed else key_id(raw)
                 for seat, raw in enumerate(keys))


def match_facts(bundle: Bundle, replayer: MatchReplayer | None = None) -> MatchFacts | None:
    """The facts of a bundle that has passed verification (re-derived, see the module doc);
    None for a match that ended without a deal (fairdeal/2: a seat committed to a seed and
    never revealed it, so the match was forfeited before anything was dealt).

    ``replayer`` is the one that verified the bundle (verify.verify_replayed), if at hand:
    its deal is read off it instead of replaying the seeds again."""
    events = bundle.events
    genesis = events[0]
    server_seed = bytes.fromhex(events[-1]["server_seed"])
    if replayer is None:
        replayer = MatchReplayer(genesis, server_seed)
        for event in events[1:]:
            if replayer.started:
                break
            replayer.feed(event)
    if not replayer.started:
        return None
    state = replayer.dealt
    deal = replayer.deal
    assert state is not None and deal is not None, "a verified bundle has a deal"
    game = replayer.game
    key = deck_key(genesis)
    facts = MatchFacts(
        match_id=genesis["match_id"], game=genesis["game"], deck_key=key,
        players=seat_players(genesis), first_seat=game.current_seat(state) or 0,
        server_seed=server_seed,
        seat_keys=_signing_keys(replayer.seat_keys, events),
    )
    strength.describe_deal(facts, state)
    if get_plugin(facts.game).replays_play(key):
        _record_picks(facts, replayer, events, deal)
    return facts


def _record_picks(facts: MatchFacts, replayer: MatchReplayer, events: list[dict[str, Any]],
                  deal: bytes) -> None:
    """Replay the plays with recording streams (the verifier has already checked them)."""
    game = replayer.game
    picks = facts.picks
    plugin = get_plugin(facts.game)
    if plugin.setup_picks:  # e.g. a setup that resolves turn 1, which may pick at random
        state = game.setup(replayer.genesis["params"],
                           RecordingStream(setup_stream(deal), "setup", picks))
    else:
        state = replayer.dealt
    ply = 0
    for event in events:
        kind = event["type"]
        if kind not in PLAY_TYPES:
            continue
        rng = RecordingStream(ply_stream(deal, ply), "ply", picks)
        ply += 1
        if kind == "move":
            state = game.apply(state, game.parse_action(event["action"]), rng)
        elif kind == "timeout":
            state = game.timeout(state, rng)
        else:
            state = game.resign(state, event["seat"])
    facts.draws.extend(plugin.draws_from_picks(facts.deck_key, picks))
