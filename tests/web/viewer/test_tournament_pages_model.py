"""The tournament pages' model (web/viewer/tournaments_model.py): scores and tie-breaks in
points, results in a player's words, the cross-table, and the ruling's signature checked
against the header's arbiter key — a ruling signed by anyone else is shown as not the
arbiter's. Pure: an answer shaped as the API's GET /tournaments/<id> (api contract), with
events signed by real Ed25519 keys."""

from __future__ import annotations

import doctest
from typing import Any

from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.tournament.primitives import signed_message
from fairdeal.web.viewer import tournaments_model as model

ARBITER = SigningKey.from_seed(bytes([7]) * 32)
ANN = SigningKey.from_seed(bytes([1]) * 32)
BOB = SigningKey.from_seed(bytes([2]) * 32)
CID = SigningKey.from_seed(bytes([3]) * 32)


def _signed(key: SigningKey, event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "sig": key.sign(signed_message(event)).hex()}


def _answer() -> dict[str, Any]:
    a, b, c = ANN.key_id, BOB.key_id, CID.key_id
    return {
        "id": "t1", "name": "Spring open", "status": "running",
        "header": {"game": "arcomage", "system": "swiss", "rounds": 3,
                   "tiebreaks": ["sonneborn-berger", "buchholz", "wins"],
                   "arbiter_key": ARBITER.public_text, "server_key_id": "00" * 8},
        "players": [{"player": a, "name": "ann", "public_key": ANN.public_text},
                    {"player": b, "name": "bob", "public_key": BOB.public_text},
                    {"player": c, "name": "cid", "public_key": CID.public_text}],
        "rounds": [{"round": 1, "byes": [c], "pairings": [
            {"table": 1, "seats": [a, b], "match_id": "m1",
             "result": {"outcome": "match", "winner": a}}]},
                   {"round": 2, "byes": [a], "pairings": [
                       {"table": 1, "seats": [c, b], "match_id": "m2",
                        "result": {"outcome": "match", "winner": None}}]},
                   {"round": 3, "byes": [], "pairings": [
                       {"table": 1, "seats": [a, c], "match_id": "m3", "result": None}]}],
        "disputes": [{"dispute": 1, "player": b, "match_id": "m1", "step": 4, "text": "no",
                      "ruling": {"decision": {"kind": "result-stands"}, "text": "it stands"}}],
        "standings": [{"rank": 1, "player": a, "score": 4, "tiebreaks": [7, 3, 1]},
                      {"rank": 2, "player": c, "score": 3, "tiebreaks": [1, 1, 0]},
                      {"rank": 3, "player": b, "score": 1, "tiebreaks": [0, 5, 0]}],
        "next_seq": 12, "head": "ab" * 32,
    }


def _events(ruling_key: SigningKey) -> list[dict[str, Any]]:
    dispute = _signed(BOB, {"seq": 9, "prev": "11" * 32, "type": "dispute", "dispute": 1,
                            "player": BOB.key_id, "match_id": "m1", "step": 4, "text": "no",
                            "receipts": None, "report": "22" * 32})
    ruling = _signed(ruling_key, {"seq": 10, "prev": "33" * 32, "type": "ruling",
                                  "dispute": 1, "decision": {"kind": "result-stands"},
                                  "text": "it stands"})
    return [{**dispute, "ts": 5}, {**ruling, "ts": 6}]


def test_the_docstring_examples_run() -> None:
    result = doctest.testmod(model)
    assert result.attempted > 0 and result.failed == 0


def test_standings_are_in_points_with_the_tiebreaks_in_the_headers_order() -> None:
    columns = model.tiebreak_columns(_answer()["header"])
    assert [column["abbr"] for column in columns] == ["SB", "Bu", "W"]
    assert columns[0]["definition"].startswith("Sonneborn-Berger: the scores of the opponents")
    lines = model.standings(_answer())
    assert [(line["name"], line["score"]) for line in lines] == [
        ("ann", "2"), ("cid", "1½"), ("bob", "½")]
    # Sonneborn-Berger is stored in quarter points, Buchholz in half-points, wins as counted
    assert lines[0]["tiebreaks"] == ["1¾", "1½", "1"]


