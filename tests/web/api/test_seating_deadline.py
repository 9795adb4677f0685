"""A seat that never adds nor declines its seed: past the seating deadline the server declines
for it (``client_seed: null`` stamped with the deadline), with nobody calling, and play starts."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.ledger.errors import Refused
from fairdeal.ledger.service import DEFAULT_SEED_DEADLINE_MS, Ledger
from fairdeal.web.app import create_app


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_sweeper_declines_missing_seeds_with_nobody_calling(ledger: Ledger,
                                                                  tmp_path) -> None:
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": True,
                      "FAIRDEAL_SWEEP_INTERVAL": 0.05})
    client = app.test_client()
    created = client.post("/api/v1/matches", json={"game": "toybattle", "turn_limit_ms": 300,
                                                    "seed_deadline_ms": 400}).get_json()
    match_id = created["id"]
    assert created["seed_deadline_ms"] == ledger.store.match(match_id)["deadline_ms"]
    # seat 0 adds its seed; seat 1 never does, and nobody calls: only the sweeper writes
    client.post(f"/api/v1/matches/{match_id}/seed", json={"client_seed": "ab" * 32},
                headers=_auth(created["seats"][0]["token"]))
    until = time.monotonic() + 20
    while time.monotonic() < until:
        stored = [event.to_json() for event in ledger.store.read(match_id)]
        if stored[-1]["type"] == "reveal":
            break
        time.sleep(0.1)
    ledger.stop_sweeper()
    genesis, seeded, declined = stored[:3]
    assert seeded["type"] == "client_seed" and seeded["client_seed"] == "ab" * 32
    assert declined == {**declined, "type": "client_seed", "seat": 1, "client_seed": None,
                        "ts": created["seed_deadline_ms"]}  # the deadline exactly
    assert created["seed_deadline_ms"] == genesis["ts"] + 400
    # play started, and the turn timeouts ran the match to its end
    assert stored[3]["type"] == "timeout" and stored[3]["ts"] == declined["ts"] + 300
    assert stored[-1]["type"] == "reveal"
    # the bundle verifies with `fairdeal verify`, pinned to the server's key
    runner = CliRunner()
    out = tmp_path / "declined.json"
    assert runner.invoke(cli, ["--data-dir", str(tmp_path), "export", match_id,
                               "-o", str(out)]).exit_code == 0
    verified = runner.invoke(cli, ["verify", "--trusted-key", ledger.server_key.public_text,
                                   str(out)])
    assert verified.exit_code == 0 and verified.output.startswith("OK:"), verified.output


def test_a_late_request_declines_every_missing_seed_as_if_on_time(ledger: Ledger) -> None:
    now = [1_800_000_000_000]
    ledger.clock = lambda: now[0]
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    deadline = now[0] + DEFAULT_SEED_DEADLINE_MS  # no turn limit: the default
    assert ledger.seat_view(match_id, tokens[0])["deadline_ms"] == deadline
    now[0] += DEFAULT_SEED_DEADLINE_MS - 1
    assert ledger.spectator_view(match_id)["status"] == "seating"
    now[0] += 5_000
    # the seat that comes late finds its seed already declined, and play started
    view = ledger.seat_view(match_id, tokens[1])
    assert view["status"] == "playing" and view["seeded"] == [True, True]
    events = ledger.public_events(match_id)
    assert [(e["type"], e.get("seat"), e.get("client_seed"), e["ts"]) for e in events[1:]] == [
        ("client_seed", 0, None, deadline), ("client_seed", 1, None, deadline)]
    with pytest.raises(Refused, match="already added or declined") as refused:
        ledger.add_seed(match_id, tokens[1], "cd" * 32)
    assert refused.value.code == "out-of-phase"
    # a turn limit is the seating deadline when none is given
    timed = ledger.create_match("arcomage", {}, turn_limit_ms=2_000)
    assert timed["seed_deadline_ms"] == now[0] + 2_000
