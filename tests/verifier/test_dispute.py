"""The dispute report's content (pure): the deal-influence line, steps, the signers."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdeal.verifier.dispute import V1_INFLUENCE, DisputeError, deal_influence, dispute_report
from fairdeal.verifier.report import Report

HONEST = Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / "honest"


def test_the_reports_own_deal_influence_line_is_shown_when_present() -> None:
    report = Report()
    line = {"text": "seat B declined: the server and seat A could have chosen this deal",
            "colluders_needed": ["server", "A"], "seats": ["A"]}
    report.facts["deal_influence"] = line
    assert deal_influence(report, {"protocol": "fairdeal/2"}) == line
    assert deal_influence(report, {"protocol": "fairdeal/1"}) == line


def test_a_version_1_bundle_without_it_gets_the_version_1_wording() -> None:
    assert deal_influence(Report(), {"protocol": "fairdeal/1"})["text"] == V1_INFLUENCE
    assert deal_influence(Report(), {"protocol": "fairdeal/2"}) is None


def test_the_deal_step_and_a_move_step() -> None:
    data = (HONEST / "toybattle-signed-moves.json").read_bytes()
    deal = dispute_report(data, 0)
    assert deal["event"] is None and deal["before"] is None
    assert set(deal["after"]) == {"blue", "red", "spectator"}
    assert deal["rule"].startswith("the deal")
    move = dispute_report(data, 2)
    assert move["event"]["type"] in ("move", "timeout", "resign")
    assert move["signers"]["player"]["key_id"] is not None
    # a fairdeal/2 bundle: the verifier's own line, not the version 1 wording
    from fairdeal.verifier.verify import verify_bytes

    assert move["deal_influence"] == verify_bytes(data).facts["deal_influence"]
    assert move["deal_influence"]["text"] != V1_INFLUENCE


def test_a_step_out_of_range_or_a_broken_file_is_refused() -> None:
    data = (HONEST / "arcomage-untimed.json").read_bytes()
    with pytest.raises(DisputeError, match="step 10000 does not exist"):
        dispute_report(data, 10_000)
    with pytest.raises(DisputeError, match="not a valid bundle"):
        dispute_report(b"{", 1)


def test_a_version_1_bundle_says_the_server_could_have_chosen_the_deal() -> None:
    v1 = sorted((HONEST.parent / "v1" / "honest").glob("*.json"))[0]
    report = dispute_report(v1.read_bytes(), 1)
    assert report["protocol"] == "fairdeal/1"
    assert report["deal_influence"]["text"] == V1_INFLUENCE


def test_a_toy_battle_placement_quotes_the_troops_text() -> None:
    from fairdeal.games.toybattle.troops import TROOP_BY_ID

    data = (HONEST / "toybattle-castle-field.json").read_bytes()
    for step in range(1, 8):
        report = dispute_report(data, step)
        action = report["event"]["action"] if report["event"]["type"] == "move" else {}
        if action.get("kind") == "place":
            assert TROOP_BY_ID[action["troop"]].effect in report["rule"]
            return
    raise AssertionError("no placement in the first steps")
