"""The pure helpers behind the pages: no Flask here."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fairdeal.web.viewer.matches import MatchCache, check_rows, load_bundle, load_live
from fairdeal.web.viewer.present import (
    badges,
    date_words,
    duration_words,
    event_rows,
    perspectives,
    result_words,
    state_tables,
)
from fairdeal.web.viewer.sources import summarize


@pytest.mark.parametrize(("ms", "words"), [(0, "0:00"), (59_999, "0:59"), (75_000, "1:15"),
                                           (3_723_000, "1:02:03"), (-5, "0:00")])
def test_duration_words(ms: int, words: str) -> None:
    assert duration_words(ms) == words


def test_badges_name_the_board_the_deck_and_the_timer() -> None:
    assert badges("arcomage", {"battlefield": "free-steppe", "deck": "infinite"}, 30_000) == [
        {"label": "free-steppe", "kind": "board"},
        {"label": "infinite deck", "kind": "deck"},
        {"label": "0:30 per turn", "kind": "timer"},
    ]
    assert badges("toybattle", {"board": "castle-field"}, None)[-1]["label"] == "no turn timer"


def test_result_words() -> None:
    seats = [{"name": "ann"}, {"name": "bob"}]
    assert result_words({"winner": 1, "reason": "tower-destroyed"}, seats) == \
        "B (bob) won: B destroyed A's tower"
    assert result_words({"winner": None, "reason": "turn-limit"}, seats) == \
        "draw: the turn limit came with the medals level"
    assert result_words(None, seats) == "in play"
    assert result_words({"winner": 7, "reason": "x"}, seats) == "? won: x"
    assert result_words({"winner": 0, "reason": "new-reason"}, seats) == "A (ann) won: new reason"


def test_toy_battle_results_read_as_a_player_says_them() -> None:
    from fairdeal.games import get_game

    game = get_game("toybattle")
    seats = [{"name": "player blue"}, {"name": "player red"}]
    words = result_words({"winner": 0, "reason": "stalemate"}, seats, game)
    assert words == "blue won: a side could not move, so the medals decided"
    assert "(player blue)" not in words and "·" not in words
    assert result_words({"winner": 1, "reason": "hq-captured"}, seats, game) == \
        "red won: red took blue's headquarters"


def test_every_reason_a_game_can_give_has_words() -> None:
    """Each reason code the rules packages write has a player's sentence (a new one fails)."""
    import re
    from pathlib import Path

    games = Path(__file__).resolve().parents[3] / "games"
    reasons = set()
    for path in games.rglob("*.py"):
        reasons |= set(re.findall(r'Outcome\(\s*[^,]+,\s*"([a-z0-9-]+)"', path.read_text()))
        for line in path.read_text().splitlines():
            if re.match(r"\s*reason = \"", line):  # reason = "wrath" if ... else "health"
                reasons |= set(re.findall(r'"([a-z0-9-]+)"', line))
    from fairdeal.games.arcomage.rules import _DETAIL  # its victory reasons, by code
    reasons |= set(_DETAIL)
    assert {"stalemate", "tower-destroyed", "health"} <= reasons
    from fairdeal.web.viewer.present import REASON_WORDS
    assert reasons <= set(REASON_WORDS), sorted(reasons - set(REASON_WORDS))
    assert date_words(None) == "" and date_words(0) == "1970-01-01 00:00 UTC"


def test_state_tables_turn_a_public_view_into_rows() -> None:
    tables = state_tables({"turn": 2, "deck": {"draw_pile_size": 80, "discard_pile": [1, 2]},
                           "players": [{"tower": 20, "hand": 6}, {"tower": 18, "wall": 3}]})
    assert tables is not None
    assert tables["facts"] == [("turn", "2"), ("deck", "draw_pile_size 80, discard_pile 1, 2")]
    assert tables["tables"][0]["columns"] == ["tower", "hand", "wall"]
    assert tables["tables"][0]["rows"] == [["20", "6", "–"], ["18", "–", "3"]]
    assert state_tables(None) is None


def _bytes(bundle: dict[str, Any]) -> bytes:
    return json.dumps(bundle).encode()


def test_loaded_match_keeps_a_snapshot_per_step(arcomage_bundles: Any) -> None:
    bundle = arcomage_bundles[0]
    match = load_bundle(_bytes(bundle))
    plays = [e for e in bundle["events"] if e["type"] in ("move", "timeout", "resign")]
    assert match.report.ok and match.last_step == len(plays)
    assert match.steps[0].caption == "The deal"
    assert all(step.state is not None for step in match.steps)
    assert match.step(10_000) is match.steps[-1] and match.step(-3) is match.steps[0]
    svg = match.svg(3, 0)
    assert svg.startswith("<svg") and match.svg(3, 0) is svg  # cached
    rows = event_rows(match)
    assert len(rows) == len(bundle["events"])
    assert [row["step"] for row in rows if row["step"] is not None] == list(
        range(len(match.steps)))
    assert [option["key"] for option in perspectives(match)] == ["all", "a", "b"]


def test_a_file_that_is_no_bundle_has_a_report_and_no_steps() -> None:
    match = load_bundle(b"\xff\xfe")
    assert not match.report.ok and match.steps == [] and match.events == []
    assert match.report.failure is not None and "UTF-8" in match.report.failure.reason
    assert [row["status"] for row in check_rows(match)][:2] == ["fail", "not-checked"]


def test_live_match_checks_the_chain_so_far_and_nothing_more(arcomage_bundles: Any) -> None:
    events = json.loads(json.dumps(arcomage_bundles[0]["events"][:6]))
    match = load_live(events[0]["match_id"], events)
    statuses = {row["name"]: row["status"] for row in check_rows(match)}
    assert statuses["chain"] == "pass" and statuses["commitment"] == "pending"
    assert list(statuses.values()).count("pass") == 2
    assert [option["key"] for option in perspectives(match)] == ["all"]  # hands stay hidden
    events[3]["ts"] += 1  # edited after it was recorded
    broken = load_live(events[0]["match_id"], events)
    assert broken.report.failure is not None and broken.report.failure.seq == 4


def test_match_cache_is_an_lru() -> None:
    cache = MatchCache(2)
    cache.get("a", lambda: 1)
    cache.get("b", lambda: 2)
    cache.get("a", lambda: 0)  # a is now the most recent
    cache.get("c", lambda: 3)
    assert cache.peek("b") is None and cache.peek("a") == 1 and len(cache) == 2


def test_summarize_reads_the_ledgers_summaries_and_the_memory_stores() -> None:
    ledger_row = {"id": "abc", "game": "arcomage", "params": {"deck": "normal"},
                  "seats": ["ann", "bob"], "status": "playing", "result": None,
                  "verified": False, "created_ms": 5, "events": 9}
    summary = summarize(ledger_row)
    assert (summary.match_id, summary.seats, summary.live, summary.events) == (
        "abc", ("ann", "bob"), True, 9)
    assert summarize({**ledger_row, "status": "imported"}).live is False
    memory_row = {"match_id": "x", "genesis": {"game": "toybattle", "params": {},
                  "seats": [{"name": "c"}, {"name": "d"}], "turn_limit_ms": 1000, "ts": 1},
                  "status": "ended", "result": {"winner": 0, "reason": "medals"}, "events": 3}
    summary = summarize(memory_row)
    assert (summary.game, summary.seats, summary.turn_limit_ms, summary.live) == (
        "toybattle", ("c", "d"), 1000, False)
