"""The starter Book of Magic holds what rules-decisions.md asks of it, and is well formed."""

from __future__ import annotations

from collections import Counter

import pytest

from fairdeal.games.wyrdstone import GAME
from fairdeal.games.wyrdstone.book import (
    ARTIFACTS,
    ELEMENTS,
    NEUTRAL,
    RUNES,
    SCHOOLS,
    SCROLL_BY_ID,
    SCROLLS,
    SKILLS,
    default_deck,
)


def test_at_least_eight_scrolls_per_element_and_six_neutral() -> None:
    counts = Counter(scroll.element for scroll in SCROLLS)
    assert all(counts[element] >= 8 for element in ELEMENTS), counts
    assert counts[NEUTRAL] >= 6
    assert all(any(s.kind == kind for s in SCROLLS if s.element == element)
               for element in ELEMENTS for kind in ("creature", "spell"))


def test_at_least_four_runes_artifacts_and_skills() -> None:
    assert min(len(RUNES), len(ARTIFACTS), len(SKILLS)) >= 4


def test_neutral_scrolls_cost_several_elements_and_the_others_their_own() -> None:
    for scroll in SCROLLS:
        elements = [element for element, _ in scroll.cost]
        if scroll.element == NEUTRAL:
            assert len(elements) >= 2 and len(set(elements)) == len(elements), scroll.id
        else:
            assert elements == [scroll.element], scroll.id
        assert all(amount > 0 for _, amount in scroll.cost)


def test_the_named_creatures_and_every_kind_of_ability_are_there() -> None:
    assert SCROLL_BY_ID["keeper-of-heights"].keywords == ("first-strike",)
    assert SCROLL_BY_ID["werewolf"].wolf is not None
    items = [*SCROLLS, *RUNES, *ARTIFACTS, *SKILLS]
    ops = {ability.effect.op for item in items for ability in item.abilities}
    triggers = {ability.trigger for item in items for ability in item.abilities}
    whos = {ability.effect.who for item in items for ability in item.abilities}
    assert {"poison", "stun", "buff", "damage", "heal", "energy"} <= ops
    assert {"death", "ally-death", "any-death", "start", "hit", "summon", "cast"} <= triggers
    assert {"random-enemy", "random-enemy-creature"} <= whos


def test_creatures_have_stats_and_spells_none() -> None:
    for scroll in SCROLLS:
        if scroll.kind == "creature":
            assert scroll.attack >= 1 and scroll.health >= 1 and not scroll.target
        else:
            assert scroll.kind == "spell" and scroll.attack == scroll.health == 0
            assert scroll.abilities and all(a.trigger == "cast" for a in scroll.abilities)


@pytest.mark.parametrize("element", ELEMENTS)
def test_default_decks_are_legal(element: str) -> None:
    deck = default_deck(element)
    assert len(deck) == 30 and len(set(deck)) == 30
    assert Counter(SCROLL_BY_ID[s].element for s in deck)[element] == 8


@pytest.mark.parametrize("school", SCHOOLS)
def test_every_school_sets_up(school: str) -> None:
    from fairdeal.verifier.rng import RandomStream

    state = GAME.setup({"A": {"school": school}}, RandomStream(bytes(32), "setup"))
    assert sum(state.loadouts[0].element == e for e in ELEMENTS) == 1


def test_every_record_has_text_for_the_table() -> None:
    data = GAME.rules_data()
    for section in ("scrolls", "runes", "artifacts", "skills"):
        for record in data[section]:
            if section != "scrolls" or SCROLL_BY_ID[record["id"]].abilities:
                assert record["text"], record


def test_rules_data_and_default_params_are_canonical() -> None:
    from fairdeal.verifier.canonical import canonical_bytes

    canonical_bytes(GAME.rules_data())  # integers and strings only: the protocol can hash it
    canonical_bytes(GAME.default_params())


def test_the_rules_document_lists_the_book_as_implemented() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "rules" / "wyrdstone.md").read_text(
        encoding="utf-8")
    for s in SCROLLS:
        stats = f"{s.attack}/{s.health}" if s.kind == "creature" else "—"
        row = (f"| `{s.id}` | {s.name} | {s.element} | {s.kind} | {s.cost_text} | {stats} | "
               f"{s.text or '—'} |")
        assert row in text, s.id
    for item in (*RUNES, *ARTIFACTS, *SKILLS):
        assert f"| `{item.id}` | {item.name} | {item.text} |" in text, item.id