def test_rounds_name_the_winner_the_draw_the_bye_and_the_unfinished_table() -> None:
    shown = model.rounds(_answer())
    assert (shown[0]["tables"][0]["score"], shown[0]["tables"][0]["words"]) == ("1–0", "ann won")
    assert [bye["name"] for bye in shown[0]["byes"]] == ["cid"]
    assert (shown[1]["tables"][0]["score"], shown[1]["tables"][0]["words"]) == ("½–½", "draw")
    assert shown[2]["tables"][0] == {**shown[2]["tables"][0], "score": "",
                                     "words": "not finished", "finished": False}


def test_a_forfeit_and_a_double_forfeit_say_so() -> None:
    assert model.result_words({"outcome": "forfeit", "winner": "b"}, ["a", "b"]) == (
        "−–+", "won by forfeit")
    assert model.result_words({"outcome": "double-forfeit", "winner": None}, ["a", "b"])[0] \
        == "0–0"


def test_a_ruling_signed_by_the_arbiter_checks_and_one_signed_by_another_key_does_not() -> None:
    honest = model.disputes(_answer(), _events(ARBITER))[0]
    assert honest["signed"] and honest["ruling"]["signed"]
    assert honest["ruling"]["signer"] == ARBITER.key_id
    assert honest["ruling"]["words"] == "the result stands"
    forged = model.disputes(_answer(), _events(CID))[0]
    assert not forged["ruling"]["signed"]


def test_a_ruling_missing_from_the_log_is_not_shown_as_signed() -> None:
    assert not model.disputes(_answer(), [])[0]["ruling"]["signed"]


def _round_robin() -> dict[str, Any]:
    answer = _answer()
    answer["header"] = {**answer["header"], "system": "round-robin"}
    return answer


def test_the_crosstable_gives_each_pair_its_results_by_round_from_both_sides() -> None:
    table = model.crosstable(_round_robin())
    assert table["kind"] == "players"
    rows = {row["name"]: row for row in table["players"]}
    assert [row["name"] for row in table["players"]] == ["ann", "cid", "bob"]
    # columns in the same order as the rows: ann, cid, bob
    assert rows["ann"]["cells"] == [None, ["… r3"], ["1 r1"]]
    assert rows["bob"]["cells"] == [["0 r1"], ["½ r2"], None]
    assert rows["cid"]["byes"] == [1] and rows["ann"]["byes"] == [2]


def test_decisions_in_words() -> None:
    roster = model.players(_answer())
    assert model.decision_words({"kind": "result-changed", "winner": BOB.key_id}, roster) == (
        "result changed: bob wins")
    assert model.decision_words({"kind": "penalty", "player": ANN.key_id, "points": 3},
                                roster) == "ann penalised 1½ points"
    assert model.decision_words({"kind": "replay-ordered", "match_id": "m9"}, roster) == (
        "replay ordered")


def test_a_double_round_robin_cell_holds_both_games_in_round_order() -> None:
    answer = _round_robin()
    a, b = ANN.key_id, BOB.key_id
    answer["rounds"].append({"round": 4, "byes": [], "pairings": [
        {"table": 1, "seats": [b, a], "match_id": "m4",
         "result": {"outcome": "match", "winner": b}}]})
    rows = {row["name"]: row for row in model.crosstable(answer)["players"]}
    assert rows["ann"]["cells"][2] == ["1 r1", "0 r4"]
    assert rows["bob"]["cells"][0] == ["0 r1", "1 r4"]


def test_a_swiss_crosstable_is_by_round_with_the_opponents_number() -> None:
    table = model.crosstable(_answer())
    assert table["kind"] == "rounds" and table["rounds"] == [1, 2, 3]
    rows = {row["name"]: row for row in table["players"]}
    # ann is number 1, cid 2, bob 3 (the standings' order)
    assert rows["ann"]["cells"] == [["1 v 3"], ["bye"], ["… v 2"]]
    assert rows["bob"]["cells"] == [["0 v 1"], ["½ v 2"], []]
    assert rows["cid"]["cells"] == [["bye"], ["½ v 3"], ["… v 1"]]
