"""Every game's drawing keeps its text whole and inside the frame: each card's, troop's and
scroll's full text is its ``<title>``, the card texts drawn are the whole text wrapped (no word
dropped), every line fits the drawing's width, and the drawing scales to the width it is given.
"""

from __future__ import annotations

import dataclasses
import html
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from fairdeal.games import GAME_NAMES, get_game
from fairdeal.games.svgtext import AVERAGE_ADVANCE

from .conftest import random_play_states

SVG = "{http://www.w3.org/2000/svg}"


def _states(name: str, count: int = 60) -> list[Any]:
    return random_play_states(name, count, seed=f"fit-{name}")


def _lines(text: ET.Element) -> list[tuple[float, str, float, str]]:
    """(x, anchor, font size, content) of each drawn line of a ``<text>``."""
    size = float(text.get("font-size", "12"))
    anchor = text.get("text-anchor", "start")
    spans = text.findall(f"{SVG}tspan")
    if not spans:
        return [(float(text.get("x", "0")), anchor, size, "".join(text.itertext()))]
    return [(float(span.get("x", "0")), anchor, size, span.text or "") for span in spans]


def _drawings(name: str) -> list[str]:
    game = get_game(name)
    return [game.render_svg(state, seat) for state in _states(name) for seat in (None, 0)]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_line_fits_the_width_and_the_drawing_scales(name: str) -> None:
    checked = 0
    for drawing in _drawings(name):
        root = ET.fromstring(drawing)
        width = float(root.get("viewBox", "0 0 0 0").split()[2])
        assert "max-width:100%" in root.get("style", "") and "height:auto" in root.get("style")
        for text in root.iter(f"{SVG}text"):
            for x, anchor, size, content in _lines(text):
                length = len(content) * size * AVERAGE_ADVANCE
                left = {"start": x, "middle": x - length / 2, "end": x - length}[anchor]
                assert left >= -1 and left + length <= width + 1, (name, content, x, size)
                checked += 1
    assert checked > 1000


def _joined(group: ET.Element) -> list[str]:
    """The texts of a card group's lines, each ``<text>`` joined into one string."""
    return [" ".join((span.text or "") for span in text.findall(f"{SVG}tspan"))
            for text in group.iter(f"{SVG}text")]


def test_arcomage_cards_show_their_whole_effect_and_title() -> None:
    from fairdeal.games.arcomage.cards import CARD_BY_ID, CARDS
    from fairdeal.games.arcomage.render import render_svg

    state = _states("arcomage", 1)[0]
    longest = sorted(CARDS, key=lambda card: len(card.effect))[-7:]
    # seven cards in a hand (a draw before a discard), the longest texts there are
    state = dataclasses.replace(state, hands=(tuple(card.id for card in longest),
                                              state.hands[1]),
                                last=(0, "play", longest[-1].id))
    root = ET.fromstring(render_svg(state))
    groups = [group for group in root.iter(f"{SVG}g") if group.get("class") == "card"]
    assert len(groups) == 7 + 6 + 1
    for group in groups:
        title = group.find(f"{SVG}title")
        assert title is not None and title.text
        name = title.text.split(" (")[0]
        card = next(card for card in CARD_BY_ID.values() if card.name == name)
        assert title.text.endswith(card.effect)
        assert card.effect in _joined(group), (card.name, _joined(group))
        # the whole effect inside the card's box
        box = group.find(f"{SVG}rect")
        assert box is not None
        bottom = float(box.get("y", "0")) + float(box.get("height", "0"))
        assert all(float(span.get("y", "0")) <= bottom
                   for span in group.iter(f"{SVG}tspan"))


def test_goblin_mob_is_no_longer_cut_mid_sentence() -> None:
    from fairdeal.games.arcomage.cards import CARDS
    from fairdeal.games.arcomage.render import render_svg

    goblins = next(card for card in CARDS if card.name == "Goblin Mob")
    state = dataclasses.replace(_states("arcomage", 1)[0], last=(0, "play", goblins.id))
    drawing = render_svg(state)
    words = re.sub(r"<[^>]+>", " ", drawing.split(f"<title>{goblins.name}")[1])
    assert " ".join(goblins.effect.split()) in " ".join(words.split())


def test_toy_battle_troops_and_wyrdstone_scrolls_carry_their_text() -> None:
    from fairdeal.games.toybattle.render import troop_text
    from fairdeal.games.wyrdstone.render import scroll_text

    toy = "\n".join(_drawings("toybattle"))
    assert '<g class="troop"><title>' in toy
    for troop in ("kwak", "hook"):
        if troop_text(troop) in toy:
            break
    else:
        raise AssertionError("no troop's full text in any drawing")
    wyrd = "\n".join(_drawings("wyrdstone"))
    titles = re.findall(r'<g class="scroll"><title>([^<]*)</title>', wyrd)
    assert titles and all(": " in title for title in titles)
    assert any(html.unescape(title) == scroll_text(scroll)
               for title in titles for scroll in ("fire-imp", "salamander", "fire-drake"))


def test_svgtext_examples() -> None:
    import doctest

    from ..sources import source_module

    failed, attempted = doctest.testmod(source_module("fairdeal.games.svgtext"))
    assert attempted > 0 and failed == 0
