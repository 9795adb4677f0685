"""One attack, one defence, one assertion: a server holding its own key, a dishonest player,
and both together, against the real ledger, the client's receipt check and the verifier.

docs/guarantees.md lists each guarantee with the test here that shows it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from cheats import (
    GUARANTEES,
    Clock,
    Match,
    continue_as_server,
    forge_match,
    opening_hand_value,
    reforged_under,
    verify,
)

from fairdeal.client import TamperDetected
from fairdeal.games import get_game
from fairdeal.ledger.errors import Refused
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.forge import reseal
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import (
    deal_seed,
    event_hash,
    setup_stream,
)
from fairdeal.verifier.receipts import receipt_json

GRIND_TRIES = 2_000


def _ground_seed(bundle: dict[str, Any], seat: int, favour: int) -> str:
    """A grinding server's best seed for ``seat``: of 2,000 it tries, the one whose deal gives
    seat ``favour`` the richest opening hand (it knows its own seed and every other seed)."""
    events = bundle["events"]
    genesis = events[0]
    server_seed = bytes.fromhex(events[-1]["server_seed"])
    seeds = [None, None]
    for event in events:
        if event.get("type") in ("seed_reveal", "client_seed"):
            seeds[event["seat"]] = event["client_seed"]
    game = get_game(genesis["game"])
    best, best_value = None, -1
    for attempt in range(GRIND_TRIES):
        candidate = f"{attempt:064x}"
        seeds[seat] = candidate
        state = game.setup(genesis["params"],
                           setup_stream(deal_seed(server_seed, genesis["match_id"], seeds)))
        value = opening_hand_value(genesis["game"], state, favour)
        if value > best_value:
            best, best_value = candidate, value
    assert best is not None
    return best


def _seed_events(bundle: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    return [e for e in bundle["events"] if e.get("seat") == seat
            and e["type"] in ("seed_commit", "seed_reveal", "client_seed")]


def _honest(ledger: Ledger, clock: Clock, signed: tuple[bool, bool] = (True, True)) -> Match:
    match = Match(ledger, clock, signed=signed)
    match.seat_both_in_two_steps()
    match.play_to_the_end()
    return match


# --- the honest case stands beside every mutation ---------------------------------------------

def test_an_honest_match_verifies_with_every_pin_and_every_receipt(ledger, clock,
                                                                    server_key) -> None:
    match = _honest(ledger, clock)
    a, b = match.players
    report = verify(match.bundle(), server_key, {**a.pin, **b.pin}, a.receipts + b.receipts)
    assert report.ok, report.failure
    assert report.facts["deal_influence"]["text"] == (
        "fixed before any seat's entropy was known; seats A and B contributed signed seeds: "
        "fair unless both players and the server colluded")
    assert report.facts["receipts"]["checked"] == len(a.receipts) + len(b.receipts)


# --- 1. a dishonest server grinds the deal after the commitment --------------------------------

def test_grinding_is_worth_it_to_a_dishonest_server(ledger, clock, server_key) -> None:
    """The attack is real: the ground seed gives seat A a richer opening hand than the honest
    deal did (which is why every defence below matters)."""
    match = _honest(ledger, clock)
    bundle = match.bundle()
    ground = _ground_seed(bundle, seat=1, favour=0)
    forged = forge_match(bundle, server_key, seeds={1: ground})
    game = get_game("arcomage")

    def first_state(events: list[dict[str, Any]]) -> Any:
        seeds = [None, None]
        for event in events:
            if event["type"] in ("seed_reveal", "client_seed"):
                seeds[event["seat"]] = event["client_seed"]
        deal = deal_seed(bytes.fromhex(events[-1]["server_seed"]), events[0]["match_id"], seeds)
        return game.setup(events[0]["params"], setup_stream(deal))

    assert opening_hand_value("arcomage", first_state(forged["events"]), 0) > \
        opening_hand_value("arcomage", first_state(bundle["events"]), 0)


def test_a_swapped_signed_seed_breaks_the_seats_signature(ledger, clock, server_key) -> None:
    """Defence: seat signatures on seed events, checked by `fairdeal verify` with no pin."""
    match = _honest(ledger, clock)
    bundle = match.bundle()
    forged = forge_match(bundle, server_key, seeds={1: _ground_seed(bundle, 1, 0)})
    report = verify(forged, server_key)
    commit = _seed_events(forged, 1)[0]
    assert report.failure is not None
    assert (report.failure.check, report.failure.seq) == ("seat-signatures", commit["seq"])


def test_a_swapped_seed_stripped_of_its_signature_is_refused(ledger, clock, server_key) -> None:
    match = _honest(ledger, clock)
    bundle = match.bundle()
    for event in _seed_events(bundle, 1):
        del event["sig"]
    forged = forge_match(bundle, server_key, seeds={1: _ground_seed(match.bundle(), 1, 0)})
    report = verify(forged, server_key)
    assert report.failure is not None and report.failure.check == "seat-signatures"
    assert "not signed" in report.failure.reason


def test_a_seat_key_replaced_by_the_servers_own_needs_the_players_pin(ledger, clock,
                                                                     server_key) -> None:
    """Seat B signs, seat A does not. The server registers a key of its own for B in place of
    B's, re-signs every event of B's with it, grinds B's seed and plays the match itself: every
    signature is valid. The player's pinned key (or its receipts) is what catches it; the
    report without them says the key is not pinned."""
    match = _honest(ledger, clock, signed=(False, True))
    b = match.players[1]
    impostor = SigningKey.from_seed(b"\x42" * 32)
    bundle = match.bundle()
    forged = forge_match(bundle, server_key, seeds={1: _ground_seed(bundle, 1, 0)},
                         keys={1: impostor}, signers={1: impostor})
    unpinned = verify(forged, server_key)
    assert unpinned.ok, unpinned.failure
    assert "key of seat B not pinned" in unpinned.facts["deal_influence"]["text"]
    key_event = next(e for e in forged["events"] if e["type"] == "seat_key" and e["seat"] == 1)
    pinned = verify(forged, server_key, b.pin)
    assert pinned.failure is not None
    assert (pinned.failure.check, pinned.failure.seq) == ("seat-signatures", key_event["seq"])
    with_receipts = verify(forged, server_key, receipts=b.receipts)
    assert with_receipts.failure is not None
    assert (with_receipts.failure.check, with_receipts.failure.seq) == ("receipts",
                                                                        key_event["seq"])
    assert "server-signed proof of tampering" in with_receipts.failure.reason
    assert "`seat-key-replaced`" in GUARANTEES


def test_unsigned_seeds_leave_the_deal_to_the_server_and_the_report_says_so(
        ledger, clock, server_key) -> None:
    """Seats without keys: the server can rewrite their seeds wholesale and the bundle still
    verifies — the report names the weaker guarantee, and the players' receipts prove it."""
    match = _honest(ledger, clock, signed=(False, False))
    b = match.players[1]
    bundle = match.bundle()
    forged = forge_match(bundle, server_key, seeds={1: _ground_seed(bundle, 1, 0)})
    report = verify(forged, server_key)
    assert report.ok, report.failure
    assert report.facts["deal_influence"]["colluders_needed"] == [["server"]]
    assert report.facts["deal_influence"]["text"].endswith("the server could have chosen this deal")
    caught = verify(forged, server_key, receipts=b.receipts)
    assert caught.failure is not None and caught.failure.check == "receipts"


