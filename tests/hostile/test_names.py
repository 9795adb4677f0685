"""Break 11 of issue 18: small inputs. A seat's (player's) name holding a control or
bidirectional formatting character is refused where names enter the ledger, naming the
character; ``{"commitment": null}`` is a 400 naming the field, not a silent decline. Old
bundles with such names still verify and import: the rule is for new matches."""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient

from fairdeal.client import simulate
from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.games import get_game
from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.names import refused_character
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.verify import verify_bytes

SEATS = get_game("arcomage").seat_names

#: (the character, how the refusal names it)
REFUSED = [
    ("\x00", "U+0000 NULL"),
    ("\x1b", "U+001B ESCAPE"),
    ("\n", "U+000A LINE FEED"),
    ("\x85", "U+0085 NEXT LINE"),
    ("\u202a", "U+202A LEFT-TO-RIGHT EMBEDDING"),
    ("\u202b", "U+202B RIGHT-TO-LEFT EMBEDDING"),
    ("\u202c", "U+202C POP DIRECTIONAL FORMATTING"),
    ("\u202d", "U+202D LEFT-TO-RIGHT OVERRIDE"),
    ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("\u2067", "U+2067 RIGHT-TO-LEFT ISOLATE"),
    ("\u2068", "U+2068 FIRST STRONG ISOLATE"),
    ("\u2069", "U+2069 POP DIRECTIONAL ISOLATE"),
    ("\u200e", "U+200E LEFT-TO-RIGHT MARK"),
    ("\u200f", "U+200F RIGHT-TO-LEFT MARK"),
    ("\u061c", "U+061C ARABIC LETTER MARK"),
    ("\u200b", "U+200B ZERO WIDTH SPACE"),
    ("\u200d", "U+200D ZERO WIDTH JOINER"),
    ("\u2060", "U+2060 WORD JOINER"),
    ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("\u2028", "U+2028 LINE SEPARATOR"),
]


@pytest.mark.parametrize("char, described", REFUSED)
@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_name_with_a_control_or_formatting_character_is_a_400_naming_it(
        client: FlaskClient, char: str, described: str, seat: int) -> None:
    names = ["alice", "bob"]
    names[seat] = f"ali{char}ce"
    response = client.post("/api/v1/matches", json={"game": "arcomage", "seats": names})
    assert response.status_code == 400, response.data
    error = response.get_json()["error"]
    assert error["code"] == "invalid-name"
    assert error["message"].startswith(f"the name of seat {SEATS[seat]} holds {described}: ")
    # the same names as objects ({"name": ...}) take the same path
    response = client.post("/api/v1/matches", json={
        "game": "arcomage", "seats": [{"name": name} for name in names]})
    assert response.status_code == 400
    assert described in response.get_json()["error"]["message"]


@pytest.mark.parametrize("name", ["Zoë", "李小龙", "Ωmega 7", "🂡 ace", "عليّ", "a b-c_d.e"])
def test_printable_names_in_any_script_are_kept(client: FlaskClient, name: str) -> None:
    response = client.post("/api/v1/matches", json={"game": "arcomage",
                                                    "seats": [name, "bob"]})
    assert response.status_code == 201, response.data
    assert response.get_json()["seats"][0]["name"] == name


def test_the_ledger_itself_refuses_the_name_whatever_calls_it(ledger: Ledger) -> None:
    with pytest.raises(BadRequest, match="U\\+202E RIGHT-TO-LEFT OVERRIDE"):
        ledger.create_match("arcomage", {}, seats=["\u202eecila", "bob"])


def test_refused_character_names_the_first_one() -> None:
    assert refused_character("plain") is None
    assert refused_character("a\u200fb\x00") == "U+200F RIGHT-TO-LEFT MARK"


def test_an_old_bundle_with_such_names_still_verifies_and_imports(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    # a bundle sealed before the rule (or by another server): its seats spoof their names
    monkeypatch.setattr(simulate, "SIMULATED_SEAT_SUFFIX", "\u202e-bot\x00")
    settings = SimulationSettings(game="arcomage", params={}, bots=("random", "greedy"))
    bundle = next(simulate_matches(settings, 1, seed="rlo-names", server_key=None))
    assert "\u202e" in bundle["events"][0]["seats"][0]["name"]
    data = json.dumps(bundle).encode()
    assert verify_bytes(data).ok
    match_id, report = ledger.import_bundle(data)
    assert match_id is not None, report.failure


def _created(client: FlaskClient) -> tuple[str, list[str]]:
    created = client.post("/api/v1/matches", json={"game": "arcomage"}).get_json()
    return created["id"], [seat["token"] for seat in created["seats"]]


def test_a_null_commitment_is_a_400_naming_the_field_not_a_decline(
        client: FlaskClient) -> None:
    match_id, tokens = _created(client)
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    for body in ({"commitment": None}, {"commitment": None, "client_seed": None}):
        refused = client.post(f"/api/v1/matches/{match_id}/seed", json=body, headers=auth)
        assert refused.status_code == 400, refused.data
        error = refused.get_json()["error"]
        assert error["code"] == "invalid-seed"
        assert error["message"].startswith("commitment must be 64 lowercase hex characters, "
                                           "not null")
    # nothing was stored: the seat may still commit to a seed
    events = client.get(f"/api/v1/matches/{match_id}/events").get_json()["events"]
    assert [event["type"] for event in events] == ["genesis"]
    committed = client.post(f"/api/v1/matches/{match_id}/seed",
                            json={"commitment": "ab" * 32}, headers=auth)
    assert committed.status_code == 201, committed.data


def test_a_decline_said_as_a_decline_still_works(client: FlaskClient) -> None:
    match_id, tokens = _created(client)
    declined = client.post(f"/api/v1/matches/{match_id}/seed", json={"client_seed": None},
                           headers={"Authorization": f"Bearer {tokens[0]}"})
    assert declined.status_code == 201, declined.data
    events = client.get(f"/api/v1/matches/{match_id}/events").get_json()["events"]
    assert events[-1]["type"] == "client_seed" and events[-1]["client_seed"] is None
