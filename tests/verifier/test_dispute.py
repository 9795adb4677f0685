"""The dispute report's content (pure): the deal-influence line, steps, the signers."""

from __future__ import annotations

import json
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


def test_a_signature_never_reached_is_not_vouched_for() -> None:
    """Issue 18, break 7: a bundle whose chain fails first said "Server: key None … the server
    signed the final event" though the signature was never checked."""
    from fairdeal.verifier.dispute_html import dispute_html

    data = (HONEST.parent / "tampered" / "edited-move.json").read_bytes()
    report = dispute_report(data, 1)
    server = report["signers"]["server"]
    assert server["checked"] is False and server["key_id"] is None
    assert server["what"].startswith("the server's signature was not checked: verification "
                                     "stopped at the chain check (event 8)")
    page = dispute_html(report)
    assert "key None" not in page and "None" not in page.split("<h2>Timing")[0]
    assert "the server signed the final event" not in page
    assert "The match does NOT verify: the chain check failed at event 8" in page


def test_a_failed_signature_is_said_to_fail() -> None:
    data = (HONEST.parent / "tampered" / "changed-signature.json").read_bytes()
    server = dispute_report(data, 1)["signers"]["server"]
    assert server["checked"] is False
    assert server["what"].startswith("the server's signature does not verify")


def test_the_verdict_names_the_checks_that_did_not_run() -> None:
    from fairdeal.verifier.dispute import verdict_words

    data = (HONEST / "toybattle-signed-moves.json").read_bytes()
    report = dispute_report(data, 2)
    words = verdict_words(report)
    assert words.startswith("12 of 14 checks passed; the other 2 did not run, for want of "
                            "input: receipts")
    assert "every check passed" not in words
    # the CLI knows no server of its own: the key is named, its owner not claimed
    server = report["signers"]["server"]
    assert server["this_server"] is None and server["checked"] is True
    assert "pass --trusted-key" in server["what"]
    pinned = dispute_report(data, 2, trusted_key=json.loads(data)["signature"]["key"])
    assert pinned["signers"]["server"]["pinned"] is True
    assert "pass --trusted-key" not in pinned["signers"]["server"]["what"]


def test_a_seat_signature_not_checked_is_not_called_verified() -> None:
    data = json.loads((HONEST / "toybattle-signed-moves.json").read_bytes())
    # break the chain before step 2's move: the seat's signature is never reached
    data["events"][1]["ts"] += 1
    player = dispute_report(json.dumps(data), 2)["signers"]["player"]
    assert player["checked"] is False and player["pinned"] is False
    assert "not checked" in player["what"] or "registered no key" in player["what"]