def test_one_signed_seat_protects_the_deal_from_a_server_rewriting_the_other(
        ledger, clock, server_key) -> None:
    """Seat A signs, seat B does not. Rewriting B's (unsigned) seed after A's reveal changes
    the chain under A's signed reveal: caught with no pin at all."""
    match = _honest(ledger, clock, signed=(True, False))
    bundle = match.bundle()
    honest = verify(bundle, server_key)
    assert honest.facts["deal_influence"]["colluders_needed"] == [["server", "A"]]
    forged = forge_match(bundle, server_key, seeds={1: _ground_seed(bundle, 1, 0)})
    report = verify(forged, server_key)
    a_reveal = _seed_events(forged, 0)[1]
    assert report.failure is not None
    assert (report.failure.check, report.failure.seq) == ("seat-signatures", a_reveal["seq"])


# --- 2. the server and seat B collude against seat A -------------------------------------------

def test_colluders_cannot_change_b_seed_once_a_reveals(ledger, clock, server_key) -> None:
    """B committed blind; after A's reveal the colluders know the deal every B seed makes, but
    the ledger takes only the committed one — and a rewritten commitment, re-signed by B
    itself, changes the chain under A's signed reveal."""
    match = Match(ledger, clock)
    a, b = match.players
    assert b.key is not None
    a.commit()
    b.commit()
    a.reveal()
    known = {"events": [*ledger.public_events(match.id),
                        {"server_seed": ledger.store.match(match.id)["server_seed"]}]}
    ground = _ground_seed(known, seat=1, favour=1)
    signed = b._signed("seed_reveal", {"client_seed": ground})  # B signs what it likes
    with pytest.raises(Refused, match="does not open its commitment"):
        ledger.add_seed(match.id, b.token, ground, **signed)
    b.reveal()
    match.play_to_the_end()
    forged = forge_match(match.bundle(), server_key, seeds={1: ground}, signers={1: b.key})
    report = verify(forged, server_key, {**a.pin, **b.pin})
    assert report.failure is not None
    assert (report.failure.check, report.failure.seq) == (
        "seat-signatures", _seed_events(forged, 0)[1]["seq"])


