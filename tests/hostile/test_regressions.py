"""One crash, one defence, one assertion: the crashes issue 11 listed, each at its own depth."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from fairdeal.games import InvalidParams, get_game
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.bundle import MAX_INT, InvalidBundle, parse_json
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
def test_the_parser_s_shortcut_still_refuses_every_integer_out_of_range(text: str) -> None:
    # a text without a long number skips the per-integer check: its guard must see every one
    with pytest.raises(InvalidBundle, match="out of range"):
        parse_json(text)


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
