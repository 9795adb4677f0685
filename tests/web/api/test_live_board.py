"""The live board: the game's own drawing of a match in play, public information only for a
spectator, the seat's own perspective for a seat."""

from __future__ import annotations

from typing import Any

import pytest

from fairdeal.games import get_game
from fairdeal.games.arcomage.cards import CARD_BY_ID
from fairdeal.ledger.service import Ledger
from fairdeal.web.app import create_app


def _hand_only_names(full: dict[str, Any]) -> set[str]:
    """Names of the cards in hands or in the draw pile that show nowhere public, and are not
    part of a public card's name."""
    public_ids = set(full["deck"]["discard_pile"])
    if full.get("last") and full["last"].get("card") is not None:
        public_ids.add(full["last"]["card"])
    public_names = [CARD_BY_ID[card].name for card in public_ids]
    hidden_ids = set(full["deck"]["draw_pile"])
    for player in full["players"]:
        hidden_ids.update(player["hand"])
    return {CARD_BY_ID[card].name for card in hidden_ids - public_ids
            if not any(CARD_BY_ID[card].name in name for name in public_names)}


@pytest.mark.parametrize("name", ["arcomage", "toybattle"])
def test_the_spectator_board_shows_nothing_hidden(ledger: Ledger, hidden: Any,
                                                  name: str) -> None:
    game = get_game(name)
    drawn = 0
    for match_id, tokens, state in hidden.live_match(ledger, name, seed=3):
        seed = ledger.matches.get(match_id).row["server_seed"]
        board = ledger.spectator_svg(match_id)
        assert board is not None and board.startswith("<svg") and seed not in board
        # the same drawing for a state whose hands, reserves and draw pile differ
        assert board == game.render_svg(hidden.other(name, state), None, spectator=True)
        # and a seat's own board shows its own hidden troops or cards, not the other's
        for seat, token in enumerate(tokens):
            own = ledger.board_svg(match_id, token)
            assert own == game.render_svg(hidden.other(name, state, seat), seat)
        if name == "arcomage":
            for card_name in _hand_only_names(game.state_to_json(state)):
                assert card_name not in board, card_name
        if drawn == 0:  # the comparison has teeth: with everything shown, the change shows
            assert game.render_svg(state) != game.render_svg(hidden.other(name, state))
        drawn += 1
    assert drawn > 10


def test_the_board_over_http_and_on_the_live_page(ledger: Ledger) -> None:
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False, "TESTING": True})
    client = app.test_client()
    created = ledger.create_match("toybattle", {}, seats=["<i>cy</i>", "dee"])
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    early = client.get(f"/api/v1/matches/{match_id}/board.svg")
    assert early.status_code == 409 and early.get_json()["error"]["code"] == "no-board"
    for token in tokens:
        ledger.add_seed(match_id, token, None)
    board = client.get(f"/api/v1/matches/{match_id}/board.svg")
    assert board.status_code == 200 and board.mimetype == "image/svg+xml"
    assert board.data.decode() == ledger.spectator_svg(match_id)
    mine = client.get(f"/api/v1/matches/{match_id}/board.svg",
                      headers={"Authorization": f"Bearer {tokens[0]}"})
    assert mine.status_code == 200 and mine.data.decode() == ledger.board_svg(match_id, tokens[0])
    wrong = client.get(f"/api/v1/matches/{match_id}/board.svg",
                       headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    # the live page draws Toy Battle with the game's own drawing (it had none before)
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert ledger.spectator_svg(match_id) in page and 'id="board"' in page
    assert "&lt;i&gt;cy&lt;/i&gt;" in page and "<i>cy</i>" not in page