def test_a_seed_shown_before_the_other_seat_committed_is_reported(ledger, clock,
                                                                  server_key) -> None:
    """A sends its seed in one step before B commits: the server and B could grind B's seed,
    and every check passes. The report says exactly who could have chosen the deal."""
    match = Match(ledger, clock)
    a, b = match.players
    a.one_step()
    b.commit()
    b.reveal()
    match.play_to_the_end()
    report = verify(match.bundle(), server_key, {**a.pin, **b.pin})
    assert report.ok
    influence = report.facts["deal_influence"]
    assert influence["colluders_needed"] == [["server", "B"]]
    assert influence["text"] == ("seat A showed its seed before every other seat had "
                                 "committed: the server and seat B could have chosen this deal")
    assert "`one-step-seed-early`" in GUARANTEES


def test_a_seat_declining_leaves_the_deal_to_the_server_and_the_other(ledger, clock,
                                                                      server_key) -> None:
    match = Match(ledger, clock)
    a, b = match.players
    a.commit()
    b.decline()
    a.reveal()
    match.play_to_the_end()
    report = verify(match.bundle(), server_key, {**a.pin, **b.pin})
    assert report.ok
    assert report.facts["deal_influence"]["text"] == (
        "seat B declined: the server and seat A could have chosen this deal")


# --- 3. a dishonest player steals the opponent's time ---------------------------------------------

def test_a_backdated_move_does_not_shorten_the_opponents_turn(ledger, clock,
                                                              server_key) -> None:
    """A thinks 3.5 s of a 4 s turn and stamps its move 3.5 s in the past. The server's clock
    stamps the move; B's 4 s count from there, and the backdated stamp is kept as evidence."""
    match = Match(ledger, clock, turn_limit_ms=4_000)
    match.seat_both_in_two_steps()
    mover = match.current()
    other = match.players[1 - mover.seat]
    turn_start = clock.now
    clock.tick(3_500)
    options = ledger.seat_view(match.id, mover.token)["legal_actions"]
    passing = next(option for option in options if option["kind"] == "discard")
    event = mover.move(passing, client_ts=turn_start)["event"]
    assert event["ts"] == turn_start + 3_500 and event["client_ts"] == turn_start
    clock.tick(3_900)  # 3.9 s into B's turn: still B's to play
    ledger.sweep()
    view = ledger.seat_view(match.id, other.token)
    assert view["current_seat"] == other.seat, "B was timed out early"
    assert view["deadline_ms"] == event["ts"] + 4_000
    other.move(view["legal_actions"][0])
    match.play_to_the_end()
    assert verify(match.bundle(), server_key).ok


# --- 4. a dishonest server drops or changes an accepted move ------------------------------------

