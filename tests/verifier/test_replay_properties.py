"""Properties of whole matches: any honest bundle verifies and replays to the same states, every
time; the replay never drives a two-tower quantity below zero."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.verifier.protocol import PLAY_TYPES
from fairdeal.verifier.replay import replay_steps
from fairdeal.verifier.verify import verify_bytes

GAMES = st.sampled_from([
    ("arcomage", {"deck": "normal"}), ("arcomage", {"deck": "infinite"}),
    ("toybattle", {}), ("toybattle", {"board": "tropical-pool"}),
])
QUANTITIES = ("tower", "wall", "mines", "monasteries", "barracks", "ore", "mana", "troops")


def _states(bundle: dict) -> list[dict]:
    replayer, steps, error = replay_steps(bundle["events"],
                                          bytes.fromhex(bundle["events"][-1]["server_seed"]))
    assert error is None
    return [replayer.game.state_to_json(step.state) for step in steps]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES, st.text(min_size=1, max_size=12), st.booleans())
def test_honest_matches_verify_and_replay_identically(game: tuple, seed: str,
                                                      signed: bool) -> None:
    name, params = game
    config = SimulationSettings(name, params, ("random", "greedy"), signed_moves=signed)
    bundle = next(simulate_matches(config, 1, seed=seed, server_key=None))
    data = json.dumps(bundle).encode()
    report = verify_bytes(data)
    assert report.ok, report.failure
    first = _states(json.loads(data))
    assert first == _states(json.loads(data))
    assert len(first) == sum(e["type"] in PLAY_TYPES for e in bundle["events"]) + 1
    if name == "arcomage":
        for state in first:
            for player in state["players"]:
                assert all(player[q] >= 0 for q in QUANTITIES), player
