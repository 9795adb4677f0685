"""Cheats on a tournament, one attack, one defence, one assertion each (STYLE.md): a dishonest
server (re-pairs, types a result in, drops a dispute, forges or invents a registration), a
dishonest player (disputes with a forged receipt, signs as another player), and both together.
Each builds the cheat as that party can (with the keys it holds, re-sealing what it signs),
runs the real verifier on it and asserts the check that refuses it. The honest tournament they
start from verifies, so a verifier that refuses everything fails here too.
docs/guarantees.md lists each with what no design prevents."""

from __future__ import annotations

import copy
import json
from types import ModuleType
from typing import Any

import pytest

from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.receipts import receipt_json
from fairdeal.verifier.tournament import TournamentReport, verify_tournament
from fairdeal.verifier.tournament.model import Pairing, Round

Export = dict[str, Any]


@pytest.fixture(scope="module")
def honest(make: ModuleType) -> Export:
    return make.play(make.Plan("cheats", "round-robin", 4, dispute=(1, 1, "result-changed")))


def run(make: ModuleType, export: Export, **pins: Any) -> TournamentReport:
    return verify_tournament(make._match_bytes(export["tournament"]), export["matches"],
                             trusted_key=make.SERVER_KEY.public_text, **pins)


def events(export: Export, kind: str) -> list[dict[str, Any]]:
    return [e for e in export["tournament"]["events"] if e["type"] == kind]


def refused(report: TournamentReport, check: str, words: str) -> None:
    assert report.failure is not None, "the cheat verifies"
    assert report.failure.check == check, str(report.failure)
    assert words in report.failure.reason, str(report.failure)


def test_the_honest_tournament_verifies(make: ModuleType, honest: Export) -> None:
    assert run(make, honest).ok


# --- a dishonest server ---------------------------------------------------------------------