def test_a_dropped_move_is_proved_by_the_players_receipt(ledger, clock, server_key) -> None:
    """Unsigned seats: the server forgets A's accepted 3rd move and replays the rest of the
    match itself. The bundle is consistent and sealed — A's receipt is the server's own
    signature on the move it dropped."""
    match = _honest(ledger, clock, signed=(False, False))
    a = match.players[0]
    events = match.bundle()["events"]
    dropped = [e for e in events if e["type"] == "move" and e["seat"] == 0][2]
    server_seed = bytes.fromhex(events[-1]["server_seed"])
    forged = continue_as_server(events[:dropped["seq"]], server_seed,
                                lambda state, options: options[-1], server_key)
    assert verify(forged, server_key).ok  # the bundle alone cannot show it
    report = verify(forged, server_key, receipts=a.receipts)
    assert report.failure is not None
    assert (report.failure.check, report.failure.seq) == ("receipts", dropped["seq"])
    assert "server-signed proof of tampering" in report.failure.reason


def test_a_changed_signed_move_breaks_the_players_signature(ledger, clock, server_key) -> None:
    match = _honest(ledger, clock)
    bundle = match.bundle()
    move = next(e for e in bundle["events"] if e["type"] == "move" and e["seat"] == 0)
    move["action"] = {**move["action"], "card": move["action"]["card"] % 102 + 1}
    report = verify(reseal(bundle, server_key), server_key)
    assert report.failure is not None
    assert (report.failure.check, report.failure.seq) == ("seat-signatures", move["seq"])


def test_the_client_notices_a_server_that_stores_another_move(ledger, clock) -> None:
    """A cheating server built on the real ledger records a different legal move than the one
    sent: the bundled client's receipt check refuses the answer on the spot."""

    class SwappingLedger(Ledger):
        def play(self, match_id: str, token: str | None, action: Any, **kwargs: Any):
            live = self.matches.get(match_id)
            options = [live.recorder.game.action_to_json(option) for option in
                       live.recorder.game.legal_actions(live.recorder.state)]
            other = next((option for option in options if option != action), action)
            return super().play(match_id, token, other, **kwargs)

    cheat = SwappingLedger(ledger.store, ledger.server_key, clock=clock)
    match = Match(cheat, clock, signed=(False, False))
    match.seat_both_in_two_steps()
    player = match.current()
    options = cheat.seat_view(match.id, player.token)["legal_actions"]
    with pytest.raises(TamperDetected, match="the server stored action="):
        player.move(options[0])


def test_the_client_refuses_a_receipt_signed_by_another_key(ledger, clock) -> None:
    class ForeignReceipts(Ledger):
        def receipt(self, match_id: str, event: Any) -> dict[str, Any]:
            fake = SigningKey.from_seed(b"\x13" * 32)
            return receipt_json(match_id, event["seq"], event_hash(event), event["ts"], fake)

    cheat = ForeignReceipts(ledger.store, ledger.server_key, clock=clock)
    match = Match(cheat, clock, signed=(False, False))
    with pytest.raises(TamperDetected, match="not by the server key"):
        match.players[0].commit()


# --- 5. two reveals, 6. a history re-forged under a new key, 7. a false timeout ----------------

def test_a_second_reveal_is_refused(ledger, clock, server_key) -> None:
    bundle = _honest(ledger, clock).bundle()
    events = bundle["events"]
    events.insert(len(events) - 1, {**copy.deepcopy(events[-1]), "server_seed": "0" * 64})
    report = verify(reseal(bundle, server_key), server_key)
    assert report.failure is not None and report.failure.check == "timing"
    assert "second reveal" in report.failure.reason


