"""Every GET of a match treats a token the same way (docs/ledger.md): no token is the public
read, a malformed Authorization header is 401, a token that is not a seat of the match is 403
— a wrong token never passes for a spectator — and a seat's own token is 200."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from fairdeal.ledger.service import Ledger

READS = ("", "/events", "/board.svg")
FORGED = (Path(__file__).resolve().parents[3] / "fixtures" / "bundles" / "tampered"
          / "reforged-under-new-key.json").read_bytes()


def _status(client: Any, path: str, authorization: str | None) -> int:
    headers = {} if authorization is None else {"Authorization": authorization}
    response = client.get("/api/v1" + path, headers=headers)
    if response.status_code in (401, 403):
        assert response.get_json()["error"]["code"] in ("unauthorized", "bad-authorization",
                                                        "forbidden"), response.get_json()
    return int(response.status_code)


@pytest.fixture
def playing(driver: Any) -> tuple[str, list[str]]:
    match_id, tokens = driver.create("arcomage")
    driver.seed_all(match_id, tokens, random.Random(1))
    return match_id, tokens


@pytest.mark.parametrize("read", READS)
def test_a_live_match_read(client: Any, playing: tuple[str, list[str]], read: str) -> None:
    match_id, tokens = playing
    path = f"/matches/{match_id}{read}"
    assert _status(client, path, None) == 200
    assert _status(client, path, f"Bearer {tokens[1]}") == 200
    assert _status(client, path, "Bearer not-a-seat-of-this-match") == 403
    assert _status(client, path, "Basic dXNlcjpwYXNz") == 401
    assert _status(client, path, "Bearer ") == 401


def test_a_token_of_another_match_is_refused(client: Any, driver: Any,
                                             playing: tuple[str, list[str]]) -> None:
    match_id, _ = playing
    _, other_tokens = driver.create("arcomage")
    for read in READS:
        assert _status(client, f"/matches/{match_id}{read}", f"Bearer {other_tokens[0]}") == 403


def test_the_bundle_of_an_ended_match(client: Any, driver: Any) -> None:
    match_id, tokens = driver.create("arcomage", turn_limit_ms=None)
    rng = random.Random(2)
    driver.seed_all(match_id, tokens, rng)
    driver.play_out(match_id, tokens, rng)
    path = f"/matches/{match_id}/bundle"
    assert _status(client, path, None) == 200
    assert _status(client, path, f"Bearer {tokens[0]}") == 200
    assert _status(client, path, "Bearer wrong") == 403
    assert _status(client, path, "Token wrong") == 401
    events = f"/matches/{match_id}/events"
    assert _status(client, events, None) == 200 and _status(client, events, "Bearer x") == 403


def test_an_imported_match_has_no_seats(client: Any) -> None:
    response = client.post("/api/v1/bundles", data=FORGED, content_type="application/json")
    match_id = response.get_json()["id"]
    for read in ("", "/events", "/bundle"):
        assert _status(client, f"/matches/{match_id}{read}", None) == 200
        assert _status(client, f"/matches/{match_id}{read}", "Bearer anything") == 403


def test_a_token_on_an_unknown_match_is_404(client: Any) -> None:
    for read in ("", "/events", "/board.svg", "/bundle"):
        assert _status(client, f"/matches/0000000000000000{read}", "Bearer x") == 404


def test_the_ledger_refuses_the_wrong_token_too(ledger: Ledger,
                                                playing: tuple[str, list[str]]) -> None:
    from fairdeal.ledger.errors import Forbidden

    match_id, tokens = playing
    assert ledger.seat_of(match_id, tokens[1]) == 1
    with pytest.raises(Forbidden, match=f"not a seat of match {match_id}"):
        ledger.seat_of(match_id, "wrong")
