"""The card and battlefield data: held against both seeds, and its JSON form for the CLI."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.games.arcomage import BATTLEFIELDS, CARD_BY_ID, CARDS, GAME
from fairdeal.games.arcomage.effects import Damage, Gain, GroundWater, If, Steal, Step
from fairdeal.verifier.canonical import canonical_bytes

ROOT = Path(__file__).resolve().parents[3]
EXTRACT_DIR = ROOT / "fixtures" / "games" / "arcomage"
#: the seeds' card and battlefield data, carried in the repository (its provenance:
#: seed_extract.py beside it); the seed documents themselves are not in a clone
EXTRACT = json.loads((EXTRACT_DIR / "seed-extract.json").read_text(encoding="utf-8"))
#: where the seed documents are, when they are at hand: FAIRDEAL_SEEDS, or the project's
#: shared folder beside the repository
SEEDS = Path(os.environ.get("FAIRDEAL_SEEDS") or ROOT.parent / "shared" / "seeds")


def _extractor() -> Any:
    spec = importlib.util.spec_from_file_location("seed_extract", EXTRACT_DIR / "seed_extract.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the battlefield table, typed in from the seeds: name, tower, wall, mines, monasteries,
# barracks, victory tower, victory resource
BATTLEFIELD_TABLE = [
    ("archmage-citadel", 20, 5, 2, 2, 2, 50, 150),
    ("crystal-garden", 20, 10, 3, 3, 3, 75, 200),
    ("seaside-fortress", 20, 10, 5, 5, 5, 150, 400),
    ("azure-valley", 20, 50, 1, 1, 5, 100, 300),
    ("misty-harbor", 50, 50, 5, 3, 5, 100, 300),
    ("square-of-winds", 20, 10, 3, 1, 2, 125, 350),
    ("free-steppe", 20, 10, 1, 1, 1, 200, 500),
    ("mirror-labyrinth", 30, 15, 4, 4, 4, 100, 300),
]


def _read_seed(
    language: str,
) -> tuple[list[tuple[str, list[int]]], list[tuple[str, str, int, str]]]:
    """The seed's battlefield rows (name, numbers) and cards (name, effect, cost, colour), from
    the extract the repository carries."""
    seed = EXTRACT[language]
    return ([(name, numbers) for name, numbers in seed["battlefields"]],
            [(name, effect, cost, colour) for name, effect, cost, colour in seed["cards"]])


def test_the_extract_is_the_seeds_own_text() -> None:
    """The extract equals what the seed documents print, when they are at hand. They are the
    rule texts the project was handed, not part of the repository; elsewhere the extract
    stands in for them, and this check says what it needs."""
    extractor = _extractor()
    missing = [name for name, _, _ in extractor.SEED_FILES.values() if not (SEEDS / name).exists()]
    if missing:
        pytest.skip("the seed documents (the Lithuanian and Slovak rule texts the project was "
                    f"handed: {', '.join(missing)}) are not at hand, so the repository's extract "
                    "of them (fixtures/games/arcomage/seed-extract.json) stands in; set "
                    "FAIRDEAL_SEEDS to their folder to check the extract against them")
    assert extractor.extract(SEEDS) == EXTRACT
    assert extractor.as_text(EXTRACT) == (EXTRACT_DIR / "seed-extract.json").read_text(
        encoding="utf-8")


def step_numbers(steps: tuple[Step, ...]) -> Iterator[int]:
    """The magnitudes a card's text prints, in order ("+6 wall, 10 damage" gives 6, 10); a
    comparison with zero ("if you have no wall") prints no number."""
    for step in steps:
        if isinstance(step, Gain):
            yield abs(step.amount)
        elif isinstance(step, Damage | Steal):
            yield step.amount
        elif isinstance(step, If):
            if step.condition.other_side is None and step.condition.other != 0:
                yield step.condition.other
            yield from step_numbers(step.then)
            yield from step_numbers(step.otherwise)
        elif isinstance(step, GroundWater):
            yield from (step.barracks, step.tower)


def _collapse(numbers: list[int]) -> list[int]:
    # "lose 5 ore, mana and troops" prints one 5 for three steps: compare runs, not repeats
    return [n for i, n in enumerate(numbers) if i == 0 or numbers[i - 1] != n]


@pytest.mark.parametrize("language", ["lt", "sk"])
def test_cards_match_the_seed(language: str) -> None:
    _, seed_cards = _read_seed(language)
    assert len(seed_cards) == len(CARDS) == 102
    again_phrase = EXTRACT[language]["play_again"]
    for card, (name, effect, cost, colour) in zip(CARDS, seed_cards, strict=True):
        assert card.seed_names[language] == name
        assert (card.cost, card.colour) == (cost, colour), card.name
        assert card.play_again == (again_phrase in effect), card.name
        printed = _collapse([int(n) for n in re.findall(r"\d+", effect)])
        assert _collapse(list(step_numbers(card.steps))) == printed, (card.name, effect)


@pytest.mark.parametrize("language", ["lt", "sk"])
def test_battlefields_match_the_seed(language: str) -> None:
    seed_fields, _ = _read_seed(language)
    assert len(seed_fields) == len(BATTLEFIELDS) == 8
    for field, (name, seed_numbers) in zip(BATTLEFIELDS, seed_fields, strict=True):
        assert field.seed_names[language] == name
        assert [
            field.tower,
            field.wall,
            field.mines,
            field.monasteries,
            field.barracks,
            field.victory_tower,
            field.victory_resource,
        ] == seed_numbers


def test_battlefield_table() -> None:
    assert [
        (
            f.id,
            f.tower,
            f.wall,
            f.mines,
            f.monasteries,
            f.barracks,
            f.victory_tower,
            f.victory_resource,
        )
        for f in BATTLEFIELDS
    ] == BATTLEFIELD_TABLE


def test_card_ids_colours_and_resources() -> None:
    assert [card.id for card in CARDS] == list(range(1, 103))
    assert all(CARD_BY_ID[card.id] is card for card in CARDS)
    for card in CARDS:
        colour = "red" if card.id <= 34 else "blue" if card.id <= 68 else "green"
        assert card.colour == colour
        assert card.resource == {"red": "ore", "blue": "mana", "green": "troops"}[colour]
    assert len({card.name for card in CARDS}) == 102


def test_rules_data_is_flat_and_canonical() -> None:
    data = GAME.rules_data()
    assert set(data) == {"cards", "battlefields", "deck_types"}
    assert data["deck_types"] == ["normal", "infinite"]
    assert [c["id"] for c in data["cards"]] == list(range(1, 103))
    assert set(data["cards"][0]) == {
        "id",
        "name",
        "name_lt",
        "name_sk",
        "colour",
        "cost",
        "resource",
        "effect",
        "play_again",
    }
    assert set(data["battlefields"][0]) == {
        "id",
        "name",
        "name_lt",
        "name_sk",
        "tower",
        "wall",
        "mines",
        "monasteries",
        "barracks",
        "victory_tower",
        "victory_resource",
    }
    for record in data["cards"] + data["battlefields"]:
        assert all(isinstance(value, str | int | bool) for value in record.values())
    assert data["cards"][59] == {
        "id": 60,
        "name": "Lightning Shard",
        "name_lt": "Žaibas",
        "name_sk": "Blesk",
        "colour": "blue",
        "cost": 11,
        "resource": "mana",
        "effect": "If your tower is higher than the enemy's wall, 8 damage to the enemy tower, "
        "otherwise 8 damage to all",
        "play_again": False,
    }
    canonical_bytes(data)  # integers and strings only: the protocol can hash it


def test_the_rules_document_lists_the_data_as_implemented() -> None:
    text = (Path(__file__).resolve().parents[3] / "docs" / "rules" / "arcomage.md").read_text(
        encoding="utf-8"
    )
    for c in CARDS:
        row = f"| {c.id} | {c.name} | {c.name_lt} | {c.name_sk} | {c.colour} | "
        assert f"{row}{c.cost} {c.resource} | {c.effect} |" in text, c.name
    for f in BATTLEFIELDS:
        assert (
            f"| `{f.id}` | {f.name} | {f.name_lt} | {f.name_sk} | {f.tower} | {f.wall} | "
            f"{f.mines} / {f.monasteries} / {f.barracks} | {f.victory_tower} | "
            f"{f.victory_resource} |"
        ) in text, f.name
