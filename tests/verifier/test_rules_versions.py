"""Rules versions (docs/SPEC.md, "Rules versions"): a match replays under the version its
genesis names, old or new; the wyrdstone/1 archive still verifies byte for byte; and a game can
time the whole turn instead of each action (wyrdstone/2's 60 seconds)."""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Any

import pytest

from fairdeal.games import InvalidParams, UnknownRulesVersion, get_game, get_rules, rules_versions
from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import commitment
from fairdeal.verifier.record import MatchRecorder, make_genesis
from fairdeal.verifier.replay import MatchReplayer, load_game
from fairdeal.verifier.report import VerificationError
from fairdeal.verifier.verify import verify_bytes

BUNDLES = Path(__file__).parents[2] / "fixtures" / "bundles"
HONEST = BUNDLES / "honest"
ARCHIVE = BUNDLES / "v1" / "honest"
SERVER_KEY = (BUNDLES / "server-key.txt").read_text().strip()
#: the wyrdstone/1 bundles (protocol fairdeal/1) exactly as committed when wyrdstone/1 was the
#: newest rules (7838273): an archive whose old matches stop verifying is no archive
V1_ARCHIVE = {
    "wyrdstone-fire-against-earth":
        "1a0406d3ed14573d0ef4cfde71b2fb56b12ab7c0cb6c3aa61be30d5824853c9d",
    "wyrdstone-neutral-lich-against-water":
        "90583cbdc462139f6ad4a2c2afbd0657fc612fcff15ba857fae78bead046835e",
    "wyrdstone-training":
        "763b8e2bda2d1c4a0d6e0b1188d6ccf5fa3569403c651e279331f52cb3df9275",
}
T0 = 1_800_000_000_000
SEED = bytes(range(32))


# ---------------------------------------------------------------- the registry


def test_the_registry_keeps_every_version_and_new_matches_use_the_newest() -> None:
    assert rules_versions("wyrdstone") == ("wyrdstone/1", "wyrdstone/2")
    assert get_game("wyrdstone").rules_version == "wyrdstone/2"
    assert get_rules("wyrdstone", "wyrdstone/1").rules_version == "wyrdstone/1"
    assert rules_versions("arcomage") == ("arcomage/1",)
    assert get_rules("arcomage", "arcomage/1") is get_game("arcomage")
    with pytest.raises(UnknownRulesVersion, match=r"^wyrdstone has no rules version "
                       r"'wyrdstone/9' \(this code knows 'wyrdstone/1', 'wyrdstone/2'\)$"):
        get_rules("wyrdstone", "wyrdstone/9")


def test_the_versions_hash_differently() -> None:
    v1, v2 = (get_rules("wyrdstone", f"wyrdstone/{n}") for n in (1, 2))
    assert _genesis(v1.rules_version)["rules_hash"] != _genesis(v2.rules_version)["rules_hash"]


# ---------------------------------------------------------------- the wyrdstone/1 archive


