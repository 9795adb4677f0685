"""A pin is a requirement, not a label (issue 18, break 1): a seat whose player's key is pinned
(``fairdeal verify --seat-key SEAT=KEY``) must show that very key registered, and every seed
event, move and resignation of the seat signed by it. A server holding only its own key gets
no OK with the seats pinned — not by re-forging the match as a version 1 bundle, not by
declaring every seat's seed expired after a 1 ms window, not by stripping one signature.

Every cheat is built as the server would build it (cheats.py) from a real match played on the
real ledger, and checked by the real verifier; the honest case stands beside each one.
docs/guarantees.md names these tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cheats import GUARANTEES, ROOT, Clock, Match, server_written, verify
from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.forge import reseal
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import MIN_SEATING_MS, PROTOCOL_V1
from fairdeal.verifier.report import Report
from fairdeal.web.app import create_app


def _honest(ledger: Ledger, clock: Clock) -> Match:
    match = Match(ledger, clock)
    match.seat_both_in_two_steps()
    match.play_to_the_end()
    return match


def _pins(match: Match) -> dict[str, str]:
    a, b = match.players
    return {**a.pin, **b.pin}


def _failure(report: Report) -> tuple[str, int | None, str]:
    assert report.failure is not None, "verified OK"
    return report.failure.check, report.failure.seq, report.failure.reason


def _first(bundle: dict[str, Any], kind: str, seat: int | None = None) -> dict[str, Any]:
    return next(event for event in bundle["events"] if event["type"] == kind
                and (seat is None or event.get("seat") == seat))


# --- the honest cases ---------------------------------------------------------------------------

def test_an_honest_match_verifies_with_both_seats_pinned(ledger, clock, server_key) -> None:
    match = _honest(ledger, clock)
    report = verify(match.bundle(), server_key, _pins(match))
    assert report.ok, report.failure
    assert report.facts["seat_keys_pinned"] == ["A", "B"]
    detail = {check.name: check.detail for check in report.checks}["seat-signatures"]
    assert detail == ("2 of 2 seats signed their seeds and moves; pinned: A, B (every seed "
                      "event, move and resignation of a pinned seat is signed by its pinned "
                      "key)")
    assert report.facts["deal_influence"]["text"] == (
        "fixed before any seat's entropy was known; seats A and B contributed signed seeds: "
        "fair unless both players and the server colluded")


def test_an_honest_pinned_seat_whose_seed_expired_verifies(ledger, clock, server_key) -> None:
    """Seat B registered its key and sent no seed in time: the server's expiry is allowed,
    because B's key is in the match and every move of B's is signed by it."""
    match = Match(ledger, clock)
    a, b = match.players
    a.commit()
    clock.tick(60_000)  # the seating window (the turn limit) runs out for B
    ledger.sweep()
    a.reveal()
    match.play_to_the_end()
    bundle = match.bundle()
    expired = _first(bundle, "seed_expired")
    assert expired["seat"] == 1
    assert _first(bundle, "seat_key", 1)["seq"] < expired["seq"]
    report = verify(bundle, server_key, _pins(match), a.receipts + b.receipts)
    assert report.ok, report.failure
    assert report.facts["deal_influence"]["text"] == (
        "seat B sent no seed in time: the server and seat A could have chosen this deal")


# --- (a) the signed match re-forged as a version 1 bundle ----------------------------------------

def test_a_signed_match_reforged_as_version_1_fails_the_pins(ledger, clock, server_key,
                                                              tmp_path: Path) -> None:
    """The server rewrites a signed fairdeal/2 match as fairdeal/1: no seat_key events, client
    seeds of its own choosing, every move unsigned, sealed with its real key. Alone it is a
    valid version 1 bundle; with the seats pinned it fails at the genesis, in words."""
    match = _honest(ledger, clock)
    forged = server_written(match.bundle(), server_key, protocol=PROTOCOL_V1,
                            seeds={0: "c3" * 32, 1: "d4" * 32})
    assert forged["events"][0]["protocol"] == PROTOCOL_V1
    assert not any(event["type"] == "seat_key" or "sig" in event for event in forged["events"])
    unpinned = verify(forged, server_key)
    assert unpinned.ok, unpinned.failure  # what no pin can tell from an old bundle
    assert "the server could have chosen this deal" in unpinned.facts["deal_influence"]["text"]
    check, seq, reason = _failure(verify(forged, server_key, _pins(match)))
    assert (check, seq) == ("seat-signatures", 0)
    assert reason.startswith("seat A and seat B are pinned, but this is a version 1 bundle "
                             "(fairdeal/1): version 1 had no signed seeds")
    assert "nothing in it can be shown to be the pinned player's" in reason
    # one pin is enough to refuse it
    check, seq, reason = _failure(verify(forged, server_key, match.players[1].pin))
    assert (check, seq) == ("seat-signatures", 0) and reason.startswith("seat B is pinned")
    # the command line of the issue: no OK, exit 1
    path = tmp_path / "reforged-v1.json"
    path.write_text(json.dumps(forged))
    a, b = match.players
    assert a.key is not None and b.key is not None
    result = CliRunner().invoke(cli, ["verify", "--trusted-key", server_key.public_text,
                                      "--seat-key", f"0={a.key.public_text}",
                                      "--seat-key", f"1={b.key.public_text}", str(path)])
    assert result.exit_code == 1, result.output
    assert "seat-signatures check failed at event 0" in result.output
    assert "OK" not in result.output.split(":")[0]


def test_a_pin_on_a_committed_version_1_bundle_fails_even_with_its_own_keys() -> None:
    """Version 1 signed moves but never seeds: even the keys its seat_key events name, pinned,
    cannot make a fairdeal/1 match the players'."""
    data = (ROOT / "fixtures/bundles/v1/honest/arcomage-signed-moves.json").read_bytes()
    bundle = json.loads(data)
    keys = {str(e["seat"]): e["public_key"] for e in bundle["events"] if e["type"] == "seat_key"}
    server = (ROOT / "fixtures/bundles/v1/server-key.txt").read_text().strip()
    from fairdeal.verifier.verify import verify_bytes

    assert verify_bytes(data, server).ok  # the honest v1 bundle itself stays valid
    report = verify_bytes(data, server, keys)
    check, seq, reason = _failure(report)
    assert (check, seq) == ("seat-signatures", 0)
    assert "version 1 bundle (fairdeal/1)" in reason and "pinned" in reason
    statuses = {c.name: c.status for c in report.checks}
    assert statuses["seat-signatures"] == "fail" and statuses["commitment"] == "pass"


