"""The match parameters of a Wyrdstone duel: each mage's equipment, and the training flag.

``{"A": {...}, "B": {...}, "training": false}``, each seat with ``school`` (fire, water, air,
earth, death or neutral), ``patron`` (the Neutral school's elemental or lich, else null),
``deck`` (scroll ids), ``runes`` (the belt: up to 3, copies allowed, each used once),
``artifacts`` and ``skills`` (up to 2 different ones each) and, from wyrdstone/2, ``tavern``
(up to 2 different tavern effects; none by default). Everything has a default: a seat that
names only its school gets that school's default deck.

>>> from fairdeal.games.wyrdstone.versions import V1, V2
>>> normalize({"A": {"school": "death"}}, V2)["A"]["school"]
'death'
>>> normalize({}, V2)["B"]["tavern"], "tavern" in normalize({}, V1)["B"]
([], False)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..base import JSON, InvalidParams
from .book import (
    ARTIFACT_BY_ID,
    ELEMENTS,
    NEUTRAL,
    PATRONS,
    RUNE_BY_ID,
    SCHOOLS,
    SCROLL_BY_ID,
    SKILL_BY_ID,
    TAVERN_BY_ID,
    default_deck,
    school_element,
)
from .state import SEAT_NAMES, Loadout
from .versions import RuleSet

__all__ = ["DECK_MAX", "DECK_MIN", "ELEMENT_MAX", "ELEMENT_MIN", "default_params", "loadouts",
           "normalize"]

DECK_MIN, DECK_MAX = 30, 120
#: scrolls of each element a deck holds (neutral ones: 0 to ELEMENT_MAX, counted apart)
ELEMENT_MIN, ELEMENT_MAX = 4, 20
BELT_MAX, ARTIFACTS_MAX, SKILLS_MAX, TAVERN_MAX = 3, 2, 2, 2
_SEAT_KEYS = ("school", "patron", "deck", "runes", "artifacts", "skills")
_TAVERN_KEYS = (*_SEAT_KEYS, "tavern")
DEFAULT_SCHOOLS = ("fire", "earth")
DEFAULT_RUNES = ("rune-of-healing", "rune-of-storms", "rune-of-valour")
DEFAULT_ARTIFACTS = ("staff-of-embers", "bone-charm")
DEFAULT_SKILLS = ("meditation", "vengeance")


def _seat_defaults(school: str, patron: str | None, rules: RuleSet) -> dict[str, JSON]:
    seat: dict[str, JSON] = {
        "school": school,
        "patron": patron,
        "deck": default_deck(school_element(school, patron)),
        "runes": list(DEFAULT_RUNES),
        "artifacts": list(DEFAULT_ARTIFACTS),
        "skills": list(DEFAULT_SKILLS),
    }
    if rules.tavern:
        seat["tavern"] = []
    return seat


def default_params(rules: RuleSet) -> dict[str, JSON]:
    """A Fire mage (A) against an Earth mage (B), default decks and equipment, no training."""
    return {
        SEAT_NAMES[seat]: _seat_defaults(DEFAULT_SCHOOLS[seat], None, rules) for seat in (0, 1)
    } | {"training": False}


def _ids(value: Any, key: str, known: Mapping[str, Any], what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidParams(f"{key} must be a list of {what} ids, got {value!r}")
    unknown = [item for item in value if item not in known]
    if unknown:
        raise InvalidParams(f"{key} names no {what} of the book: {unknown!r}")
    return list(value)


def _deck(value: Any, key: str) -> list[str]:
    deck = _ids(value, key, SCROLL_BY_ID, "scroll")
    if not DECK_MIN <= len(deck) <= DECK_MAX:
        raise InvalidParams(f"{key} holds {len(deck)} scrolls: a deck holds {DECK_MIN} to "
                            f"{DECK_MAX}")
    counts = Counter(SCROLL_BY_ID[scroll].element for scroll in deck)
    for element in ELEMENTS:
        if not ELEMENT_MIN <= counts[element] <= ELEMENT_MAX:
            raise InvalidParams(f"{key} holds {counts[element]} {element} scrolls: each element "
                                f"needs {ELEMENT_MIN} to {ELEMENT_MAX}")
    if counts[NEUTRAL] > ELEMENT_MAX:
        raise InvalidParams(f"{key} holds {counts[NEUTRAL]} neutral scrolls: at most "
                            f"{ELEMENT_MAX}")
    return deck


def _seat(value: Any, name: str, default_school: str, rules: RuleSet) -> dict[str, JSON]:
    if not isinstance(value, Mapping):
        raise InvalidParams(f"{name} must be an object, got {value!r}")
    keys = _TAVERN_KEYS if rules.tavern else _SEAT_KEYS
    for key in value:
        if key not in keys:
            raise InvalidParams(f"unknown parameter {name}.{key}: a seat takes "
                                f"{', '.join(keys)} (under {rules.version})")
    school = value.get("school", default_school)
    # a list or an object is no school nor patron (and an object cannot be looked up)
    if not isinstance(school, str) or school not in SCHOOLS:
        raise InvalidParams(f"{name}.school {school!r} is not one of: {', '.join(SCHOOLS)}")
    patron = value.get("patron", "elemental" if school == NEUTRAL else None)
    if patron is not None and not isinstance(patron, str):
        raise InvalidParams(f"{name}.patron must be a name or null, got {patron!r}")
    if school == NEUTRAL and patron not in PATRONS:
        raise InvalidParams(f"{name}.patron {patron!r} is not one of: {', '.join(PATRONS)}")
    if school != NEUTRAL and patron is not None:
        raise InvalidParams(f"{name}.patron {patron!r}: only the neutral school has a patron")
    normal = _seat_defaults(school, patron, rules)
    runes = _ids(value.get("runes", normal["runes"]), f"{name}.runes", RUNE_BY_ID, "rune")
    if len(runes) > BELT_MAX:
        raise InvalidParams(f"{name}.runes holds {len(runes)} runes: a belt holds {BELT_MAX}")
    picked = {}
    lists = [("artifacts", ARTIFACT_BY_ID, ARTIFACTS_MAX, "artifact"),
             ("skills", SKILL_BY_ID, SKILLS_MAX, "skill")]
    if rules.tavern:
        lists.append(("tavern", TAVERN_BY_ID, TAVERN_MAX, "tavern effect"))
    for key, known, most, what in lists:
        items = _ids(value.get(key, normal[key]), f"{name}.{key}", known, what)
        if len(items) > most or len(set(items)) != len(items):
            raise InvalidParams(f"{name}.{key} must be up to {most} different ones, got {items!r}")
        picked[key] = items
    return {
        "school": school,
        "patron": patron,
        "deck": _deck(value.get("deck", normal["deck"]), f"{name}.deck"),
        "runes": runes,
        **picked,
    }


def normalize(params: Mapping[str, JSON], rules: RuleSet) -> dict[str, JSON]:
    """Fill in defaults and validate under ``rules``; raise InvalidParams naming the bad
    key."""
    if not isinstance(params, Mapping):
        raise InvalidParams(f"params must be an object, got {params!r}")
    for key in params:
        if key not in SEAT_NAMES and key != "training":
            raise InvalidParams(f"unknown parameter {key!r}: the Wyrdstone duel takes A, B and "
                                "training")
    training = params.get("training", False)
    if not isinstance(training, bool):
        raise InvalidParams(f"training must be true or false, got {training!r}")
    seats = {
        SEAT_NAMES[seat]: _seat(params.get(SEAT_NAMES[seat], {}), SEAT_NAMES[seat],
                                DEFAULT_SCHOOLS[seat], rules)
        for seat in (0, 1)
    }
    return seats | {"training": training}


def loadouts(normal: Mapping[str, JSON]) -> tuple[Loadout, Loadout]:
    """Both mages' equipment from normalized params."""
    pair = []
    for name in SEAT_NAMES:
        seat = normal[name]
        pair.append(Loadout(seat["school"], seat["patron"],
                            school_element(seat["school"], seat["patron"]), tuple(seat["deck"]),
                            tuple(seat["runes"]), tuple(seat["artifacts"]),
                            tuple(seat["skills"]), tuple(seat.get("tavern", ()))))
    return pair[0], pair[1]
