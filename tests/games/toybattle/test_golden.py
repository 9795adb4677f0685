"""Golden replays: one whole recorded match per board must replay to the very same state.

Each fixtures/games/toybattle/<board>.json holds a stream key (hex), the params, the events
(moves, server timeouts, perhaps a resignation) and the final ``state_to_json``. Setup draws
from ``RandomStream(key, "setup")`` and the n-th event (0-based) from
``RandomStream(key, "ply/n")``, as the protocol does. A rule or data change that alters any
shuffle, draw, random pick or outcome breaks them: that needs a new rules version, not new
fixtures.

To write them again (only with a new rules version):
``.venv/bin/python tests/games/toybattle/test_golden.py``
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from fairdeal.games.toybattle import BOARDS, GAME
from fairdeal.games.toybattle.bots import BOTS
from fairdeal.verifier.rng import RandomStream

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "games" / "toybattle"
GOLDEN = {board.id: FIXTURES / f"{board.id}.json" for board in BOARDS}

#: what each board's match must show, so its special bases really are exercised
SPECIAL_MOVES = {
    "castle-field": "castle",
    "city-of-clouds": "clouds",
    "volcanic-jungle": "volcano",
    "cursed-cemetery": "cemetery",
}


@pytest.mark.parametrize("board", list(GOLDEN))
def test_golden_replay(board: str, golden_replay: Any) -> None:
    fixture = json.loads(GOLDEN[board].read_text(encoding="utf-8"))
    assert fixture["rules_version"] == GAME.rules_version
    assert fixture["params"] == {"board": board}
    final = golden_replay(GAME, fixture)
    assert GAME.state_to_json(final) == fixture["final_state"]
    assert GAME.result(final).to_json() == fixture["result"]
    kinds = {e["action"]["kind"] for e in fixture["events"] if e["type"] == "move"}
    if board in SPECIAL_MOVES:
        assert SPECIAL_MOVES[board] in kinds


def _record(board: str, seed: int, timeouts: float, bots: tuple[str, str]) -> dict[str, Any]:
    """Play bots against each other (with some server timeouts) and return the fixture."""
    key = hashlib.sha256(f"fairdeal toybattle golden {board} {seed}".encode()).digest()
    choices = random.Random(seed)
    params = {"board": board}
    state = GAME.setup(params, RandomStream(key, "setup"))
    events: list[dict[str, Any]] = []
    while GAME.result(state) is None:
        rng = RandomStream(key, f"ply/{len(events)}")
        seat = state.seat
        if choices.random() < timeouts:
            events.append({"type": "timeout", "seat": seat})
            state = GAME.timeout(state, rng)
            continue
        action = BOTS[bots[seat]].choose(state, choices)
        events.append({"type": "move", "seat": seat, "action": GAME.action_to_json(action)})
        state = GAME.apply(state, action, rng)
    return {
        "game": GAME.name,
        "rules_version": GAME.rules_version,
        "key": key.hex(),
        "params": GAME.normalize_params(params),
        "bots": list(bots),
        "events": events,
        "result": GAME.result(state).to_json(),
        "final_state": GAME.state_to_json(state),
    }


def _interesting(board: str, fixture: dict[str, Any]) -> bool:
    events = fixture["events"]
    kinds = {e["action"]["kind"] for e in events if e["type"] == "move"}
    effects = {"skully", "jumbo", "xb42", "star"} & kinds
    if len(effects) < 2 or not any(e["type"] == "timeout" for e in events):
        return False
    if board in SPECIAL_MOVES:
        return SPECIAL_MOVES[board] in kinds
    if board == "battlefield":
        return fixture["final_state"]["frozen"] != {"blue": [], "red": []} or any(
            e["type"] == "move" and e["action"].get("base") in (14, 16, 19, 21) for e in events
        )
    if board == "station-metal-x":
        return any(e["type"] == "move" and e["action"].get("base") in (16, 17, 18) for e in events)
    if board == "tropical-pool":
        return any(
            e["type"] == "move" and e["action"].get("base") in (12, 16, 17, 18, 22) for e in events
        )
    return True


if __name__ == "__main__":
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for index, board in enumerate(GOLDEN):
        bots = ("random", "random") if index % 2 == 0 else ("greedy", "random")
        for seed in range(1000):
            fixture = _record(board, seed, timeouts=0.04, bots=bots)
            if _interesting(board, fixture):
                break
        fixture["seed"] = seed
        GOLDEN[board].write_text(
            json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(
            f"{GOLDEN[board].name}: seed {seed}, {len(fixture['events'])} events, "
            f"{fixture['result']}"
        )
