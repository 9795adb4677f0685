"""Live captions: one line per move, written by the server from public information only.

The proof that a caption leaks nothing hidden: it is the same for a state whose hidden parts
(both hands or racks, the reserves, the draw pile, the troops set aside) differ. A caption is
``describe_action`` in the state before the move, and the move's own action is public."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fairdeal.games import GAME_NAMES, get_game
from fairdeal.games.toybattle.actions import Draw, Skully, Star
from fairdeal.games.toybattle.troops import TROOP_BY_ID
from fairdeal.ledger.service import Ledger
from fairdeal.web.app import create_app

from .conftest import proved_secret

_DRAWS = (Draw, Skully, Star)


@pytest.mark.parametrize("name", proved_secret())  # the built-in games', and plug-ins' own
@pytest.mark.parametrize("seed", range(4))
def test_a_caption_is_the_same_whatever_is_hidden(ledger: Ledger, hidden: Any, name: str,
                                                  seed: int) -> None:
    game = get_game(name)
    expected: dict[int, str] = {}
    for match_id, _tokens, state in hidden.live_match(ledger, name, seed=seed):
        recorder = ledger.matches.get(match_id).recorder
        move_seq = recorder.next_seq
        # the move about to be played: the test learns it from the next stored event
        expected[move_seq] = state
    events = {event["seq"]: event for event in ledger.public_events(match_id)}
    captions = ledger.public_captions(match_id)
    assert captions, "no captions at all"
    first = next(iter(expected.values()))  # the comparison has teeth: the hidden parts differ
    assert game.state_to_json(hidden.other(name, first)) != game.state_to_json(first)
    for seq, state in expected.items():
        action = game.parse_action(events[seq]["action"])
        caption = game.describe_action(state, action)
        assert captions[seq] == caption
        assert caption == game.describe_action(hidden.other(name, state), action), seq
        if name == "toybattle" and isinstance(action, _DRAWS):
            # a draw says how many troops, never which (it names only the public troop
            # whose effect draws)
            words = caption.replace("uses Skully", "").replace("uses Star", "")
            assert not any(troop.name in words for troop in TROOP_BY_ID.values()), caption
    assert set(captions) == {seq for seq, event in events.items() if event["type"] == "move"}


def test_the_events_answer_carries_the_captions(ledger: Ledger) -> None:
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False, "TESTING": True})
    client = app.test_client()
    created = ledger.create_match("toybattle", {})
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(match_id, token, None)
    rng = random.Random(2)
    for index in range(6):
        view = ledger.spectator_view(match_id)
        seat = view["current_seat"]
        legal = ledger.seat_view(match_id, tokens[seat])["legal_actions"]
        ledger.play(match_id, tokens[seat], rng.choice(legal), expected_seq=view["next_seq"],
                    action_id=f"c{index}")
    answer = client.get(f"/api/v1/matches/{match_id}/events?after=3").get_json()
    moves = [event["seq"] for event in answer["events"] if event["type"] == "move"]
    assert sorted(int(seq) for seq in answer["captions"]) == moves
    assert answer["captions"] == {str(seq): text for seq, text
                                  in ledger.public_captions(match_id, after=3).items()}
    # the live page shows them in the event list instead of the raw action
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    first = answer["captions"][str(moves[0])]
    # a caption names the acting side first ("blue places …", "red's Skully draws …")
    assert first.startswith(("blue", "red")) and first in page.replace("&#39;", "'")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_s_captions_are_proved_public(ledger: Ledger, hidden: Any,
                                                 name: str) -> None:
    """Captions are served for every game, so every game needs a proof: either the test
    above changes its hidden parts (hidden.other knows how), or it hides nothing at all — its
    spectator view is the whole state all match long. A new game with hidden information and
    no proof fails here."""
    if name in hidden.proved:
        return
    game = get_game(name)
    played: list[str] = []
    for match_id, _tokens, state in hidden.live_match(ledger, name, seed=1):
        assert game.view(state, None) == game.state_to_json(state), (
            f"{name} hides information: add it to hidden.other and the test above")
        played.append(match_id)
    assert len(played) > 3 and ledger.public_captions(played[-1])
