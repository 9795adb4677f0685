"""The viewer inside the project's app, over the real ledger (SQLite in a temporary folder)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from fairdeal.games import get_bots, get_game
from fairdeal.verifier.report import CHECKS, OPTIONAL_CHECKS
from fairdeal.web.app import create_app

#: the checks that pass on an honest bundle (the optional ones are skipped without input)
REQUIRED_CHECKS = len(CHECKS) - len(OPTIONAL_CHECKS)

#: the seat tokens of the matches _play_some created (the ledger returns them only once)
_TOKENS: dict[str, list[str]] = {}


@pytest.fixture()
def ledger_app(tmp_path: Path) -> Any:
    return create_app({"FAIRDEAL_DATA_DIR": str(tmp_path), "FAIRDEAL_SWEEPER": False,
                       "TESTING": True})


def _play_some(ledger: Any, moves: int) -> str:
    """A live two-tower duel with a few greedy moves played through the ledger."""
    created = ledger.create_match("arcomage", {}, seats=["<b>ann</b>", "bob"])
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    _TOKENS[match_id] = tokens
    ledger.add_seed(match_id, tokens[0], None)
    ledger.add_seed(match_id, tokens[1], "ab" * 32)
    bot = get_bots("arcomage")["greedy"]
    game = get_game("arcomage")
    rng = random.Random(5)
    for index in range(moves):
        view = ledger.view(match_id, None)
        recorder = ledger.matches.get(match_id).recorder  # the test plays both seats
        state = recorder.state
        seat = game.current_seat(state)
        action = game.action_to_json(bot.choose(state, rng))
        ledger.play(match_id, tokens[seat], action, expected_seq=view["next_seq"],
                    action_id=f"a{index}")
    return str(match_id)


def test_viewer_over_the_ledger_lists_imports_and_steps(ledger_app: Any,
                                                        arcomage_bundles: Any,
                                                        helpers: Any) -> None:
    client = ledger_app.test_client()
    bundle = arcomage_bundles[0]
    data = helpers.bundle_bytes(bundle)
    response = client.post("/upload", data={"pasted": data.decode(), "store": "1"})
    match_id = bundle["events"][0]["match_id"]
    assert response.status_code == 303 and response.location.endswith(f"/m/{match_id}")
    home = client.get("/").get_data(as_text=True)
    # sealed by the test's key, not this server's: listed, never "verified"
    # (tests/web/test_signer_labels.py covers the labels)
    assert f"/m/{match_id}" in home and "1:00 per turn" in home
    assert "signed by another server" in home and "✓ verified" not in home
    page = client.get(f"/m/{match_id}?step=4").get_data(as_text=True)
    assert 'id="step-number">4<' in page and page.count("status-pass") == REQUIRED_CHECKS
    assert client.get(f"/m/{match_id}/step/5.json").get_json()["step"] == 5
    assert client.get("/m/0000000000000000").status_code == 404


def test_live_match_over_the_ledger_shows_public_state_only(ledger_app: Any) -> None:
    ledger = ledger_app.extensions["fairdeal.ledger"]
    match_id = _play_some(ledger, 3)
    client = ledger_app.test_client()
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert "not yet verifiable — seed revealed at the end" in page
    assert "every check passed" not in page
    assert 'id="public-state"' in page and "tower" in page
    assert "&lt;b&gt;ann&lt;/b&gt;" in page and "<b>ann</b>" not in page
    # the hidden hands never reach the page
    state = ledger.matches.get(match_id).recorder.state
    full = get_game("arcomage").state_to_json(state)
    assert str(full["players"][0]["hand"]) not in page
    live = client.get(f"/m/{match_id}/live.json").get_json()
    assert live["events"] == 6 and live["ended"] is False
    home = client.get("/").get_data(as_text=True)
    assert "live · not yet verifiable" in home


def test_upload_errors_inside_the_project_app(ledger_app: Any, arcomage_bundles: Any,
                                              helpers: Any) -> None:
    import io

    client = ledger_app.test_client()
    big = io.BytesIO(b"[" + b" " * (6 * 1024 * 1024) + b"]")
    response = client.post("/upload", data={"bundle": (big, "big.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 413 and "too large" in response.get_data(as_text=True)
    response = client.post("/upload", data={"pasted": "{nope"})
    assert response.status_code == 422 and "not valid JSON" in response.get_data(as_text=True)
    forged, seq = helpers.tamper_move(arcomage_bundles[1], 3)
    response = client.post("/upload", data={"pasted": helpers.bundle_bytes(forged).decode(),
                                            "store": "1"})
    assert response.status_code == 303 and "/u/u-" in response.location
    ledger = ledger_app.extensions["fairdeal.ledger"]
    assert ledger.list_matches(10, 0) == []  # a forged file is never stored
    page = client.get(response.location).get_data(as_text=True)
    assert f"moves check failed at event {seq}" in page


def test_a_match_sealed_here_shows_this_servers_key(ledger_app: Any) -> None:
    ledger = ledger_app.extensions["fairdeal.ledger"]
    match_id = _play_some(ledger, 0)
    client = ledger_app.test_client()
    game = get_game("arcomage")
    bot = get_bots("arcomage")["greedy"]
    rng = random.Random(9)
    live = ledger.matches.get(match_id)
    for index in range(3_000):
        if ledger.bundle_bytes(match_id) is not None:
            break
        state = live.recorder.state
        seat = game.current_seat(state)
        ledger.play(match_id, _TOKENS[match_id][seat], game.action_to_json(bot.choose(state, rng)),
                    expected_seq=ledger.view(match_id, None)["next_seq"],
                    action_id=f"end-{index}")
    assert ledger.bundle_bytes(match_id) is not None, "the match never ended"
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert "✓ every check passed" in page and "this server's key" in page
    assert f"fairdeal verify --trusted-key {ledger.server_key.public_text} {match_id}.json" in page


def test_a_forfeited_match_has_a_page_that_says_who_forfeited(tmp_path: Path) -> None:
    """Seat B commits and never reveals: the match ends without a deal. Its page, the home list
    and an upload of its bundle all work and say what happened."""
    from fairdeal.ledger.service import Ledger
    from fairdeal.verifier.protocol import client_commitment

    now = [1_800_000_000_000]
    ledger = Ledger.open(tmp_path, clock=lambda: now[0])
    created = ledger.create_match("arcomage", {}, turn_limit_ms=5_000, seed_deadline_ms=10_000)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for seat, token in enumerate(tokens):
        ledger.add_seed(match_id, token, commitment=client_commitment(match_id, seat,
                                                                        f"{seat + 1:02x}" * 32))
    ledger.add_seed(match_id, tokens[0], "01" * 32)
    now[0] += 20_000
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False, "TESTING": True})
    client = app.test_client()
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert "committed but never revealed its seed: it forfeits" in page
    assert "seed not revealed" in page
    assert client.get("/").status_code == 200
    uploaded = client.post("/upload", data={"bundle": (__import__("io").BytesIO(
        ledger.bundle(match_id)), "forfeit.json")}, content_type="multipart/form-data")
    assert uploaded.status_code == 303
    assert client.get(uploaded.location).status_code == 200


def test_a_live_match_s_link_preview_is_the_spectator_board_now(ledger_app: Any) -> None:
    """og:image of a match in play: the public board as it stands, never a seat's hand."""
    from fairdeal.web.viewer.preview import render_png

    ledger = ledger_app.extensions["fairdeal.ledger"]
    match_id = _play_some(ledger, 3)
    client = ledger_app.test_client()
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert f'/m/{match_id}/step/' in page and 'property="og:image"' in page
    response = client.get(f"/m/{match_id}/step/0.png")
    assert response.status_code == 200 and response.mimetype == "image/png"
    assert response.get_data() == render_png(ledger.spectator_svg(match_id))
    assert response.headers["Cache-Control"] == "public, max-age=10"
