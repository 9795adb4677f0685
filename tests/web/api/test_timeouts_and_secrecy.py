"""Timeouts written by the server with nobody calling, stamped with the deadline; and the
secrecy of the seed, the hands and the deck until the reveal."""

from __future__ import annotations

import json
import logging
import random
import time

from fairdeal.games.arcomage.cards import CARD_BY_ID
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.replay import replay_steps
from fairdeal.verifier.verify import verify_bytes
from fairdeal.web.app import create_app


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_sweeper_writes_timeouts_with_nobody_calling(ledger: Ledger) -> None:
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": True,
                      "FAIRDEAL_SWEEP_INTERVAL": 0.05})
    client = app.test_client()
    created = client.post("/api/v1/matches",
                          json={"game": "arcomage", "turn_limit_ms": 400}).get_json()
    match_id = created["id"]
    for seat in created["seats"]:
        client.post(f"/api/v1/matches/{match_id}/seed", json={"client_seed": None},
                    headers=_auth(seat["token"]))
    # nobody calls: only the sweeper thread writes (read the database directly)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        stored = [event.to_json() for event in ledger.store.read(match_id)]
        if stored[-1]["type"] == "reveal":
            break
        time.sleep(0.1)
    ledger.stop_sweeper()
    types = [event["type"] for event in stored]
    assert types[-1] == "reveal", types
    timeouts = [event for event in stored if event["type"] == "timeout"]
    assert len(timeouts) == 5  # X, Y, X, Y, X: the third in a row by the first seat loses
    first = timeouts[0]["seat"]
    assert [event["seat"] for event in timeouts] == [first, 1 - first] * 2 + [first]
    for previous, event in zip(stored, stored[1:], strict=False):
        if event["type"] == "timeout":
            assert event["ts"] == previous["ts"] + 400  # exactly the deadline
    assert stored[-1]["result"] == {"winner": 1 - timeouts[0]["seat"], "reason": "timeouts"}
    bundle = ledger.bundle_bytes(match_id)
    assert bundle is not None and verify_bytes(bundle, ledger.server_key.public_text).ok


def test_a_late_request_writes_the_overdue_timeouts_as_if_on_time(ledger: Ledger) -> None:
    now = [1_800_000_000_000]
    ledger.clock = lambda: now[0]
    created = ledger.create_match("arcomage", {}, turn_limit_ms=1_000)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(match_id, token, None)
    start = now[0]
    now[0] += 2_500  # two deadlines passed while nobody was looking
    view = ledger.spectator_view(match_id)
    events = ledger.public_events(match_id, after=2)
    assert [(e["type"], e["ts"]) for e in events] == [("timeout", start + 1_000),
                                                       ("timeout", start + 2_000)]
    assert view["next_seq"] == 5 and view["deadline_ms"] == start + 3_000
    # a move now is within the third turn
    seat = view["current_seat"]
    action = ledger.seat_view(match_id, tokens[seat])["legal_actions"][0]
    played = ledger.play(match_id, tokens[seat], action, expected_seq=5, action_id="late")
    assert played["event"]["ts"] == now[0]


def test_nothing_secret_leaves_the_server_before_the_reveal(ledger: Ledger, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False})
    client = app.test_client()
    seen: dict[str, list[bytes]] = {"seat0": [], "seat1": [], "spectator": []}
    timeline: list[bytes] = []  # every response, in order

    def call(method: str, path: str, who: str, token: str | None = None,
             body: object = None) -> dict:
        response = client.open("/api/v1" + path, method=method, json=body,
                               headers=_auth(token) if token else {})
        seen[who].append(response.data)
        timeline.append(response.data)
        return response.get_json()

    rng = random.Random(11)
    created = call("POST", "/matches", "spectator", body={"game": "arcomage"})
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for seat, token in enumerate(tokens):
        call("POST", f"/matches/{match_id}/seed", f"seat{seat}", token,
             {"client_seed": rng.randbytes(32).hex()})
    # refused requests are recorded too: their errors must not leak either
    call("POST", f"/matches/{match_id}/actions", "seat0", tokens[0],
         {"action": {"kind": "play", "card": 1}, "expected_seq": 99, "action_id": "x"})
    for ply in range(10_000):
        public = call("GET", f"/matches/{match_id}", "spectator")
        call("GET", f"/matches/{match_id}/events?after=-1", "spectator")
        if public["status"] == "ended":
            break
        seat = public["current_seat"]
        who = f"seat{seat}"
        view = call("GET", f"/matches/{match_id}", who, tokens[seat])
        call("POST", f"/matches/{match_id}/actions", who, tokens[seat],
             {"action": rng.choice(view["legal_actions"]), "expected_seq": view["next_seq"],
              "action_id": f"p{ply}"})
    else:
        raise AssertionError("the match did not end")
    bundle = json.loads(client.get(f"/api/v1/matches/{match_id}/bundle").data)
    seed = bundle["events"][-1]["server_seed"]
    # every state of the match, hands and draw pile included, re-derived after the reveal
    replayer, steps, error = replay_steps(bundle["events"], bytes.fromhex(seed))
    assert error is None
    game = replayer.game
    secrets_of = {0: set(), 1: set()}  # what seat s must never see: the other hand, the pile
    for step in steps:
        full = game.state_to_json(step.state)
        pile = json.dumps(full["deck"]["draw_pile"], separators=(",", ":")).encode()
        for seat in (0, 1):
            hand = full["players"][1 - seat]["hand"]
            if len(hand) >= 3:
                secrets_of[seat].add(b'"hand":' + json.dumps(hand, separators=(",", ":"))
                                     .encode())
            if len(full["deck"]["draw_pile"]) >= 3:
                secrets_of[seat].add(pile[:-1])  # the order of the draw pile, as a prefix
    # the seed is public from the first response that shows the match ended, not before
    ended_at = next(index for index, body in enumerate(timeline)
                    if b'"status":"ended"' in body or b'"type":"reveal"' in body)
    assert ended_at > 10
    for body in timeline[:ended_at]:
        assert seed.encode() not in body
    assert any(seed.encode() in body for body in timeline[ended_at:])
    assert seed not in caplog.text  # nor in any log line
    for seat in (0, 1):
        bodies = seen[f"seat{seat}"] + seen["spectator"]
        for secret in secrets_of[seat]:
            assert not any(secret in body for body in bodies), (seat, secret)
    # the captions of /events name only cards already played or discarded by their move (the
    # move's card included): never one still in a hand or in the draw pile
    shown_text: dict[int, str] = {}  # seq -> every shown card's name and effect, up to it
    so_far = ""
    for event in bundle["events"]:
        if event["type"] == "move":
            card = CARD_BY_ID[event["action"]["card"]]
            so_far += f" {card.name} {card.effect}"
        shown_text[event["seq"]] = so_far
    checked = 0
    for body in timeline[:ended_at]:
        for seq, caption in json.loads(body).get("captions", {}).items():
            named = [card.name for card in CARD_BY_ID.values() if card.name in caption]
            assert named and all(name in shown_text[int(seq)] for name in named), caption
            checked += 1
    assert checked > 10
    # and the seat did see its own hand (the search would find it if it leaked)
    own_hands = {b'"hand":' + json.dumps(game.state_to_json(s.state)["players"][0]["hand"],
                                         separators=(",", ":")).encode() for s in steps}
    assert any(hand in body for body in seen["seat0"] for hand in own_hands)