def test_a_history_reforged_under_a_new_key_is_caught_by_the_pin_and_the_receipts(
        ledger, clock, server_key) -> None:
    match = _honest(ledger, clock, signed=(False, False))
    other = SigningKey.from_seed(b"\x99" * 32)
    forged = reforged_under(match.bundle(), other)
    # the real server's log proofs name the original history under the real key: kept, they
    # betray the forgery; so a forger drops them (the log check is optional)
    kept = verify(forged)
    assert kept.failure is not None and kept.failure.check == "log"
    forged.pop("log")
    assert verify(forged).ok  # consistent under its own key
    pinned = verify(forged, server_key)
    assert pinned.failure is not None and pinned.failure.check == "signature"
    receipts = verify(forged, receipts=match.players[0].receipts)
    assert receipts.failure is not None and receipts.failure.check == "receipts"
    assert "re-forged under another key" in receipts.failure.reason


def test_a_timeout_stamped_before_its_deadline_is_refused(ledger, clock, server_key) -> None:
    match = _honest(ledger, clock)
    bundle = match.bundle()
    events = bundle["events"]
    move = [e for e in events if e["type"] == "move"][3]
    events[move["seq"]] = {"seq": move["seq"], "prev": move["prev"], "type": "timeout",
                           "ts": events[move["seq"] - 1]["ts"] + 1_000, "seat": move["seat"]}
    report = verify(reseal(bundle, server_key), server_key)
    assert report.failure is not None and report.failure.check == "timers"
    assert "forged timeout" in report.failure.reason


def test_an_accepted_move_replaced_by_a_timeout_is_proved_by_the_receipt(
        ledger, clock, server_key) -> None:
    """The server accepted A's move in time, then wrote a timeout (stamped at the deadline)
    in its place and played on: A's receipt proves the move was accepted."""
    match = _honest(ledger, clock, signed=(False, False))
    a = match.players[0]
    events = match.bundle()["events"]
    move = [e for e in events if e["type"] == "move" and e["seat"] == 0][1]
    prefix = copy.deepcopy(events[:move["seq"]])
    limit = events[0]["turn_limit_ms"]
    prefix.append({"seq": move["seq"], "prev": move["prev"], "type": "timeout",
                   "ts": prefix[-1]["ts"] + limit, "seat": 0})
    forged = continue_as_server(prefix, bytes.fromhex(events[-1]["server_seed"]),
                                lambda state, options: options[0], server_key)
    assert verify(forged, server_key).ok
    report = verify(forged, server_key, receipts=a.receipts)
    assert report.failure is not None
    assert (report.failure.check, report.failure.seq) == ("receipts", move["seq"])


def test_what_no_log_can_prevent_is_written_down() -> None:
    """A server that refuses a move (or a seed) outright leaves the player no receipt; a
    server that re-creates matches until a deal suits it is outside one match's log. Both are
    named in docs/guarantees.md, with what the player can still show."""
    for entry in ("refuses-a-write", "re-creates-matches", "seat-key-replaced",
                  "one-step-seed-early"):
        assert f"`{entry}`" in GUARANTEES, entry


# --- 8. a dishonest player --------------------------------------------------------------------

def test_a_player_cannot_change_its_seed_after_seeing_the_other(ledger, clock) -> None:
    match = Match(ledger, clock, signed=(False, False))
    a, b = match.players
    a.commit()
    b.commit()
    a.reveal()
    with pytest.raises(Refused, match="does not open its commitment"):
        ledger.add_seed(match.id, b.token, "ff" * 32)


def test_a_player_cannot_deny_its_signed_move(ledger, clock, server_key) -> None:
    """The move verifies under the key the player itself pinned: it is the player's."""
    match = _honest(ledger, clock)
    a, b = match.players
    report = verify(match.bundle(), server_key, a.pin)
    assert report.ok and report.facts["seat_keys_pinned"] == ["A"]


def test_a_forged_receipt_proves_nothing(ledger, clock, server_key) -> None:
    """A player who edits a receipt to frame the server: the receipt no longer carries the
    server's signature, and the report says the receipts file was altered, not the bundle."""
    match = _honest(ledger, clock, signed=(False, False))
    a = match.players[0]
    receipts = a.receipts
    forged = receipts[3].__class__(**{**receipts[3].to_json(), "event": "ab" * 32})
    report = verify(match.bundle(), server_key, receipts=[*receipts[:3], forged])
    assert report.failure is not None and report.failure.check == "receipts"
    assert "not a receipt the server signed" in report.failure.reason
