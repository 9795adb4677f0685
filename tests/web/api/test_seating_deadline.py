"""A seat that never adds nor declines its seed: past the seating deadline the server declines
for it (``seed_expired`` stamped with the deadline), with nobody calling, and play starts. A
seat that committed and never reveals forfeits the match: it is never re-dealt."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.ledger.errors import BadRequest, Refused
from fairdeal.ledger.service import DEFAULT_SEED_DEADLINE_MS, Ledger
from fairdeal.verifier.protocol import MIN_SEATING_MS, client_commitment
from fairdeal.verifier.verify import verify_bytes
from fairdeal.web.app import create_app


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_sweeper_declines_missing_seeds_with_nobody_calling(ledger: Ledger,
                                                                  tmp_path) -> None:
    # the window is the protocol's shortest (10 s): the ledger's clock is the test's, moved on
    # while the real sweeper thread runs, so the test does not wait it out
    now = [1_800_000_000_000]
    ledger.clock = lambda: now[0]
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": True,
                      "FAIRDEAL_SWEEP_INTERVAL": 0.05})
    client = app.test_client()
    created = client.post("/api/v1/matches", json={"game": "toybattle", "turn_limit_ms": 300,
                                                    "seed_deadline_ms": MIN_SEATING_MS})
    assert created.status_code == 201, created.get_json()
    created = created.get_json()
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
        now[0] += 1_000
        time.sleep(0.1)
    ledger.stop_sweeper()
    genesis, seeded, declined = stored[:3]
    assert seeded["type"] == "client_seed" and seeded["client_seed"] == "ab" * 32
    assert declined == {**declined, "type": "seed_expired", "seat": 1,
                        "ts": created["seed_deadline_ms"]}  # the deadline exactly
    assert "client_seed" not in declined
    assert created["seed_deadline_ms"] == genesis["ts"] + MIN_SEATING_MS
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
    assert [(e["type"], e.get("seat"), e["ts"]) for e in events[1:]] == [
        ("seed_expired", 0, deadline), ("seed_expired", 1, deadline)]
    with pytest.raises(Refused, match="already in") as refused:
        ledger.add_seed(match_id, tokens[1], "cd" * 32)
    assert refused.value.code == "out-of-phase"
    # a turn limit is the seating deadline when none is given, but never below the minimum
    timed = ledger.create_match("arcomage", {}, turn_limit_ms=20_000)
    assert timed["seed_deadline_ms"] == now[0] + 20_000
    short = ledger.create_match("arcomage", {}, turn_limit_ms=2_000)
    assert short["seed_deadline_ms"] == now[0] + MIN_SEATING_MS


def test_a_seat_that_committed_and_never_reveals_forfeits(ledger: Ledger, tmp_path) -> None:
    """Seat B commits, sees seat A's reveal and does not like the deal it would make: it stays
    silent. At the reveal deadline the server forfeits it — A wins, and nothing is re-dealt."""
    now = [1_800_000_000_000]
    ledger.clock = lambda: now[0]
    created = ledger.create_match("arcomage", {}, turn_limit_ms=5_000, seed_deadline_ms=10_000)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    seeds = ["aa" * 32, "bb" * 32]
    for seat, token in enumerate(tokens):
        ledger.add_seed(match_id, token, commitment=client_commitment(match_id, seat,
                                                                        seeds[seat]))
        now[0] += 100
    closed = now[0] - 100
    with pytest.raises(Refused, match="committed to a seed"):
        ledger.add_seed(match_id, tokens[0], None)
    ledger.add_seed(match_id, tokens[0], seeds[0])
    assert ledger.seat_view(match_id, tokens[1])["seed_phase"] == "reveal"
    now[0] = closed + 10_000  # the reveal deadline: counted from the last commitment
    view = ledger.spectator_view(match_id)
    assert view["status"] == "ended"
    assert view["result"] == {"winner": 0, "reason": "seed-not-revealed"}
    events = ledger.public_events(match_id)
    assert [e["type"] for e in events] == ["genesis", "seed_commit", "seed_commit",
                                           "seed_reveal", "seed_forfeit", "reveal"]
    assert events[4] == {**events[4], "seat": 1, "ts": closed + 10_000}
    report = verify_bytes(ledger.bundle(match_id), ledger.server_key.public_text)
    assert report.ok, report.failure
    assert report.facts["deal_influence"]["text"].startswith("no deal was made: seat B")
    # `fairdeal replay` says there is nothing to replay, instead of printing nothing
    path = tmp_path / "forfeit.json"
    path.write_bytes(ledger.bundle(match_id))
    replayed = CliRunner().invoke(cli, ["replay", str(path)])
    assert replayed.exit_code == 1
    assert "ended before any deal was made (seed-not-revealed)" in replayed.output


def test_a_reveal_before_every_seat_committed_is_refused(ledger: Ledger) -> None:
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    ledger.add_seed(match_id, tokens[0], commitment=client_commitment(match_id, 0, "aa" * 32))
    with pytest.raises(Refused, match="only once every seat") as refused:
        ledger.add_seed(match_id, tokens[0], "aa" * 32)
    assert refused.value.code == "out-of-phase"
    ledger.add_seed(match_id, tokens[1], None)  # B declines: the reveals may begin
    with pytest.raises(Refused, match="does not open its commitment"):
        ledger.add_seed(match_id, tokens[0], "ab" * 32)
    ledger.add_seed(match_id, tokens[0], "aa" * 32)
    assert ledger.spectator_view(match_id)["status"] == "playing"


def test_a_live_match_of_protocol_version_1_finishes_under_its_own_rules(ledger: Ledger) -> None:
    """A database from before version 2 may hold live matches of version 1: they go on with one
    client_seed per seat (declined with null at the deadline) and seat-stamped signed moves."""
    from fairdeal.verifier.keys import SigningKey
    from fairdeal.verifier.protocol import move_message

    now = [1_800_000_000_000]
    ledger.clock = lambda: now[0]
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None,
                                  seed_deadline_ms=MIN_SEATING_MS, protocol="fairdeal/1")
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    key = SigningKey.from_seed(b"\x01" * 32)
    ledger.register_key(match_id, tokens[0], key.public_text)
    ledger.add_seed(match_id, tokens[0], "ab" * 32)
    with pytest.raises(BadRequest, match="no seed commitments"):
        ledger.add_seed(match_id, tokens[1], commitment="cd" * 32)
    now[0] += MIN_SEATING_MS
    view = ledger.spectator_view(match_id)
    assert view["status"] == "playing" and view["protocol"] == "fairdeal/1"
    events = ledger.public_events(match_id)
    assert events[-1] == {**events[-1], "type": "client_seed", "seat": 1, "client_seed": None}
    seat = view["current_seat"]
    if seat == 0:
        seat_view = ledger.seat_view(match_id, tokens[0])
        action = seat_view["legal_actions"][0]
        draft = {"seq": seat_view["next_seq"], "prev": seat_view["head"], "type": "move",
                 "ts": now[0], "seat": 0, "action": action, "action_id": "v1"}
        stored = ledger.play(match_id, tokens[0], action, expected_seq=draft["seq"],
                             action_id="v1", ts=now[0],
                             sig=key.sign(move_message(draft)).hex())["event"]
        assert stored["ts"] == now[0] and "client_ts" not in stored
    ledger.resign(match_id, tokens[1])  # seat B has no key: an unsigned resignation
    report = verify_bytes(ledger.bundle(match_id), ledger.server_key.public_text)
    assert report.ok, report.failure
    assert report.facts["protocol"] == "fairdeal/1"
