"""One crash, one defence, one assertion: the crashes issue 11 listed, each at its own depth."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from fairdeal.games import InvalidParams, get_game
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.bundle import MAX_INT, Bundle, InvalidBundle, parse_json
from fairdeal.verifier.canonical import CanonicalError, canonical_bytes


@pytest.mark.parametrize("text, message", [
    ('{"ts": ' + "9" * 5000 + "}", "an integer of 5000 digits is out of range"),
    ('[-' + "1" * 4301 + "]", "an integer of 4301 digits"),
    (f"[{MAX_INT + 1}]", "is out of range"),
    ('{"name": "\\ud800"}', "$.name: a string holds the lone surrogate \\ud800"),
    ('{"\\udfff": 1}', "(a key): a string holds the lone surrogate \\udfff"),
    ('["ok", ["\\uDBFF"]]', "$[1][0]: a string holds the lone surrogate \\udbff"),
])
def test_parse_json_refuses_what_python_json_would_crash_on_later(text: str,
                                                                  message: str) -> None:
    with pytest.raises(InvalidBundle) as caught:
        parse_json(text)
    assert message in str(caught.value)


@pytest.mark.parametrize("text", [
    f"{MAX_INT + 1}",                       # at the very start
    f"  -{MAX_INT + 1}",                    # whitespace and a minus before it
    f'{{"a": [1,\n\t -{MAX_INT + 1}]}}',      # after a comma and whitespace
    f'{{"prev": "{"0" * 64}", "ts": {MAX_INT + 1}}}',  # a long run in a string before it
])
def test_parse_json_refuses_every_integer_out_of_range(text: str) -> None:
    with pytest.raises(InvalidBundle, match="out of range"):
        parse_json(text)


_SIGNED_BUNDLE = (Path(__file__).parents[2] / "fixtures" / "bundles" / "honest"
                  / "arcomage-archmage-citadel-normal.json")


def _first_move(bundle: dict[str, Any]) -> dict[str, Any]:
    move: dict[str, Any] = next(e for e in bundle["events"] if e["type"] == "move")
    return move


def _set(where: Callable[[dict[str, Any]], dict[str, Any]], key: str,
         value: object) -> Callable[[dict[str, Any]], None]:
    def change(bundle: dict[str, Any]) -> None:
        where(bundle)[key] = value
    return change


@pytest.mark.parametrize("change, named", [
    (_set(_first_move, "seq", MAX_INT + 1), "events[5].seq"),
    (_set(_first_move, "ts", MAX_INT + 1), "events[5].ts"),
    (_set(_first_move, "seat", MAX_INT + 1), "events[5].seat"),
    (_set(_first_move, "client_ts", MAX_INT + 1), "events[5].client_ts"),
    (_set(_first_move, "action", {"kind": "play", "card": -MAX_INT - 1}),
     "events[5].action.card"),
    (_set(_first_move, "action", MAX_INT + 1), "events[5].action"),
    (_set(_first_move, "action", {"kind": "play", "card": [1, {"x": MAX_INT + 1}]}),
     "events[5].action.card[1].x"),
    (_set(lambda b: b["events"][0], "params", {"x": [MAX_INT + 1]}), "events[0].params.x[0]"),
    (_set(lambda b: b["events"][0], "turn_limit_ms", MAX_INT + 1), "events[0].turn_limit_ms"),
    (_set(lambda b: b["events"][-1]["result"], "winner", MAX_INT + 1),
     "result.winner"),
])
def test_a_bundle_s_integers_are_range_checked_where_validation_meets_them(
        change: Callable[[dict[str, Any]], None], named: str) -> None:
    # a bundle's integers are not checked one by one as json converts them (the fast parse):
    # every place an integer can sit must refuse one past 64 bits, naming the place
    bundle = json.loads(_SIGNED_BUNDLE.read_text())
    assert _first_move(bundle)["seq"] == 5
    altered = copy.deepcopy(bundle)
    change(altered)
    with pytest.raises(InvalidBundle, match="out of range") as caught:
        Bundle.from_bytes(json.dumps(altered))
    assert named in str(caught.value)
    for edge in (MAX_INT, -MAX_INT):  # the edges themselves are in range
        text = json.dumps(altered).replace(str(MAX_INT + 1), str(edge))
        text = text.replace(str(-MAX_INT - 1), str(edge))
        try:
            Bundle.from_bytes(text)
        except InvalidBundle as e:
            assert "out of range" not in str(e)


def test_a_bundle_with_an_integer_past_python_s_own_guard_is_refused_by_name() -> None:
    text = _SIGNED_BUNDLE.read_text().replace('"seq":5,', '"seq":' + "7" * 5000 + ",", 1)
    assert "7" * 5000 in text
    with pytest.raises(InvalidBundle, match="an integer of 5000 digits is out of range"):
        Bundle.from_bytes(text)


def test_long_runs_of_digits_inside_strings_are_just_strings() -> None:
    text = f'{{"prev": "{"0" * 64}", "note": "a:{"9" * 30}", "ts": {MAX_INT}}}'
    assert parse_json(text) == {"prev": "0" * 64, "note": "a:" + "9" * 30, "ts": MAX_INT}


def test_parse_json_keeps_the_edges_of_its_range_and_real_surrogate_pairs() -> None:
    assert parse_json(f"[{MAX_INT}, {-MAX_INT}]") == [MAX_INT, -MAX_INT]
    assert parse_json('["\\ud83c\\udca1"]') == ["\U0001f0a1"]  # an escaped pair is a character


def test_a_parsed_string_argument_with_a_lone_surrogate_is_refused_too() -> None:
    with pytest.raises(InvalidBundle, match="lone surrogate"):
        parse_json('["\ud800"]')  # a str, not bytes: the surrogate is already decoded


def test_canonical_bytes_names_a_lone_surrogate_instead_of_a_unicode_error() -> None:
    with pytest.raises(CanonicalError, match=r"lone surrogate \\ud800"):
        canonical_bytes({"seat": "\ud800"})


@pytest.mark.parametrize("patron", [{}, {"name": "lich"}, ["lich"], 3])
def test_wyrdstone_refuses_a_patron_that_is_not_a_name(patron: object) -> None:
    with pytest.raises(InvalidParams, match="A.patron must be a name or null"):
        get_game("wyrdstone").normalize_params({"A": {"school": "neutral", "patron": patron}})


@pytest.mark.parametrize("school", [{}, ["fire"]])
def test_wyrdstone_refuses_a_school_that_is_not_a_name(school: object) -> None:
    with pytest.raises(InvalidParams, match="A.school"):
        get_game("wyrdstone").normalize_params({"A": {"school": school}})


def test_the_home_page_far_past_the_last_page_is_empty_not_a_500(client: FlaskClient) -> None:
    for page in ("9223372036854775807", "9" * 5000, "-9223372036854775808"):
        response = client.get(f"/?page={page}")
        assert response.status_code == 200, page


def test_the_ledger_lists_nothing_past_any_offset(ledger: Ledger) -> None:
    ledger.create_match("arcomage")
    assert ledger.list_matches(20, 9223372036854775807 * 20) == []


def _started(client: FlaskClient) -> tuple[str, list[str], dict[str, object]]:
    created = client.post("/api/v1/matches", json={"game": "arcomage"}).get_json()
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        client.post(f"/api/v1/matches/{created['id']}/seed", json={"client_seed": None},
                    headers={"Authorization": f"Bearer {token}"})
    view = client.get(f"/api/v1/matches/{created['id']}",
                      headers={"Authorization": f"Bearer {tokens[0]}"}).get_json()
    seat = view["current_seat"]
    view = client.get(f"/api/v1/matches/{created['id']}",
                      headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
    return created["id"], [tokens[seat]], view


def test_reusing_an_action_id_for_another_action_is_a_409_naming_both(
        client: FlaskClient) -> None:
    match_id, (token,), view = _started(client)
    first, second = view["legal_actions"][:2]
    auth = {"Authorization": f"Bearer {token}"}
    body = {"action": first, "expected_seq": view["next_seq"], "action_id": "move-1"}
    assert client.post(f"/api/v1/matches/{match_id}/actions", json=body,
                       headers=auth).status_code == 201
    retry = client.post(f"/api/v1/matches/{match_id}/actions", json=body, headers=auth)
    assert (retry.status_code, retry.get_json()["replayed"]) == (200, True)
    other = client.post(f"/api/v1/matches/{match_id}/actions",
                        json={**body, "action": second}, headers=auth)
    assert other.status_code == 409
    error = other.get_json()["error"]
    assert error["code"] == "action-id-mismatch"
    assert "'move-1' was already used at seq" in error["message"]
    assert repr(second["card"]) in error["message"]
