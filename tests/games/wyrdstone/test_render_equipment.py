"""The board draws each mage's equipment (issue 21 #17): artifacts, skills, the rune belt with the
runes used so far named apart, and from wyrdstone/2 the tavern effects, each item's rules text in
the block's ``<title>``."""

from __future__ import annotations

import dataclasses
import random
import xml.etree.ElementTree as ET

from fairdeal.games.base import SimpleRng
from fairdeal.games.wyrdstone import VERSIONS
from fairdeal.games.wyrdstone.book import RUNE_BY_ID, TAVERN_BY_ID
from fairdeal.games.wyrdstone.state import WyrdState
from fairdeal.games.wyrdstone.text import tavern_facts

SVG = "{http://www.w3.org/2000/svg}"
V1, V2 = VERSIONS["wyrdstone/1"], VERSIONS["wyrdstone/2"]
PARAMS = {"A": {"artifacts": ["chalice-of-life", "crown-of-tides"], "skills": ["regeneration"],
                "runes": ["rune-of-fire", "rune-of-storms"],
                "tavern": ["gravediggers-gin", "hermits-tea"]},
          "B": {"tavern": ["storm-mead"]}}


def _blocks(drawing: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(seat, kind) -> (the words drawn, the hover text) of each equipment block."""
    root = ET.fromstring(drawing)
    blocks = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") != "equipment":
            continue
        for block in group.findall(f"{SVG}g"):
            kind = (block.get("class") or "").removeprefix("equipment-")
            words = " ".join("".join(text.itertext()) for text in block.findall(f"{SVG}text"))
            blocks[(group.get("data-seat") or "", kind)] = (words, block.findtext(f"{SVG}title")
                                                           or "")
    return blocks


def _setup(game: object, params: dict[str, object]) -> WyrdState:
    return game.setup(params, SimpleRng(random.Random(7)))  # type: ignore[attr-defined, no-any-return]


def test_each_mages_equipment_is_drawn_with_its_texts_on_hover() -> None:
    blocks = _blocks(V2.render_svg(_setup(V2, PARAMS), None))
    assert blocks[("A", "artifacts")][0] == "artifacts: Chalice of Life, Crown of Tides"
    assert blocks[("A", "skills")][0] == "skills: Regeneration"
    assert blocks[("A", "rune-belt")][0] == "rune belt: Rune of Fire, Rune of Storms"
    assert blocks[("A", "tavern")][0] == "tavern: Gravedigger's Gin, Hermit's Tea"
    assert blocks[("B", "tavern")][0] == "tavern: Storm Mead"
    # the defaults, for the mage that names none
    assert blocks[("B", "artifacts")][0] == "artifacts: Staff of Embers, Bone Charm"
    hover = blocks[("A", "tavern")][1]
    assert hover.startswith("Gravedigger's Gin: " + TAVERN_BY_ID["gravediggers-gin"].text)
    assert blocks[("A", "rune-belt")][1].startswith(
        "Rune of Fire: " + RUNE_BY_ID["rune-of-fire"].text)


def test_a_rune_used_from_the_belt_is_named_as_used() -> None:
    state = _setup(V2, PARAMS)
    state = dataclasses.replace(state, belts=(("rune-of-storms",), state.belts[1]))
    words = _blocks(V2.render_svg(state, None))[("A", "rune-belt")][0]
    assert words == "rune belt: Rune of Storms; used: Rune of Fire"
    emptied = dataclasses.replace(state, belts=((), state.belts[1]))
    words = _blocks(V2.render_svg(emptied, None))[("A", "rune-belt")][0]
    assert words == "rune belt: empty; used: Rune of Fire, Rune of Storms"


def test_wyrdstone_1_has_no_tavern_to_draw_or_list() -> None:
    params = {seat: {key: value for key, value in kit.items() if key != "tavern"}
              for seat, kit in PARAMS.items()}
    blocks = _blocks(V1.render_svg(_setup(V1, params), None))
    assert ("A", "artifacts") in blocks and ("A", "tavern") not in blocks
    assert tavern_facts(V1, params) == []


def test_the_tavern_facts_name_each_mages_effects_in_words() -> None:
    assert tavern_facts(V2, PARAMS) == [
        ("Tavern effects, mage A",
         f"Gravedigger's Gin ({TAVERN_BY_ID['gravediggers-gin'].text}); "
         f"Hermit's Tea ({TAVERN_BY_ID['hermits-tea'].text})"),
        ("Tavern effects, mage B", f"Storm Mead ({TAVERN_BY_ID['storm-mead'].text})"),
    ]
    assert tavern_facts(V2, {})[0] == ("Tavern effects, mage A", "none")
    # parameters that do not normalize give no facts, never an error
    assert tavern_facts(V2, {"A": {"tavern": ["no-such-drink"]}}) == []
