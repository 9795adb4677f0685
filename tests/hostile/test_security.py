"""Security: headers on every response (the API's, board.svg and bundles included), rate
limits with a clear 429, seat tokens compared in constant time."""

from __future__ import annotations

import hmac
import random
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from sqlalchemy import text

from fairdeal.ledger import live
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.web.app import create_app
from fairdeal.web.security import DEFAULT_LIMITS, RateLimiter, parse_limits

from .conftest import HOSTILE


def _ended_match(client: FlaskClient) -> tuple[str, str]:
    """A match played to its end over the API; (its id, a playing match's id)."""
    created = client.post("/api/v1/matches", json={"game": "arcomage"}).get_json()
    match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    for token in tokens:
        client.post(f"/api/v1/matches/{match_id}/seed", json={"client_seed": None},
                    headers={"Authorization": f"Bearer {token}"})
    playing = client.post("/api/v1/matches", json={"game": "toybattle"}).get_json()
    for seat in playing["seats"]:
        client.post(f"/api/v1/matches/{playing['id']}/seed", json={"client_seed": None},
                    headers={"Authorization": f"Bearer {seat['token']}"})
    client.post(f"/api/v1/matches/{match_id}/resign",
                headers={"Authorization": f"Bearer {tokens[0]}"})
    return match_id, playing["id"]


def test_every_response_carries_the_security_headers(client: FlaskClient) -> None:
    ended, playing = _ended_match(client)
    api = ["/api/v1/keys", "/api/v1/openapi.json", "/api/v1/matches", f"/api/v1/matches/{ended}",
           f"/api/v1/matches/{ended}/events", f"/api/v1/matches/{ended}/bundle",
           f"/api/v1/matches/{playing}/board.svg", "/api/v1/nothing-here",
           "/api/v1/matches/nope"]
    viewer = ["/", "/upload", f"/m/{ended}", f"/m/{ended}/bundle.json", f"/m/{playing}",
              f"/m/{ended}/live.json", "/m/nope", "/no/such/page", "/static/viewer.css",
              "/verify", f"/m/{ended}.gif"]
    for path in api + viewer:
        response = client.get(path)
        headers = response.headers
        assert headers.get("X-Content-Type-Options") == "nosniff", path
        policy = headers.get("Content-Security-Policy", "")
        wanted = "frame-ancestors 'none'" if path in api else "frame-ancestors 'self'"
        assert wanted in policy, (path, policy)
        assert "default-src" in policy, path
        assert headers.get("X-Frame-Options") in ("DENY", "SAMEORIGIN"), path
    posted = client.post("/api/v1/matches", data=b"{")
    assert posted.status_code == 400
    assert "frame-ancestors 'none'" in posted.headers["Content-Security-Policy"]


def test_embed_alone_may_be_framed_anywhere(client: FlaskClient) -> None:
    ended, _ = _ended_match(client)
    response = client.get(f"/embed/{ended}")
    assert response.status_code == 200
    assert "frame-ancestors *" in response.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in response.headers
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.fixture
def limited(ledger: Ledger) -> FlaskClient:
    """Small limits, so the test reaches them in a few requests (one minute to refill)."""
    return create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                       "FAIRDEAL_RATE_LIMITS": "create=3/60,import=2/60,upload=2/60"}
                      ).test_client()


def test_match_creation_past_its_limit_is_429_with_retry_after(limited: FlaskClient) -> None:
    for _ in range(3):
        assert limited.post("/api/v1/matches", json={"game": "arcomage"}).status_code == 201
    refused = limited.post("/api/v1/matches", json={"game": "arcomage"})
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 20
    error = refused.get_json()["error"]
    assert error["code"] == "rate-limited"
    assert "the limit is 3 per 60 s" in error["message"]
    # another address has its own bucket
    other = limited.post("/api/v1/matches", json={"game": "arcomage"},
                         environ_base={"REMOTE_ADDR": "127.0.0.2"})
    assert other.status_code == 201


def test_imports_and_uploads_past_their_limits_are_429(limited: FlaskClient) -> None:
    bundle = (HOSTILE.parent / "bundles" / "honest" / "arcomage-untimed.json").read_bytes()
    answers = [limited.post("/api/v1/bundles", data=bundle).status_code for _ in range(3)]
    assert answers[2] == 429 and 429 not in answers[:2]
    pages = [limited.post("/upload", data={"pasted": bundle.decode()}) for _ in range(3)]
    assert [page.status_code for page in pages][2] == 429
    assert "the limit is 2 per 60 s" in pages[2].get_data(as_text=True)
    assert "Retry-After" in pages[2].headers


def test_server_processes_on_one_database_count_together(tmp_path: Path) -> None:
    # two apps, each with its own engine on the same SQLite file: two gunicorn workers
    ledgers = [Ledger(EventStore(open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")),
                      load_or_create_server_key(tmp_path)) for _ in range(2)]
    clients = [create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                           "FAIRDEAL_RATE_LIMITS": "create=3/60"}).test_client()
               for ledger in ledgers]
    try:
        answers = [clients[n % 2].post("/api/v1/matches", json={"game": "arcomage"}).status_code
                   for n in range(5)]
        assert answers == [201, 201, 201, 429, 429]
    finally:
        for ledger in ledgers:
            ledger.store.engine.dispose()


def test_limits_hold_in_process_while_the_database_does_not_answer(limited: FlaskClient,
                                                                   ledger: Ledger) -> None:
    assert limited.post("/api/v1/matches", json={"game": "arcomage"}).status_code == 201
    shared = limited.application.extensions["fairdeal.rate_limiter"].shared
    with shared.engine.begin() as conn:  # the shared buckets fail from now on
        conn.execute(text("DROP TABLE rate_buckets"))
    answers = [limited.post("/api/v1/matches", json={"game": "arcomage"}).status_code
               for _ in range(4)]
    # this process's own buckets take over (full, as they were never used): 3 more, then 429
    assert answers == [201, 201, 201, 429]


def test_limits_are_on_by_default_and_configurable() -> None:
    assert parse_limits(None) == DEFAULT_LIMITS
    assert parse_limits("off") == {}
    assert parse_limits("create=5/10")["create"] == (5, 10.0)
    assert "import" not in parse_limits("import=off")
    for bad in ("create", "create=x/1", "nothing=1/1", "create=0/60"):
        with pytest.raises(ValueError, match="FAIRDEAL_RATE_LIMITS"):
            parse_limits(bad)


def test_a_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    limiter = RateLimiter({"create": (2, 10.0)}, clock=lambda: now[0])
    assert limiter.take("create", "a") is None and limiter.take("create", "a") is None
    assert limiter.take("create", "a") == pytest.approx(5.0)
    now[0] = 5.0
    assert limiter.take("create", "a") is None
    assert limiter.take("upload", "a") is None  # no limit of that kind


def test_seat_tokens_are_compared_in_constant_time(ledger: Ledger,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The token's hash is compared with hmac.compare_digest (time independent of where the
    bytes differ); hashing first also hides the token's length."""
    created = ledger.create_match("arcomage")
    calls: list[tuple[str, str]] = []
    compare = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return compare(a, b)

    monkeypatch.setattr(live.hmac, "compare_digest", spy)
    token = created["seats"][1]["token"]
    assert ledger.seat_of(created["id"], token) == 1
    assert calls and all(len(a) == len(b) == 64 for a, b in calls)
    calls.clear()
    wrong = token[:-1] + random.choice("ab")
    with pytest.raises(live.Forbidden):
        ledger.seat_of(created["id"], wrong)
    assert len(calls) == 2  # every seat's hash was compared, not a prefix