@pytest.mark.parametrize("name", sorted(V1_ARCHIVE))
def test_the_wyrdstone_1_archive_still_verifies_byte_for_byte(name: str) -> None:
    data = (ARCHIVE / f"{name}.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == V1_ARCHIVE[name]
    report = verify_bytes(data, SERVER_KEY)
    assert report.ok, report.failure
    rules = next(check for check in report.checks if check.name == "rules")
    assert rules.detail == "Wyrdstone mage duel, rules wyrdstone/1"


@pytest.mark.parametrize("name", sorted(V1_ARCHIVE))
def test_wyrdstone_1_bundles_rebuilt_under_the_new_protocol_verify_too(name: str) -> None:
    report = verify_bytes((HONEST / f"{name}.json").read_bytes(), SERVER_KEY)
    assert report.ok, report.failure
    assert report.facts["game"] == "wyrdstone"
    assert Bundle.from_bytes((HONEST / f"{name}.json").read_bytes()).events[0][
        "rules_version"] == "wyrdstone/1"


def _archived_genesis(**changes: Any) -> dict[str, Any]:
    genesis = Bundle.from_bytes((ARCHIVE / "wyrdstone-training.json").read_bytes()).events[0]
    return {**genesis, **changes}


def test_a_version_this_code_does_not_know_names_the_known_ones() -> None:
    with pytest.raises(VerificationError) as e:
        load_game(_archived_genesis(rules_version="wyrdstone/9"))
    assert e.value.check == "rules" and e.value.reason == (
        "the match was played under rules 'wyrdstone/9': wyrdstone has no rules version "
        "'wyrdstone/9' (this code knows 'wyrdstone/1', 'wyrdstone/2')")


def test_a_v1_match_claiming_v2_fails_on_the_hash() -> None:
    with pytest.raises(VerificationError, match="is not the hash of wyrdstone/2") as e:
        load_game(_archived_genesis(rules_version="wyrdstone/2"))
    assert e.value.check == "rules"


# ---------------------------------------------------------------- the whole-turn timer


def _genesis(version: str, turn_limit_ms: int | None = 60_000,
             params: dict[str, Any] | None = None) -> dict[str, Any]:
    return make_genesis(game_name="wyrdstone", params=params or {}, seats=["a", "b"],
                        match_id="timer-test", server_seed=SEED,
                        server_key_id=SigningKey.from_seed(bytes(32)).key_id,
                        turn_limit_ms=turn_limit_ms, ts=T0, rules_version=version)


def _started(version: str, params: dict[str, Any] | None = None) -> tuple[MatchRecorder, int]:
    """A duel under ``version`` whose first turn began at T0 + 2; and the first seat."""
    recorder = MatchRecorder(_genesis(version, params=params), SEED)
    recorder.append("client_seed", T0 + 1, seat=0, client_seed=None)
    recorder.append("client_seed", T0 + 2, seat=1, client_seed=None)
    return recorder, recorder.game.current_seat(recorder.state)


RUNE = {"kind": "rune", "rune": "rune-of-healing"}
SKIP = {"kind": "skip"}


def test_the_whole_turn_has_60_seconds() -> None:
    recorder, seat = _started("wyrdstone/2")
    start = T0 + 2
    recorder.append("move", start + 59_000, seat=seat, action=RUNE)
    assert recorder.replayer.deadline_ms() == start + 60_000  # the rune does not reset it
    with pytest.raises(VerificationError, match="^timers: event 4: the move came 60001 ms "
                       "into the turn, after its 60000 ms limit"):
        recorder.append("move", start + 60_001, seat=seat, action=SKIP)
    recorder = _started("wyrdstone/2")[0]
    recorder.append("move", start + 59_000, seat=seat, action=RUNE)
    recorder.append("move", start + 60_000, seat=seat, action=SKIP)  # the last moment
    # the other mage's turn began with that skip
    assert recorder.replayer.deadline_ms() == start + 120_000
    recorder.append("move", start + 119_000, seat=1 - seat, action=SKIP)


def test_v1_timed_each_action() -> None:
    recorder, seat = _started("wyrdstone/1")
    start = T0 + 2
    recorder.append("move", start + 59_000, seat=seat, action=RUNE)
    assert recorder.replayer.deadline_ms() == start + 119_000
    recorder.append("move", start + 118_000, seat=seat, action=SKIP)  # accepted under /1


def test_a_timeout_comes_at_the_turns_deadline_not_the_actions() -> None:
    recorder, seat = _started("wyrdstone/2")
    start = T0 + 2
    recorder.append("move", start + 30_000, seat=seat, action=RUNE)
    with pytest.raises(VerificationError,
                       match="^timers: event 4: a timeout written 59999 ms into the turn"):
        recorder.append("timeout", start + 59_999, seat=seat)
    recorder = _started("wyrdstone/2")[0]
    recorder.append("move", start + 30_000, seat=seat, action=RUNE)
    recorder.append("timeout", start + 60_000, seat=seat)
    assert recorder.replayer.outcome is not None
    assert recorder.replayer.outcome.to_json() == {"winner": 1 - seat, "reason": "timeout"}


def test_a_training_timeout_skips_and_hands_the_other_mage_a_fresh_turn() -> None:
    recorder, seat = _started("wyrdstone/2", {"training": True})
    start = T0 + 2
    recorder.append("timeout", start + 60_000, seat=seat)
    assert recorder.replayer.outcome is None
    assert recorder.game.current_seat(recorder.state) == 1 - seat
    assert recorder.replayer.deadline_ms() == start + 120_000


def test_wyrdstone_2_refuses_another_turn_limit() -> None:
    with pytest.raises(InvalidParams, match="turn_limit_ms must be 60000, got 30000"):
        _genesis("wyrdstone/2", turn_limit_ms=30_000)
    _genesis("wyrdstone/1", turn_limit_ms=30_000)  # the header's, under /1
    # a genesis forged with another limit fails the rules check
    genesis = copy.deepcopy(_genesis("wyrdstone/2"))
    genesis["turn_limit_ms"] = None
    genesis["commitment"] = commitment(SEED, genesis)
    with pytest.raises(VerificationError, match=r"^rules: event 0: turn limit: wyrdstone/2 "
                       r"fixes the turn at 60 s for the whole turn: turn_limit_ms must be "
                       r"60000, got None$") as e:
        MatchReplayer(genesis, SEED)
    assert e.value.check == "rules"


def test_the_report_says_the_limit_is_for_the_whole_turn() -> None:
    report = verify_bytes((HONEST / "wyrdstone2-timeout-loss.json").read_bytes(), SERVER_KEY)
    assert report.ok, report.failure
    timers = next(check for check in report.checks if check.name == "timers")
    assert timers.detail == "turn limit 60000 ms for the whole turn"
    old = verify_bytes((ARCHIVE / "wyrdstone-training.json").read_bytes(), SERVER_KEY)
    assert next(c for c in old.checks if c.name == "timers").detail == "turn limit 60000 ms"
