"""Every command works on Crazy Eights from its own package, with no game-specific line in
fairdeal: ``rules``, ``simulate``, ``verify``, ``replay``, ``dispute``, ``gif`` and ``audit``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

#: the ``fairdeal`` fixture (conftest.py): the command's result, its exit code checked
Run = Callable[..., Result]


def test_rules_lists_the_game_and_shows_its_deck(fairdeal: Run) -> None:
    listed = fairdeal("rules").stdout.splitlines()
    assert "crazy-eights Crazy Eights (rules crazy-eights/1)" in listed
    shown = fairdeal("rules", "crazy-eights").stdout
    assert shown.startswith("Crazy Eights — rules crazy-eights/1\n")
    data = json.loads(fairdeal("rules", "crazy-eights", "--json").stdout)
    cards = json.dumps(data)
    assert all(f'"{code}"' in cards for code in ("Ac", "10h", "8d", "Ks"))


def test_simulate_records_matches_that_verify(fairdeal: Run, matches: list[Path]) -> None:
    assert len(matches) == 8
    verified = fairdeal("verify", *map(str, matches)).stdout.splitlines()
    assert sum(line.startswith("OK: ") for line in verified) == 8
    assert all("(crazy-eights, " in line for line in verified if line.startswith("OK: "))
    stocks = {json.loads(path.read_text())["events"][0]["params"]["stock"] for path in matches}
    assert stocks == {"reshuffle", "pass"}


def test_simulate_is_reproducible_with_a_seed(fairdeal: Run, tmp_path: Path) -> None:
    for name in ("one", "two"):
        fairdeal("simulate", "crazy-eights", "-n", "2", "--seed", "again", "--out",
                 str(tmp_path / name))
    one = sorted((tmp_path / "one").glob("*.json"))
    assert [path.read_bytes() for path in one] == [
        (tmp_path / "two" / path.name).read_bytes() for path in one]


def test_simulate_refuses_the_stock_option_for_another_game_and_a_bad_value(
        fairdeal: Run, tmp_path: Path) -> None:
    refused = fairdeal("simulate", "arcomage", "--stock", "pass", "--out", str(tmp_path / "a"),
                       code=2)
    assert refused.stderr.splitlines()[-1] == (
        "Error: Invalid value for --stock: --stock is for Crazy Eights")
    bad = fairdeal("simulate", "crazy-eights", "--param", "stock=never", "--out",
                   str(tmp_path / "b"), code=2)
    assert "stock 'never' is not one of: reshuffle, pass" in bad.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_replay_shows_a_step_with_the_hands_after_the_reveal(fairdeal: Run,
                                                             matches: list[Path]) -> None:
    text = fairdeal("replay", str(matches[0]), "--step", "3").stdout.splitlines()
    assert text[0].startswith("step 3 (event ")
    assert text[1].startswith("Crazy Eights: ")
    assert any(line.startswith("  seat A's hand: ") for line in text)
    state = json.loads(fairdeal("replay", str(matches[0]), "--step", "0", "--json").stdout)
    dealt = [*state["hands"][0], *state["hands"][1], *state["discard"], *state["stock"]]
    assert len(state["hands"][0]) == len(state["hands"][1]) == 7
    deck = json.loads(fairdeal("rules", "crazy-eights", "--json").stdout)["cards"]
    assert sorted(dealt) == sorted(card["card"] for card in deck)  # the whole deck, once each


def _step_playing_an_eight(bundle: dict[str, Any]) -> int:
    moves = [event for event in bundle["events"] if event["type"] in ("move", "timeout")]
    for step, event in enumerate(moves, 1):
        action = event.get("action") or {}
        if str(action.get("card", "")).startswith("8"):
            return step
    raise AssertionError("no eight was played in this match")


def test_dispute_quotes_the_rule_a_move_relied_on(fairdeal: Run, matches: list[Path],
                                                 tmp_path: Path) -> None:
    for path in matches:
        bundle = json.loads(path.read_text())
        try:
            step = _step_playing_an_eight(bundle)
        except AssertionError:
            continue
        out = tmp_path / "dispute.html"
        fairdeal("dispute", str(path), "--step", str(step), "-o", str(out))
        page = out.read_text()
        assert "eights are wild: an eight goes on any card and names the suit to follow" in page
        assert "and names " in page
        return
    raise AssertionError("no simulated match played an eight")


def test_gif_draws_the_replay(fairdeal: Run, matches: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "match.gif"
    said = fairdeal("gif", str(matches[0]), "--step", "0:6", "-o", str(out)).stdout
    assert "steps 0 to 6 (7 frames, 480 px wide" in said
    assert out.read_bytes()[:6] == b"GIF89a"
