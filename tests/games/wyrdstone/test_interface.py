"""The Game interface: params, actions' JSON, views, state JSON, descriptions, the drawing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fairdeal.games.base import InvalidAction, InvalidParams, SimpleRng
from fairdeal.games.wyrdstone import GAME, VERSIONS
from fairdeal.games.wyrdstone.book import SCROLLS, default_deck
from fairdeal.games.wyrdstone.state import SKIP, Action
from fairdeal.verifier.rng import RandomStream


def test_identity() -> None:
    assert (GAME.name, GAME.title, GAME.rules_version, GAME.seat_names) == (
        "wyrdstone", "Wyrdstone mage duel", "wyrdstone/2", ("A", "B"))
    assert VERSIONS["wyrdstone/1"].rules_version == "wyrdstone/1"


# ---------------------------------------------------------------- params


def test_default_params_are_normal_and_complete() -> None:
    normal = GAME.default_params()
    assert GAME.normalize_params({}) == normal == GAME.normalize_params(normal)
    assert normal["training"] is False
    assert normal["A"]["school"] == "fire" and normal["B"]["school"] == "earth"
    assert len(normal["A"]["deck"]) == 30


def test_a_school_alone_brings_its_default_deck() -> None:
    normal = GAME.normalize_params({"B": {"school": "neutral", "patron": "lich"}})
    assert normal["B"]["deck"] == default_deck("death")
    assert GAME.normalize_params({"B": {"school": "neutral"}})["B"]["patron"] == "elemental"


def _deck(**counts: int) -> list[str]:
    deck: list[str] = []
    for element in ("fire", "water", "air", "earth", "death", "neutral"):
        ids = [scroll.id for scroll in SCROLLS if scroll.element == element]
        deck += [ids[n % len(ids)] for n in range(counts.get(element, 5))]
    return deck


def test_decks_count_copies_and_reach_120() -> None:
    big = _deck(fire=20, water=20, air=20, earth=20, death=20, neutral=20)
    assert len(big) == 120
    assert len(GAME.normalize_params({"A": {"deck": big}})["A"]["deck"]) == 120


@pytest.mark.parametrize(("params", "message"), [
    ([], "params must be an object"),
    ({"C": {}}, "unknown parameter 'C'"),
    ({"training": "yes"}, "training must be true or false"),
    ({"A": 3}, "^A must be an object"),
    ({"A": {"hat": 1}}, r"unknown parameter A\.hat"),
    ({"A": {"school": "light"}}, r"A\.school 'light'"),
    ({"A": {"school": "neutral", "patron": "dragon"}}, r"A\.patron 'dragon'"),
    ({"A": {"school": "fire", "patron": "lich"}}, r"A\.patron 'lich': only the neutral"),
    ({"B": {"deck": "all"}}, r"B\.deck must be a list of scroll ids"),
    ({"B": {"deck": ["fire-imp", "unicorn"]}},
     r"B\.deck names no scroll of the book: \[.unicorn.\]"),
    ({"B": {"deck": _deck()[:29]}}, r"B\.deck holds 29 scrolls: a deck holds 30 to 120"),
    ({"B": {"deck": _deck(fire=21, water=20, air=20, earth=20, death=20, neutral=20)}},
     r"B\.deck holds 121 scrolls"),
    ({"B": {"deck": _deck(fire=3, water=8)}}, r"B\.deck holds 3 fire scrolls"),
    ({"B": {"deck": _deck(fire=21)}}, r"B\.deck holds 21 fire scrolls"),
    ({"B": {"deck": _deck(neutral=21)}}, r"B\.deck holds 21 neutral scrolls: at most 20"),
    ({"A": {"runes": ["rune-of-fire"] * 4}}, r"A\.runes holds 4 runes"),
    ({"A": {"runes": ["rune-of-luck"]}}, r"A\.runes names no rune"),
    ({"A": {"artifacts": ["bone-charm", "bone-charm"]}}, r"A\.artifacts must be up to 2 different"),
    ({"A": {"skills": ["meditation", "vengeance", "necromancy"]}}, r"A\.skills must be up to 2"),
])
def test_bad_params_name_the_key(params: Any, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        GAME.normalize_params(params)


def test_neutral_scrolls_count_for_no_element() -> None:
    deck = _deck(neutral=0, fire=10)
    assert len(deck) == 30
    assert GAME.normalize_params({"A": {"deck": deck}})["A"]["deck"] == deck


def test_training_and_equipment_reach_the_state() -> None:
    params = {"training": True, "A": {"school": "water", "runes": ["rune-of-fire"],
                                      "artifacts": [], "skills": ["regeneration"]}}
    state = GAME.setup(params, RandomStream(bytes(32), "setup"))
    assert state.training and state.belts[0] == ("rune-of-fire",)
    assert state.loadouts[0].skills == ("regeneration",) and state.loadouts[0].element == "water"


# ---------------------------------------------------------------- actions


@pytest.mark.parametrize("data", [
    {"kind": "skip"},
    {"kind": "rune", "rune": "rune-of-fire"},
    {"kind": "cast", "scroll": "fire-imp", "slot": 2},
    {"kind": "cast", "scroll": "meteor", "slot": None},
])
def test_actions_round_trip(data: dict[str, Any]) -> None:
    action = GAME.parse_action(data)
    assert GAME.action_to_json(action) == data and GAME.parse_action(dict(data)) == action


@pytest.mark.parametrize("data", [
    "skip", {"kind": "play"}, {"kind": "skip", "rune": None},
    {"kind": "rune", "rune": "rune-of-luck"}, {"kind": "cast", "scroll": "unicorn", "slot": 1},
    {"kind": "cast", "scroll": "fire-imp", "slot": 6}, {"kind": "cast", "scroll": "fire-imp",
                                                        "slot": True},
    {"kind": "cast", "scroll": "fire-imp"},
])
def test_malformed_actions_are_quoted(data: Any) -> None:
    with pytest.raises(InvalidAction) as caught:
        GAME.parse_action(data)
    assert repr(data) in str(caught.value)
    with pytest.raises(InvalidAction):
        GAME.action_to_json(data)


def test_describe_action(kit: Any) -> None:
    state = kit.state({(1, 3): kit.creature("stone-golem")})
    assert GAME.describe_action(state, Action("cast", scroll="fireball", slot=3)) == (
        "A casts Fireball (4 Fire) on B's slot 3: choose an enemy creature; "
        "9 damage to the chosen creature")
    assert GAME.describe_action(state, Action("cast", scroll="fire-imp", slot=2)) == (
        "A summons Fire Imp (2 Fire), 2/6, into slot 2: when summoned: 2 damage to the enemy mage")
    assert GAME.describe_action(state, Action("rune", rune="rune-of-healing")) == (
        "A uses the Rune of Healing: heal your mage 6")
    assert GAME.describe_action(state, SKIP).startswith("A skips")


# ---------------------------------------------------------------- states, views, drawing


def _played(n: int = 40, key: bytes = bytes(32)) -> list[Any]:
    pick = random.Random(n)
    state = GAME.setup({}, RandomStream(key, "setup"))
    states = [state]
    for ply in range(n):
        if GAME.result(state) is not None:
            break
        state = GAME.apply(state, pick.choice(GAME.legal_actions(state)),
                           RandomStream(key, f"ply/{ply}"))
        states.append(state)
    return states


def test_states_round_trip_through_json() -> None:
    for state in _played():
        data = GAME.state_to_json(state)
        back = GAME.state_from_json(data)
        assert back == state and GAME.state_to_json(back) == data


@pytest.mark.parametrize("data", [[], {"mages": []}, {"mages": [{}, {}]}])
def test_malformed_states_are_refused(data: Any) -> None:
    with pytest.raises(ValueError, match="state|mages"):
        GAME.state_from_json(data)


@pytest.mark.parametrize(("path", "value", "message"), [
    (("mages", 0, "loadout", "deck"), ["unicorn"], "deck names nothing in the book"),
    (("mages", 1, "loadout", "skills"), ["flying"], "skills names nothing"),
    (("mages", 0, "health"), "50", "health must be an integer"),
    (("training",), 0, "training must be true or false"),
    (("seat",), 2, "seat must be 0 or 1"),
    (("mages", 0, "belt"), ["rune-of-luck"], "belt holds no rune"),
])
def test_a_state_with_a_bad_field_is_refused(path: tuple[Any, ...], value: Any,
                                              message: str) -> None:
    data = GAME.state_to_json(_played(6)[-1])
    node = data
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    with pytest.raises(ValueError, match=message):
        GAME.state_from_json(data)


def test_everything_is_public_so_every_view_is_the_whole_state() -> None:
    for state in _played(20):
        whole = GAME.state_to_json(state)
        assert GAME.view(state, 0) == GAME.view(state, 1) == GAME.view(state, None) == whole


def test_the_drawing_shows_the_duel(kit: Any) -> None:
    board = {(0, 2): kit.creature("venom-spider", poison=2, poison_turns=3, buff=2, buff_turns=1),
             (1, 4): kit.creature("werewolf", wolf=True, attack=6, stun=1)}
    state = kit.state(board, turn=47, health=(33, 30))
    state = GAME.apply(state, Action("cast", scroll="meteor", slot=None), kit.stream())
    svg = GAME.render_svg(state, None, spectator=True)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    for words in ("Venom Spider", "Werewolf (wolf)", "☠2×3", "✷", "health 33/50",
                  "Wrath of the Gods in 2 turns", "last scroll:", "A · Meteor", "Turn 48"):
        assert words in svg, words
    # nothing is hidden: every perspective draws the same picture, bar the caption
    for seat, caption in ((0, "A"), (1, "B"), (None, "everything")):
        drawn = GAME.render_svg(state, seat)
        assert drawn.replace(f"view: {caption}", "view: spectator") == svg


@pytest.mark.parametrize(("version", "sections"), [
    ("wyrdstone/1", {"scrolls", "runes", "artifacts", "skills", "schools"}),
    ("wyrdstone/2", {"scrolls", "runes", "artifacts", "skills", "schools", "tavern", "duel"}),
])
def test_rules_data_is_flat_records(version: str, sections: set[str]) -> None:
    data = VERSIONS[version].rules_data()
    assert set(data) == sections
    for records in data.values():
        assert records and all(isinstance(value, str | int) for record in records
                               for value in record.values())
    assert len({record["id"] for record in data["scrolls"]}) == len(data["scrolls"])


def test_simple_rng_setup_matches_interface() -> None:
    state = GAME.setup({}, SimpleRng(random.Random(3)))
    assert GAME.current_seat(state) == state.seat and GAME.result(state) is None
