"""Golden replays: whole recorded duels must replay to the very same final state.

Each fixtures/games/wyrdstone/golden-*.json holds a stream key (hex), the params, the events
(moves, timeouts, a resignation) and the final ``state_to_json``. Setup draws from
``RandomStream(key, "setup")`` and the n-th event (0-based) from ``RandomStream(key, "ply/n")``,
as the protocol does. A rule or book change that alters any number breaks them: that needs a
new rules version, not new fixtures. Each fixture replays under the rules version it names:
the wyrdstone/1 ones (``golden-*``) under the old rules, the wyrdstone/2 ones
(``golden-v2-*``) under the new, so both versions stay pinned.

To write the newest version's ones again (only with a new rules version):
``.venv/bin/python tests/games/wyrdstone/test_golden.py``
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from fairdeal.games import get_rules, rules_versions
from fairdeal.games.wyrdstone import GAME
from fairdeal.games.wyrdstone.bots import BOTS
from fairdeal.verifier.rng import RandomStream

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "games" / "wyrdstone"
GOLDEN = sorted(FIXTURES.glob("golden-*.json"))


def _version(path: Path) -> str:
    return str(json.loads(path.read_text(encoding="utf-8"))["rules_version"])


def test_every_rules_version_has_golden_replays() -> None:
    versions = [_version(path) for path in GOLDEN]
    for version in rules_versions("wyrdstone"):
        assert versions.count(version) >= 3, f"too few golden replays of {version}"
    assert all(_version(path) == "wyrdstone/2" for path in GOLDEN if "-v2-" in path.name)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_replay(path: Path, golden_replay: Any) -> None:
    fixture = json.loads(path.read_text(encoding="utf-8"))
    game = get_rules("wyrdstone", fixture["rules_version"])
    final = golden_replay(game, fixture)
    assert game.state_to_json(final) == fixture["final_state"]
    assert game.result(final).to_json() == fixture["result"]


def _record(name: str, key: bytes, params: dict[str, Any], seed: int, timeouts: float,
            bots: tuple[str, str], resign_at: int | None = None) -> None:
    """Play bots against each other (with some timeouts) and write the fixture."""
    choices = random.Random(seed)
    state = GAME.setup(params, RandomStream(key, "setup"))
    events: list[dict[str, Any]] = []
    while GAME.result(state) is None:
        rng = RandomStream(key, f"ply/{len(events)}")
        if resign_at is not None and len(events) == resign_at:
            events.append({"type": "resign", "seat": state.seat})
            state = GAME.resign(state, state.seat)
            continue
        if choices.random() < timeouts:
            events.append({"type": "timeout", "seat": state.seat})
            state = GAME.timeout(state, rng)
            continue
        action = BOTS[bots[state.seat]].choose(state, choices)
        events.append({"type": "move", "seat": state.seat, "action": GAME.action_to_json(action)})
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
    path = FIXTURES / f"golden-v2-{name}.json"
    path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {len(events)} events, turn {state.turn}, {fixture['result']}")


if __name__ == "__main__":
    FIXTURES.mkdir(parents=True, exist_ok=True)
    # the default duel, Fire against Earth
    _record("default-greedy-random", bytes([17]) * 32, {}, seed=17, timeouts=0.0,
            bots=("greedy", "random"))
    # a training battle: timed-out turns are skipped; the Neutral school under the Lich
    _record("training-lich-air", bytes.fromhex("5a" * 16 + "a5" * 16),
            {"training": True, "A": {"school": "neutral", "patron": "lich",
                                     "runes": ["rune-of-the-grave", "rune-of-storms"],
                                     "skills": ["necromancy", "regeneration"]},
             "B": {"school": "air", "artifacts": ["death-mask", "chalice-of-life"]}},
            seed=4, timeouts=0.15, bots=("random", "greedy"))
    # a ranked duel lost on time
    _record("timeout-water-death", bytes([99]) * 32,
            {"A": {"school": "water"}, "B": {"school": "death"}}, seed=99, timeouts=0.04,
            bots=("greedy", "greedy"))
    # every turn of a training battle timed out and skipped: Wrath of the Gods fells both
    _record("training-all-skipped-wrath", bytes([3]) * 32, {"training": True}, seed=3,
            timeouts=1.0, bots=("random", "random"))
    # tavern effects on both sides
    _record("tavern-death-fire", bytes([71]) * 32,
            {"A": {"school": "death", "tavern": ["gravediggers-gin", "hermits-tea"]},
             "B": {"tavern": ["bitter-draught", "fire-whisky"]}},
            seed=71, timeouts=0.0, bots=("greedy", "greedy"))
    # a resignation
    _record("resigned-water-air", bytes([12]) * 32,
            {"A": {"school": "water"}, "B": {"school": "air", "tavern": ["storm-mead"]}},
            seed=12, timeouts=0.0, bots=("greedy", "random"), resign_at=9)
