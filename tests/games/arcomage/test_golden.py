"""Golden replays: whole recorded matches must replay to the very same final state.

Each fixtures/games/arcomage/golden-*.json holds a stream key (hex), the params, the events
(moves, timeouts, a resignation) and the final ``state_to_json``. Setup draws from
``RandomStream(key, "setup")`` and the n-th event (0-based) from ``RandomStream(key, "ply/n")``,
as the protocol does. A rule or data change that alters any shuffle, draw or number breaks
them: that needs a new rules version, not new fixtures.

To write them again (only with a new rules version):
``.venv/bin/python tests/games/arcomage/test_golden.py``
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from fairdeal.games.arcomage import GAME
from fairdeal.games.arcomage.bots import BOTS
from fairdeal.verifier.rng import RandomStream

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "games" / "arcomage"
GOLDEN = sorted(FIXTURES.glob("golden-*.json"))


def test_there_are_golden_replays() -> None:
    assert len(GOLDEN) >= 2


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_replay(path: Path, golden_replay: Any) -> None:
    fixture = json.loads(path.read_text(encoding="utf-8"))
    assert fixture["rules_version"] == GAME.rules_version
    final = golden_replay(GAME, fixture)
    assert GAME.state_to_json(final) == fixture["final_state"]
    assert GAME.result(final).to_json() == fixture["result"]


def _record(
    name: str, key: bytes, params: dict[str, Any], seed: int, timeouts: float, bots: tuple[str, str]
) -> None:
    """Play bots against each other (with some timeouts) and write the fixture."""
    choices = random.Random(seed)
    state = GAME.setup(params, RandomStream(key, "setup"))
    events: list[dict[str, Any]] = []
    while GAME.result(state) is None:
        rng = RandomStream(key, f"ply/{len(events)}")
        if choices.random() < timeouts:
            events.append({"type": "timeout", "seat": state.turn})
            state = GAME.timeout(state, rng)
            continue
        bot = BOTS[bots[state.turn]]
        action = bot.choose(state, choices)
        events.append({"type": "move", "seat": state.turn, "action": GAME.action_to_json(action)})
        state = GAME.apply(state, action, rng)
    fixture = {
        "game": GAME.name,
        "rules_version": GAME.rules_version,
        "key": key.hex(),
        "params": GAME.normalize_params(params),
        "events": events,
        "result": GAME.result(state).to_json(),
        "final_state": GAME.state_to_json(state),
    }
    path = FIXTURES / f"golden-{name}.json"
    path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {len(events)} events, {fixture['result']}")


if __name__ == "__main__":
    FIXTURES.mkdir(parents=True, exist_ok=True)
    # a long normal-deck match: the draw pile runs out and the discard pile is reshuffled
    _record(
        "normal-free-steppe",
        bytes([13]) * 32,
        {"battlefield": "free-steppe"},
        seed=13,
        timeouts=0.05,
        bots=("greedy", "random"),
    )
    _record(
        "infinite-mirror-labyrinth",
        bytes.fromhex("3c" * 16 + "d2" * 16),
        {"battlefield": "mirror-labyrinth", "deck": "infinite"},
        seed=2,
        timeouts=0.04,
        bots=("greedy", "random"),
    )
    # lost by three timeouts in a row
    _record(
        "timeouts-crystal-garden",
        bytes([23]) * 32,
        {"battlefield": "crystal-garden"},
        seed=23,
        timeouts=0.35,
        bots=("random", "random"),
    )
