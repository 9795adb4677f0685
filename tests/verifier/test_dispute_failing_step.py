"""The step where a tampered match breaks is a step of the dispute report like any other: the
recorded event, what the rules expected there, and the failing check's words (issue 21, 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdeal.verifier.dispute import DisputeError, dispute_report
from fairdeal.verifier.dispute_html import dispute_html

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TAMPERED = FIXTURES / "bundles" / "tampered"
EXPECTED = json.loads((FIXTURES / "tampered-expected.json").read_text())
KEY = (FIXTURES / "bundles" / "server-key.txt").read_text().strip()

#: fixture → the step the replay stops at (the cheat), and the check that refuses it
BREAKS = {
    "swapped-card": (3, "moves"),
    "wrong-seat": (6, "moves"),
    "illegal-placement": (1, "moves"),
    "scroll-not-in-deck": (3, "moves"),
    "move-after-end": (37, "moves"),
    "forged-timeout": (7, "timers"),
    "changed-timestamp": (4, "timers"),
    "forged-player-move": (4, "seat-signatures"),
    "swapped-revealed-seed": (0, "seeds"),  # before the deal: step 0 is where it breaks
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_failing_step_is_a_step_with_the_recorded_event_and_the_checks_words(
        name: str) -> None:
    step, check = BREAKS[name]
    data = (TAMPERED / f"{name}.json").read_bytes()
    report = dispute_report(data, step, trusted_key=KEY)
    assert report["step"] == step == report["last_step"] == report["failing_step"]
    divergence = report["divergence"]
    assert divergence["check"] == check == EXPECTED[name]["check"]
    # the recorded event is the step's own event, and the failure is pinned to it
    assert report["event"] == divergence["recorded"]
    assert report["seq"] == divergence["seq"] == report["event"]["seq"]
    assert report["rule"].startswith(f"This step fails the {check} check: ")
    assert divergence["reason"] in report["rule"]
    assert report["after"] is None  # the rules refuse it: there is no state after it
    html = dispute_html(report)
    assert "this step" in html and "None: the rules refuse this step" in html
    # one step further does not exist
    with pytest.raises(DisputeError, match=f"this match has steps 0 to {step}"):
        dispute_report(data, step + 1, trusted_key=KEY)


def test_a_refused_move_shows_what_the_rules_expected_on_the_state_before_it() -> None:
    data = (TAMPERED / "swapped-card.json").read_bytes()
    report = dispute_report(data, 3, trusted_key=KEY)
    expected = report["divergence"]["expected"]
    recorded = report["event"]["action"]
    assert expected["seat to act"] == "B"
    assert recorded not in expected["legal actions"] and expected["legal actions"]
    assert "not in seat B's hand" in report["rule"]


def test_a_late_move_expects_the_turn_limit_in_utc_time() -> None:
    data = (TAMPERED / "changed-timestamp.json").read_bytes()
    report = dispute_report(data, 4, trusted_key=KEY)
    expected = report["divergence"]["expected"]
    assert expected["not after"].endswith("Z") and expected["not after"] < \
        report["timing"]["server_time"]
    # the data keeps the number; the words for people say the UTC time
    assert isinstance(report["timing"]["server_ts"], int)
    assert report["timing"]["server_time"].startswith("2026-")
    assert f"stamped {report['timing']['server_time']}" in dispute_html(report)


def test_an_honest_match_has_no_failing_step() -> None:
    data = (FIXTURES / "bundles" / "honest" / "arcomage-untimed.json").read_bytes()
    report = dispute_report(data, 1)
    assert report["failing_step"] is None and report["divergence"] is None
    assert report["after"] is not None
    assert not report["rule"].startswith("This step fails")