# --- (b) inside fairdeal/2: a 1 ms window and every seat expired ----------------------------------

def test_a_one_millisecond_seating_window_fails_at_the_genesis(ledger, clock,
                                                                server_key) -> None:
    """The server writes a genesis with ``seating_ms: 1``, declares both seats' seeds expired
    at that deadline and plays every move itself, unsigned: pinned or not, the window is below
    the protocol's minimum, and the verdict says so at event 0."""
    match = _honest(ledger, clock)
    forged = server_written(match.bundle(), server_key, seating_ms=1)
    assert [e["type"] for e in forged["events"][1:3]] == ["seed_expired", "seed_expired"]
    assert forged["events"][1]["ts"] == forged["events"][0]["ts"] + 1
    for pins in (_pins(match), None):
        check, seq, reason = _failure(verify(forged, server_key, pins))
        assert (check, seq) == ("timers", 0)
        assert reason.startswith(f"the seating window is 1 ms, shorter than the protocol's "
                                 f"minimum of {MIN_SEATING_MS} ms")


def test_the_minimum_seating_window_is_the_boundary(ledger, clock, server_key) -> None:
    match = _honest(ledger, clock)
    seeds = {0: "c3" * 32, 1: "d4" * 32}
    below = server_written(match.bundle(), server_key, seating_ms=MIN_SEATING_MS - 1,
                           seeds=seeds)
    assert _failure(verify(below, server_key))[:2] == ("timers", 0)
    at = server_written(match.bundle(), server_key, seating_ms=MIN_SEATING_MS, seeds=seeds)
    assert verify(at, server_key).ok


