"""Deals with a planted bias, for the power table (bench/audit_power.py) and the tests.

Each generator yields what the audit's map step yields for one match — its MatchFacts — without
playing the match, so the power of each test can be measured over many simulated audits. A fair
generator and each cheat draw their deals exactly as the protocol does: the game's ``setup``
over the setup stream of a 32-byte deal seed.

The cheats:

- ``skewed``: the shuffle's stream keeps only the low ``bits`` bits of each 64-bit word and
  takes them modulo n, without rejection (a classic modulo bias: small values a little likelier);
- ``seat``: the server re-creates a match, with probability ``q``, whenever seat A's opening hand
  came out weaker than seat B's (every such match still verifies);
- ``player``: the same for one player name ("mallory") among ten;
- ``first``: the same whenever seat A would not move first;
- ``player-first``: the same whenever mallory (one of ten) would not move first;
- ``seed-bits``: the server seeds' bits are set with probability 1/2 + ``eps``;
- ``seed-runs``: each bit of a server seed repeats the one before with probability 1/2 + ``eps``;
- ``abandon`` (``abandoned_matches``): whenever mallory's opening hand came out weaker than her
  opponent's, the server abandons the match unsealed with probability ``q`` and deals a new one.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, MutableSequence
from typing import Any

from fairdeal.games import get_game
from fairdeal.verifier.protocol import setup_stream
from fairdeal.verifier.rng import RandomStream

from .facts import MatchFacts, deck_key
from .strength import describe_deal

__all__ = ["PLAYERS", "SkewedStream", "deals", "facts_of_deal"]

#: the player pool of the player scenario; mallory is the favoured one
PLAYERS = ("mallory", *(f"player-{i}" for i in range(1, 10)))


class SkewedStream(RandomStream):
    """A subtly biased stream: ``randbelow`` takes ``bits`` bits modulo n, no rejection."""

    __slots__ = ("_mask",)

    def __init__(self, key: bytes, label: str, bits: int = 12) -> None:
        super().__init__(key, label)
        self._mask = (1 << bits) - 1

    def randbelow(self, n: int) -> int:
        return (self._next_u64() & self._mask) % n

    def shuffle(self, items: MutableSequence[Any]) -> None:
        # Fisher-Yates through the skewed randbelow (the parent's shuffle draws inline)
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def substream(self, label: str) -> SkewedStream:
        return SkewedStream(self._key, f"{self.label}/{label}", self._mask.bit_length())


def facts_of_deal(game_name: str, params: dict[str, Any], deal: bytes,
                  players: tuple[str, str], server_seed: bytes,
                  skew_bits: int | None = None) -> MatchFacts:
    """The facts of a match dealt from ``deal`` (the audit's map step, minus the match)."""
    game = get_game(game_name)
    stream = setup_stream(deal) if skew_bits is None else SkewedStream(deal, "setup", skew_bits)
    state = game.setup(params, stream)
    genesis = {"game": game_name, "params": game.normalize_params(params)}
    facts = MatchFacts(match_id=deal[:8].hex(), game=game_name, deck_key=deck_key(genesis),
                       players=players, first_seat=game.current_seat(state) or 0,
                       server_seed=server_seed)
    describe_deal(facts, state)
    return facts


def _unfavourable(scenario: str, facts: MatchFacts) -> bool:
    z = facts.hand_z or (0.0, 0.0)
    if scenario == "seat":
        return z[0] < z[1]
    if scenario == "player":
        seat = facts.players.index("mallory") if "mallory" in facts.players else None
        return seat is not None and z[seat] < z[1 - seat]
    if scenario == "first":
        return facts.first_seat != 0
    if scenario == "player-first":
        return "mallory" in facts.players and facts.players[facts.first_seat] != "mallory"
    return False


def deals(scenario: str, n: int, seed: int, *, game: str,
          params: dict[str, Any] | None = None, strength: float = 0.0) -> Iterator[MatchFacts]:
    """``n`` matches' facts under ``scenario`` ("fair", "skewed", "seat", "player", "first",
    "seed-bits") with the bias ``strength`` (bits for skewed, q or eps for the others)."""
    source = random.Random(seed)
    params = params or {}
    for _ in range(n):
        if scenario in ("player", "player-first"):
            players = tuple(source.sample(PLAYERS, 2))
        else:
            players = ("player-a", "player-b")
        if scenario == "seed-bits":
            bits = sum((source.random() < 0.5 + strength) << i for i in range(256))
            server_seed = bits.to_bytes(32, "big")
        elif scenario == "seed-runs":
            bit, bits = source.random() < 0.5, 0
            for i in range(256):
                if i and source.random() >= 0.5 + strength:
                    bit = not bit
                bits |= bit << i
            server_seed = bits.to_bytes(32, "big")
        else:
            server_seed = source.randbytes(32)
        skew = int(strength) if scenario == "skewed" else None
        facts = facts_of_deal(game, params, source.randbytes(32), players,  # type: ignore[arg-type]
                              server_seed, skew)
        if _unfavourable(scenario, facts) and source.random() < strength:
            facts = facts_of_deal(game, params, source.randbytes(32), players,  # type: ignore[arg-type]
                                  server_seed, skew)
        yield facts


def abandoned_matches(n: int, seed: int, q: float, *, game: str, base: float = 0.02
                      ) -> dict[str, tuple[int, int]]:
    """Per player, matches created and never sealed, when the server abandons with probability
    ``q`` the matches in which mallory's hand came out the weaker (and ``base`` of all matches
    are abandoned by the players themselves, whoever they are). ``n`` sealed matches in all, of
    ``game`` (one that deals hands)."""
    source = random.Random(seed)
    counts = {name: [0, 0] for name in PLAYERS}
    sealed = 0
    while sealed < n:
        players = tuple(source.sample(PLAYERS, 2))
        facts = facts_of_deal(game, {}, source.randbytes(32), players,  # type: ignore[arg-type]
                              source.randbytes(32))
        abandoned = source.random() < base or (
            _unfavourable("player", facts) and source.random() < q)
        for name in players:
            counts[name][0] += 1
            counts[name][1] += abandoned
        sealed += not abandoned
    return {name: (created, unsealed) for name, (created, unsealed) in counts.items()}
