"""``fairdeal verify`` catches each cheat on a Crazy Eights match, at the check that must
refuse it, while the honest match beside them passes: one attack, one assertion.

The forger holds a signing key of its own and re-seals what it edits (fairdeal.verifier.forge:
what a dishonest server can do to a history it rewrites), so only the edit is left to find."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from fairdeal.verifier.forge import reseal
from fairdeal.verifier.keys import SigningKey

Run = Callable[..., Result]
FORGER = SigningKey.from_seed(hashlib.sha256(b"crazy eights forger").digest())


def _own(bundle: dict[str, Any]) -> dict[str, Any]:
    """The match as if the forger's key had created and sealed it (an honest match still)."""
    bundle["events"][0]["server_key_id"] = FORGER.key_id
    return reseal(bundle, FORGER, recommit=True)


def _first_play(bundle: dict[str, Any]) -> dict[str, Any]:
    return next(event for event in bundle["events"]
                if event["type"] == "move" and event["action"]["kind"] == "play")


def _other_seed(bundle: dict[str, Any]) -> str:
    seed = bundle["events"][-1]["server_seed"]
    return ("1" if seed[0] == "0" else "0") + seed[1:]


def _honest(bundle: dict[str, Any]) -> dict[str, Any]:
    return _own(bundle)


def _move_edited(bundle: dict[str, Any]) -> dict[str, Any]:
    _own(bundle)
    _first_play(bundle)["action"] = {"kind": "draw"}  # not re-sealed: the chain breaks
    return bundle


def _illegal_move_resealed(bundle: dict[str, Any]) -> dict[str, Any]:
    _own(bundle)
    moves = [event for event in bundle["events"] if event["type"] == "move"]
    # a seat that played without drawing first could play: passing instead breaks the rules
    play = next(event for before, event in zip(moves, moves[1:], strict=False)
                if event["action"]["kind"] == "play" and before["action"]["kind"] != "draw")
    play["action"] = {"kind": "pass"}
    return reseal(bundle, FORGER)


def _seed_swapped(bundle: dict[str, Any]) -> dict[str, Any]:
    _own(bundle)
    bundle["events"][-1]["server_seed"] = _other_seed(bundle)  # another deck order
    return reseal(bundle, FORGER)


def _seed_swapped_and_recommitted(bundle: dict[str, Any]) -> dict[str, Any]:
    _own(bundle)
    bundle["events"][-1]["server_seed"] = _other_seed(bundle)
    return reseal(bundle, FORGER, recommit=True)  # the commitment opens: the deal differs


CHEATS: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], str | None]] = {
    "honest": (_honest, None),
    "a move edited": (_move_edited, "chain check failed at event "),
    "an illegal move re-sealed": (_illegal_move_resealed,
                                  "may pass only after drawing, or when it can neither play "
                                  "nor draw"),
    "the seed swapped (another deck order)": (_seed_swapped,
                                              "commitment check failed at event "),
    "the seed swapped and re-committed": (_seed_swapped_and_recommitted,
                                          "moves check failed at event "),
}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_verify_catches_the_cheat(fairdeal: Run, matches: list[Path], tmp_path: Path,
                                  cheat: str) -> None:
    forge, failure = CHEATS[cheat]
    source = next(path for path in matches
                  if len([e for e in json.loads(path.read_text())["events"]
                          if e["type"] == "move"]) > 10)
    path = tmp_path / "cheat.json"
    path.write_text(json.dumps(forge(json.loads(source.read_text()))))
    result = fairdeal("verify", "-v", "--trusted-key", FORGER.public_text, str(path),
                      code=0 if failure is None else 1)
    if failure is None:
        assert result.stdout.startswith(f"OK: {path}")
    else:
        assert result.stdout.startswith(f"FAIL: {path}")
        assert failure in result.stdout, result.stdout
