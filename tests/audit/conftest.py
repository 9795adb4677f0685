"""Bundles for the audit's tests: real sealed matches, built quickly.

``resigned_bundles`` records matches in which the first player resigns at once: honest, sealed
and verifiable like any other (the audit looks at the deal, which is all there at the start),
and a hundred times cheaper to build than a played match. Filtering such honest matches is how
the tests plant a favoured seat or player: every match kept still verifies.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.record import MatchRecorder, make_genesis

START_MS = 1_767_225_600_000  # 2026-01-01T00:00Z
SERVER_KEY = SigningKey.from_seed(bytes(range(32)))


def resigned_bundle(game: str, params: dict[str, Any], players: tuple[str, str],
                    source: random.Random, ts: int) -> dict[str, Any]:
    server_seed = source.randbytes(32)
    genesis = make_genesis(game_name=game, params=params, seats=list(players),
                           match_id=source.randbytes(8).hex(), server_seed=server_seed,
                           server_key_id=SERVER_KEY.key_id, turn_limit_ms=60_000, ts=ts)
    recorder = MatchRecorder(genesis, server_seed)
    for seat in (0, 1):
        recorder.append("client_seed", ts + 1 + seat, seat=seat,
                        client_seed=source.randbytes(32).hex())
    seat = recorder.game.current_seat(recorder.state)
    recorder.append("resign", ts + 10, seat=seat)
    recorder.reveal(ts + 11)
    return recorder.seal(SERVER_KEY)


Keep = Callable[[dict[str, Any]], bool]


def resigned_bundles(game: str, n: int, seed: int, *, params: dict[str, Any] | None = None,
                     players: tuple[str, ...] = ("ann", "bob"),
                     keep: Keep | None = None) -> Iterator[tuple[str, bytes]]:
    """``n`` sealed bundles (seats drawn from ``players``), only those ``keep`` accepts."""
    source = random.Random(seed)
    made = 0
    index = 0
    while made < n:
        pair = tuple(source.sample(players, 2)) if len(players) > 2 else tuple(players)
        bundle = resigned_bundle(game, params or {}, pair, source,  # type: ignore[arg-type]
                                 START_MS + index * 60_000)
        index += 1
        if keep is not None and not keep(bundle):
            continue
        made += 1
        yield bundle["events"][0]["match_id"], json.dumps(bundle).encode()


def deal_state(bundle: dict[str, Any]) -> Any:
    """The first state of a bundle, re-derived by the verifier's replayer."""
    from fairdeal.verifier.replay import MatchReplayer

    parsed = Bundle.from_json(bundle)
    replayer = MatchReplayer(parsed.genesis, bytes.fromhex(parsed.events[-1]["server_seed"]))
    for event in parsed.events[1:]:
        replayer.feed(event)
        if replayer.started:
            return replayer.state
    raise AssertionError("no deal")


@pytest.fixture(scope="session")
def honest_corpus() -> list[tuple[str, bytes]]:
    """Played matches of every game and deck (fixed seeds), and quick two-tower ones."""
    from fairdeal.client.simulate import SimulationSettings, simulate_matches

    items: list[tuple[str, bytes]] = []
    for game, params, n in (("arcomage", {"deck": "infinite"}, 25), ("toybattle", {}, 30),
                            ("wyrdstone", {}, 30)):
        settings = SimulationSettings(game, params, ("random", "random"))
        for bundle in simulate_matches(settings, n, seed=f"audit-{game}", server_key=None):
            items.append((f"{game}-{len(items)}", json.dumps(bundle).encode()))
    items += resigned_bundles("arcomage", 300, seed=1)
    items += resigned_bundles("toybattle", 100, seed=2)
    return items