def test_an_expiry_of_a_pinned_seat_that_never_registered_its_key_fails(ledger, clock,
                                                                          server_key) -> None:
    """(b) with a window the protocol allows: both seeds declared expired, no seat_key, every
    move the server's. Unpinned it is a valid match nobody joined; pinned, it fails at the
    pinned seat's expiry, naming the seat."""
    match = _honest(ledger, clock)
    forged = server_written(match.bundle(), server_key, seating_ms=MIN_SEATING_MS)
    assert verify(forged, server_key).ok
    check, seq, reason = _failure(verify(forged, server_key, _pins(match)))
    assert (check, seq) == ("seat-signatures", _first(forged, "seed_expired", 0)["seq"])
    assert reason.startswith("seat A (player A) is pinned but registered no key before the "
                             "server declared its seed expired")
    check, seq, reason = _failure(verify(forged, server_key, match.players[1].pin))
    assert (check, seq) == ("seat-signatures", _first(forged, "seed_expired", 1)["seq"])
    assert reason.startswith("seat B (player B) is pinned but registered no key")


def test_unsigned_seeds_of_the_servers_choosing_fail_at_the_pinned_seats_seed(
        ledger, clock, server_key) -> None:
    """Inside fairdeal/2, without the expiries: no seat_key, one-step seeds the server chose,
    every move its own. Pinned, it fails at the pinned seat's seed, the first event of it that
    should have been signed."""
    match = _honest(ledger, clock)
    forged = server_written(match.bundle(), server_key, seeds={0: "c3" * 32, 1: "d4" * 32})
    assert verify(forged, server_key).ok
    seed = _first(forged, "client_seed", 1)
    check, seq, reason = _failure(verify(forged, server_key, match.players[1].pin))
    assert (check, seq) == ("seat-signatures", seed["seq"])
    assert reason.startswith("seat B (player B) is pinned but this seed is not signed by it: "
                             "the seat registered no key before it")
    # a decline the server wrote for the pinned seat is no more the player's
    declined = server_written(match.bundle(), server_key, seeds={0: "c3" * 32, 1: None})
    check, seq, reason = _failure(verify(declined, server_key, match.players[1].pin))
    assert (check, seq) == ("seat-signatures", _first(declined, "client_seed", 1)["seq"])
    assert reason.startswith("seat B (player B) is pinned but this decline of a seed is not "
                             "signed by it")


def test_an_expired_pinned_seat_whose_moves_the_server_wrote_fails_at_its_first_move(
        ledger, clock, server_key) -> None:
    """The server registers the players' real public keys (it knows them), declares both seeds
    expired, and writes every move unsigned: the first move of a pinned seat fails."""
    match = _honest(ledger, clock)
    a, b = match.players
    assert a.key is not None and b.key is not None
    forged = server_written(match.bundle(), server_key, seating_ms=MIN_SEATING_MS,
                            keys={0: a.key.public_text, 1: b.key.public_text})
    first_move = _first(forged, "move")
    check, seq, reason = _failure(verify(forged, server_key, _pins(match)))
    assert (check, seq) == ("seat-signatures", first_move["seq"])
    seat = "A (player A)" if first_move["seat"] == 0 else "B (player B)"
    assert reason == (f"seat {seat} is pinned but this move is not signed by it: the event "
                      "carries no signature")


def test_a_pinned_seat_with_no_event_at_all_fails_at_the_reveal(ledger, clock,
                                                                 server_key) -> None:
    match = _honest(ledger, clock)
    bundle = match.bundle()
    events = [copy.deepcopy(bundle["events"][0]), copy.deepcopy(bundle["events"][-1])]
    events[1]["result"] = {"winner": None, "reason": "turn-limit"}
    forged = reseal({"format": bundle["format"], "events": events}, server_key)
    check, seq, reason = _failure(verify(forged, server_key, match.players[0].pin))
    assert (check, seq) == ("seat-signatures", 1)
    assert reason.startswith("seat A (player A) is pinned but the match ends without any "
                             "event of it")


# --- one signature stripped -------------------------------------------------------------------

def test_a_pinned_seats_move_stripped_of_its_signature_fails_there(ledger, clock,
                                                                   server_key) -> None:
    match = _honest(ledger, clock)
    bundle = match.bundle()
    stripped = [e for e in bundle["events"] if e["type"] == "move" and e["seat"] == 0][2]
    del stripped["sig"]
    forged = reseal(bundle, server_key)
    check, seq, reason = _failure(verify(forged, server_key, _pins(match)))
    assert (check, seq) == ("seat-signatures", stripped["seq"])
    assert reason == ("seat A (player A) is pinned but this move is not signed by it: the "
                      "event carries no signature")


