"""Crazy Eights live on ``fairdeal serve``: a match played over the HTTP API keeps every hand
and the stock from the public (the spectator's view, the public events, the board) until the
seal; ``fairdeal play`` plays bot matches there; the viewer's match page, its link preview and
its animated replay draw the game."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from fairdeal_crazy_eights.cards import CARDS, card_name

from fairdeal.verifier import verify_bytes

FAIRDEAL = str(Path(sys.executable).parent / "fairdeal")


def _get(url: str, token: str | None = None) -> bytes:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
        data: bytes = r.read()
        return data


def _gif(url: str) -> bytes:
    """The GIF, as a client should fetch it: a 202 (still being drawn: a long match on a
    loaded machine takes longer than the 10 s a request waits) is retried after its
    Retry-After, for two minutes at most."""
    for _ in range(40):
        with urllib.request.urlopen(url, timeout=30) as r:
            if r.status != 202:
                data: bytes = r.read()
                return data
            time.sleep(int(r.headers["Retry-After"]))
    raise AssertionError(f"{url} was still being drawn after two minutes")


def _post(url: str, body: Any, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json",
               **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _public(api: str) -> tuple[str, str, str]:
    """What anyone may read of a match in play: its view, its events, its board."""
    return (_get(api).decode(), _get(f"{api}/events?after=-1").decode(),
            _get(f"{api}/board.svg").decode())


def _hands(api: str, tokens: list[str]) -> set[str]:
    """Every card in a hand now, read with each seat's own token."""
    cards: set[str] = set()
    for seat, token in enumerate(tokens):
        cards |= set(json.loads(_get(api, token))["state"]["hands"][seat])
    return cards


def _shown(state: dict[str, Any], events: dict[str, Any]) -> set[str]:
    """The cards the public has seen face up: the discard pile, the eights buried at the start
    (turned up for both), every card played (the stock, rebuilt from the discard pile, can deal
    them again)."""
    played = {event["action"]["card"] for event in events["events"]
              if event["type"] == "move" and "card" in event["action"]}
    return {*state["discard"], *state["buried"], *played}
def test_a_live_match_keeps_the_hands_and_the_stock_secret_until_the_seal(server: str) -> None:
    created = _post(f"{server}/api/v1/matches", {"game": "crazy-eights"})
    api = f"{server}/api/v1/matches/{created['id']}"
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        _post(f"{api}/seed", {"client_seed": None}, token)
    chooser, checked, shown = random.Random(8), 0, set[str]()
    while True:
        view_text, events_text, board = _public(api)
        match = json.loads(view_text)
        if match["status"] != "playing":
            break
        state = match["state"]
        assert isinstance(state["stock"], int) and all(isinstance(n, int) for n in state["hands"])
        assert '"server_seed"' not in events_text and '"reveal"' not in events_text
        shown |= _shown(state, json.loads(events_text))
        for card in _hands(api, tokens) - shown:
            assert f'"{card}"' not in view_text and f'"{card}"' not in events_text, card
            assert f">{card_name(card)}<" not in board, card
        checked += 1
        seat = match["current_seat"]
        mine = json.loads(_get(api, tokens[seat]))
        action = chooser.choice(mine["legal_actions"])
        _post(f"{api}/actions", {"action": action, "expected_seq": mine["next_seq"],
                                 "action_id": f"move-{checked}"}, tokens[seat])
    assert checked > 5
    bundle = _get(f"{api}/bundle")
    report = verify_bytes(bundle)
    assert report.ok, report.failure
    # after the seal the whole deal is public: the reveal names the server's seed
    assert '"server_seed"' in bundle.decode() and any(f'"{card}"' in bundle.decode()
                                                      for card in CARDS)


def test_play_runs_bot_matches_and_the_viewer_draws_them(server: str) -> None:
    played = subprocess.run([FAIRDEAL, "play", "--game", "crazy-eights", "-n", "2", "-c", "2",
                             "--seed", "8", "--server", server, "--no-progress"],
                            capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    assert "Traceback" not in played.stderr
    links = re.findall(r"/m/([0-9a-f]{16})", played.stdout)
    assert len(set(links)) == 2, played.stdout
    match_id = links[-1]
    page = _get(f"{server}/m/{match_id}").decode()
    assert "Crazy Eights" in page and "<svg" in page
    # the result, said in the plug-in's own words (reason_words / draw_words)
    assert any(words in page for words in ("played their last card", "held fewer points",
                                           "with the points level")), page
    preview = re.search(r'<meta property="og:image" content="([^"]+)"', page)
    assert preview is not None, "the match page names its link preview"
    image = preview.group(1).replace("&amp;", "&")
    png = _get(image if image.startswith("http") else f"{server}{image}")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    gif = _gif(f"{server}/m/{match_id}.gif")
    assert gif[:6] == b"GIF89a"