def test_a_server_that_re_pairs_a_round_and_plays_it_is_caught_by_pairings(
        make: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server pairs round 2 as it likes and has the matches really played, signed by the
    players it seated: every match verifies, the re-derived pairing does not."""
    organiser = make._Organiser(make.Plan("repaired", "round-robin", 4))
    honest_next = organiser.log.next_round

    def steered() -> Round:
        paired = honest_next()
        if paired.number != 2:
            return paired
        (a, b), (c, d) = (p.seats for p in paired.pairings)
        return Round(2, (Pairing(1, (a, d)), Pairing(2, (c, b))), paired.byes)

    monkeypatch.setattr(organiser.log, "next_round", steered)
    report = run(make, organiser.play())
    refused(report, "pairings", "but the rules and the seed pair")
    assert report.failure is not None and report.failure.at == {"type": "round", "round": 2}
    assert [c.status for c in report.checks if c.name == "matches"] == ["not-checked"]


def test_a_server_that_types_a_result_in_is_caught_by_results(make: ModuleType,
                                                               honest: Export) -> None:
    cheat = copy.deepcopy(honest)
    result = events(cheat, "result")[-1]
    table = events(cheat, "round")[-1]["pairings"][result["table"] - 1]
    result["winner"] = None  # a draw the match never had
    make.reseal(cheat["tournament"])
    refused(run(make, cheat), "results", "the result was typed in, not read off the match")
    assert result["winner"] is None and table


def test_a_server_that_drops_a_dispute_but_keeps_its_ruling_is_caught_by_rulings(
        make: ModuleType, honest: Export) -> None:
    cheat = copy.deepcopy(honest)
    cheat["tournament"]["events"].remove(events(cheat, "dispute")[0])
    make.reseal(cheat["tournament"])
    refused(run(make, cheat), "rulings", "which was never filed before it")


def test_a_server_that_renames_a_registration_is_caught_by_registrations(
        make: ModuleType, honest: Export) -> None:
    cheat = copy.deepcopy(honest)
    events(cheat, "register")[1]["entropy"] = "00" * 32  # to choose the lots itself
    make.reseal(cheat["tournament"])
    refused(run(make, cheat), "registrations", "is not signed by the key it registers")


def test_a_sock_puppet_registration_passes_unless_the_real_player_pins_its_key(
        make: ModuleType, honest: Export, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server can register a key of its own under a player's name and play that seat
    itself (what no design prevents); the player who pins its own key sees it is not in."""
    real = make.player_key("cheats", 0)
    puppet = SigningKey.from_seed(bytes(range(32)))
    real_player_key = make.player_key
    monkeypatch.setattr(make, "player_key", lambda tournament, index: puppet if index == 0
                        else real_player_key(tournament, index))
    cheat = make.play(make.Plan("cheats", "round-robin", 4, dispute=(1, 1, "result-changed")))
    assert events(cheat, "register")[0]["name"] == events(honest, "register")[0]["name"]
    assert run(make, cheat).ok
    assert run(make, honest, player_keys=[real.public_text]).ok
    refused(run(make, cheat, player_keys=[real.public_text]), "registrations",
            "is not registered in this tournament")


# --- a dishonest player ---------------------------------------------------------------------

def _redispute(make: ModuleType, export: Export, change: dict[str, Any],
               signer: SigningKey) -> Export:
    """The dispute re-written with ``change`` and signed by ``signer``, the log re-sealed (a
    server that logs what the player sent) and the arbiter's ruling on it signed again (its
    signature covers the link to the dispute)."""
    cheat = copy.deepcopy(export)
    dispute = events(cheat, "dispute")[0]
    dispute.update(change)
    ruling = events(cheat, "ruling")[0]
    make.reseal(cheat["tournament"], resign={dispute["seq"]: signer,
                                             ruling["seq"]: make.ARBITER_KEY})
    return cheat


def _receipts(make: ModuleType, export: Export, forged: bool) -> dict[str, Any]:
    dispute = events(export, "dispute")[0]
    match = json.loads(export["matches"][dispute["match_id"]])
    from fairdeal.verifier.protocol import event_hash

    move = next(e for e in match["events"] if e["type"] == "move")
    signer = make.player_key("cheats", 0) if forged else make.SERVER_KEY
    receipt = receipt_json(dispute["match_id"], move["seq"], event_hash(move), move["ts"],
                           make.SERVER_KEY)
    if forged:  # the player's own signature passed off as the server's
        bad = receipt_json(dispute["match_id"], move["seq"], "ab" * 32, move["ts"], signer)
        receipt = {**bad, "key": make.SERVER_KEY.public_text}
    return {"format": "fairdeal.receipts/1", "match_id": dispute["match_id"],
            "receipts": [receipt]}


def _disputer(make: ModuleType, export: Export) -> SigningKey:
    player = events(export, "dispute")[0]["player"]
    return next(make.player_key("cheats", i) for i in range(4)
                if make.player_key("cheats", i).key_id == player)


def test_a_dispute_with_the_servers_real_receipts_verifies(make: ModuleType,
                                                           honest: Export) -> None:
    evidence = _receipts(make, honest, forged=False)
    assert run(make, _redispute(make, honest, {"receipts": evidence},
                                _disputer(make, honest))).ok


def test_a_player_who_forges_a_receipt_is_caught_by_disputes(make: ModuleType,
                                                             honest: Export) -> None:
    evidence = _receipts(make, honest, forged=True)
    cheat = _redispute(make, honest, {"receipts": evidence}, _disputer(make, honest))
    refused(run(make, cheat), "disputes", "does not carry a valid signature")


def test_a_player_who_signs_as_another_is_caught_by_disputes(make: ModuleType,
                                                             honest: Export) -> None:
    """Player B files a dispute in the name of A (who played the match), signed with B's own
    key: it is not A's."""
    disputer = _disputer(make, honest)
    other = next(make.player_key("cheats", i) for i in range(4)
                 if make.player_key("cheats", i).key_id != disputer.key_id)
    cheat = _redispute(make, honest, {}, other)
    refused(run(make, cheat), "disputes", "not signed by the player's registered key")


# --- both together --------------------------------------------------------------------------

def test_a_server_and_a_player_who_did_not_play_the_match_are_caught_by_disputes(
        make: ModuleType, honest: Export) -> None:
    dispute = events(honest, "dispute")[0]
    table = next(p for p in events(honest, "round")[0]["pairings"]
                 if p["match_id"] == dispute["match_id"])
    outsider = next(make.player_key("cheats", i) for i in range(4)
                    if make.player_key("cheats", i).key_id not in table["seats"])
    cheat = _redispute(make, honest, {"player": outsider.key_id}, outsider)
    refused(run(make, cheat), "disputes", "only its players may dispute it")


def test_a_server_and_a_player_who_rule_for_themselves_are_caught_by_rulings(
        make: ModuleType, honest: Export) -> None:
    cheat = copy.deepcopy(honest)
    ruling = events(cheat, "ruling")[0]
    player = _disputer(make, honest)
    ruling["decision"] = {"kind": "result-changed", "winner": player.key_id}
    make.reseal(cheat["tournament"], resign={ruling["seq"]: player})
    refused(run(make, cheat), "rulings", "not signed by the tournament's arbiter")