def test_a_pinned_seats_resignation_unsigned_fails_there(ledger, clock, server_key) -> None:
    match = Match(ledger, clock)
    match.seat_both_in_two_steps()
    for _ in range(4):
        player = match.current()
        clock.tick(500)
        player.move(ledger.seat_view(match.id, player.token)["legal_actions"][0])
    match.players[0].resign()
    honest = match.bundle()
    assert verify(honest, server_key, _pins(match)).ok
    resign = _first(honest, "resign")
    assert resign["seat"] == 0 and "sig" in resign
    del resign["sig"]
    forged = reseal(honest, server_key)
    check, seq, reason = _failure(verify(forged, server_key, _pins(match)))
    assert (check, seq) == ("seat-signatures", resign["seq"])
    assert reason == ("seat A (player A) is pinned but this resignation is not signed by it: "
                      "the event carries no signature")
    # a resignation forged with a signature of another key is not the pinned player's either
    resign["sig"] = SigningKey.from_seed(b"\x42" * 32).sign(b"x").hex()
    check, seq, reason = _failure(verify(reseal(honest, server_key), server_key, _pins(match)))
    assert (check, seq) == ("seat-signatures", resign["seq"])
    assert reason.startswith("seat A (player A) is pinned but this resignation is not signed "
                             "by it: the signature is not the pinned key")


# --- the ledger keeps the minimum window -------------------------------------------------------

def test_the_ledger_refuses_a_seating_window_below_the_minimum(ledger: Ledger) -> None:
    with pytest.raises(BadRequest) as refused:
        ledger.create_match("arcomage", {}, seed_deadline_ms=MIN_SEATING_MS - 1)
    assert refused.value.code == "invalid-seed-deadline"
    assert str(refused.value).startswith(
        f"seed_deadline_ms must be an integer from {MIN_SEATING_MS} to 86400000")
    client = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False}).test_client()
    answer = client.post("/api/v1/matches", json={"game": "arcomage", "seed_deadline_ms": 1})
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert error["code"] == "invalid-seed-deadline"
    assert "seed_deadline_ms" in error["message"] and str(MIN_SEATING_MS) in error["message"]
    # the minimum itself is allowed, and a short turn limit never makes a shorter window
    at = client.post("/api/v1/matches", json={"game": "arcomage",
                                              "seed_deadline_ms": MIN_SEATING_MS})
    assert at.status_code == 201
    short = ledger.create_match("arcomage", {}, turn_limit_ms=1_000)
    genesis = ledger.public_events(short["id"])[0]
    assert genesis["seating_ms"] == MIN_SEATING_MS


# --- break 10: a seat label str.isdigit accepts and int() refuses ---------------------------------

@pytest.mark.parametrize("label", ["²", "٣", "9" * 5000, "C"])
def test_a_seat_label_that_is_no_seat_is_a_usage_error(label: str, tmp_path: Path) -> None:
    bundle = ROOT / "fixtures/bundles/honest/arcomage-signed-moves.json"
    key = SigningKey.from_seed(b"\x01" * 32).public_text
    runner = CliRunner()
    for command in (["verify", "--seat-key", f"{label}={key}", str(bundle)],
                    ["dispute", str(bundle), "--step", "1", "--seat-key", f"{label}={key}"]):
        result = runner.invoke(cli, command)
        assert result.exit_code == 2, (command[0], result.output, result.exception)
        assert isinstance(result.exception, SystemExit)  # a usage line, never a traceback
        shown = label if len(label) < 100 else label[:20]
        assert f"a key is pinned for seat '{shown}" in result.output
        assert "this match's seats are A, B" in result.output


def test_guarantees_name_these_tests() -> None:
    for name in ("test_a_signed_match_reforged_as_version_1_fails_the_pins",
                 "test_a_one_millisecond_seating_window_fails_at_the_genesis",
                 "test_an_expiry_of_a_pinned_seat_that_never_registered_its_key_fails"):
        assert name in GUARANTEES, name
