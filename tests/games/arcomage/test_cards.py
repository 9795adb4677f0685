"""Every card's exact effect, played through the rules on a constructed state.

The constructed state (conftest.build_state) has seat A to act with
A: tower 20, wall 10, mines 3, monasteries 3, barracks 3, ore 30, mana 30, troops 30 and
B: tower 25, wall 12, mines 4, monasteries 2, barracks 4, ore 20, mana 20, troops 20,
on the Free Steppe (victory at tower 200 or 500 of a resource, so nothing here wins).
Each row gives changed start numbers and the card's effect as changes; the test adds the
cost payment and, when the turn passes, B's production, and compares all sixteen numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.games.arcomage import CARD_BY_ID, GAME, Action
from fairdeal.games.arcomage.state import ACT, DISCARD

Numbers = dict[str, int]
# (card id, A's changed start numbers, B's changed start numbers, the effect as changes)
Row = tuple[int, Numbers, Numbers, dict[str, int]]

# fmt: off
ROWS: list[Row] = [
    # --- red ---
    (1, {}, {}, {"A.ore": -8, "B.ore": -8}),
    (1, {}, {"ore": 3}, {"A.ore": -8, "B.ore": -3}),
    (2, {}, {}, {"A.mines": -1, "B.mines": -1}),
    (2, {"mines": 0}, {}, {"B.mines": -1}),
    (3, {}, {}, {"A.mines": -1, "A.wall": 10, "A.mana": 5}),
    (4, {}, {}, {"A.ore": 2, "A.mana": 2}),
    (5, {}, {}, {"A.wall": 1}),
    (6, {}, {}, {"A.wall": 1, "A.tower": 1, "A.troops": 2}),
    (7, {}, {}, {"A.mines": 1, "B.mines": 1, "A.mana": 4}),
    (8, {}, {}, {"A.wall": 3}),
    (9, {}, {}, {"A.wall": 5, "A.mana": -6}),
    (9, {"mana": 4}, {}, {"A.wall": 5, "A.mana": -4}),
    (10, {}, {}, {"A.wall": 4}),
    (11, {}, {}, {"A.wall": 3}),
    (11, {"wall": 0}, {}, {"A.wall": 5}),
    (12, {}, {}, {"A.mines": 1}),
    (13, {}, {}, {"A.mines": 2}),
    (13, {"mines": 4}, {}, {"A.mines": 1}),
    (13, {"mines": 5}, {}, {"A.mines": 1}),
    (14, {}, {}, {"B.mines": -1}),
    (14, {}, {"mines": 0}, {}),
    (15, {}, {}, {"A.mines": 1}),
    (15, {}, {"mines": 9}, {"A.mines": 6}),
    (15, {"mines": 6}, {}, {}),
    (16, {}, {}, {"A.wall": 6}),
    (17, {}, {}, {"A.barracks": -1, "A.tower": -2}),
    (17, {}, {"wall": 5}, {"B.barracks": -1, "B.tower": -2}),
    (17, {}, {"wall": 10}, {"A.barracks": -1, "A.tower": -2, "B.barracks": -1, "B.tower": -2}),
    (17, {"barracks": 0}, {}, {"A.tower": -2}),
    (18, {}, {}, {"A.mines": 2}),
    (19, {}, {}, {"A.wall": 4, "A.mines": 1}),
    (20, {}, {}, {"A.wall": 9, "A.troops": -5}),
    (21, {}, {}, {"A.wall": -5, "B.wall": -5}),
    (21, {"wall": 3}, {}, {"A.wall": -3, "B.wall": -5}),
    (22, {}, {}, {"A.wall": 8}),
    (23, {}, {}, {"A.monasteries": 1}),
    (24, {}, {}, {"A.wall": 5, "A.barracks": 1}),
    (25, {}, {}, {"A.wall": 7, "A.mana": 7}),
    (26, {}, {}, {"A.troops": 6, "A.wall": 6, "A.barracks": 1}),
    (26, {"barracks": 4}, {}, {"A.troops": 6, "A.wall": 6}),
    (27, {}, {}, {"A.wall": 6, "A.tower": 3}),
    (28, {}, {}, {"A.wall": 12}),
    (29, {}, {}, {"A.wall": 7, "B.wall": -6}),
    (29, {}, {"wall": 2}, {"A.wall": 7, "B.wall": -2, "B.tower": -4}),
    (30, {}, {}, {"A.wall": 8, "A.tower": 5}),
    (31, {}, {}, {"A.wall": 15}),
    (32, {}, {}, {"A.wall": 2, "B.wall": -2}),
    (33, {}, {}, {"A.wall": 6, "B.wall": -10}),
    (33, {}, {"wall": 4}, {"A.wall": 6, "B.wall": -4, "B.tower": -6}),
    (34, {}, {}, {"A.wall": 20, "A.tower": 8}),
    # --- blue ---
    (35, {}, {}, {"A.tower": 2}),
    (35, {"tower": 25}, {}, {"A.tower": 1}),
    (36, {}, {}, {"A.tower": 1, "B.tower": 1, "A.mana": 3}),
    (37, {}, {}, {"A.tower": 1}),
    (38, {}, {}, {"A.tower": 3}),
    (39, {}, {}, {"B.tower": -1}),
    (40, {}, {}, {}),
    (41, {}, {}, {"B.tower": -3}),
    (42, {}, {}, {"A.tower": -5, "A.monasteries": 2}),
    (43, {}, {}, {"A.tower": 5}),
    (44, {}, {}, {"A.monasteries": 1}),
    (45, {}, {}, {"A.tower": 2, "B.tower": -2}),
    (46, {}, {}, {"B.tower": -5}),
    (47, {}, {}, {"A.tower": 7, "A.ore": -10}),
    (48, {}, {}, {"A.tower": 4, "A.troops": -3, "B.tower": -2}),
    (49, {}, {}, {"A.tower": -7, "B.tower": -7, "A.monasteries": -1, "B.monasteries": -1}),
    (50, {}, {}, {"A.tower": 8}),
    (51, {}, {}, {"A.monasteries": 1, "A.tower": 3, "B.tower": 1}),
    (52, {}, {}, {"A.tower": 8}),
    (53, {}, {}, {"A.monasteries": 1, "A.tower": 3, "A.wall": 3}),
    (54, {}, {}, {"A.tower": 5, "B.ore": -6}),
    (55, {}, {}, {"B.monasteries": 1}),
    (55, {"monasteries": 1}, {"monasteries": 5}, {"A.monasteries": 4}),
    (56, {}, {}, {"A.monasteries": -1, "B.tower": -9}),
    (57, {}, {}, {"A.tower": 11, "A.wall": -6}),
    (57, {"wall": 4}, {}, {"A.tower": 11, "A.wall": -4}),
    (58, {}, {}, {"A.tower": 5, "A.monasteries": 1}),
    (59, {}, {}, {"A.tower": 11}),
    (60, {}, {}, {"B.tower": -8}),
    (60, {"tower": 12}, {}, {"A.wall": -8, "B.wall": -8}),
    (60, {"tower": 9, "wall": 3}, {}, {"A.wall": -3, "A.tower": -5, "B.wall": -8}),
    (61, {}, {}, {"A.tower": 8, "A.wall": 3}),
    (62, {}, {}, {"A.tower": 6, "B.tower": -4}),
    (63, {}, {}, {"A.tower": 8, "A.barracks": 1}),
    (64, {}, {}, {"A.tower": 10, "A.wall": 5, "A.troops": 5}),
    (65, {}, {}, {"A.tower": 15}),
    (66, {}, {}, {"A.tower": 12, "B.wall": -6}),
    (66, {}, {"wall": 1}, {"A.tower": 12, "B.wall": -1, "B.tower": -5}),
    (67, {}, {}, {"A.tower": 13, "A.troops": 6, "A.ore": 6}),
    (68, {}, {}, {"A.tower": 20}),
    # --- green ---
    (69, {}, {}, {"A.troops": -6, "B.troops": -6}),
    (70, {}, {}, {"A.barracks": 1, "B.barracks": 1, "A.troops": 3}),
    (71, {}, {}, {"B.wall": -4, "A.mana": -3}),
    (72, {}, {}, {"B.wall": -2}),
    (73, {}, {}, {"B.wall": -3, "A.mana": 1}),
    (74, {}, {}, {"B.wall": -2}),
    (74, {"wall": 13}, {}, {"B.wall": -3}),
    (74, {"wall": 12}, {}, {"B.wall": -2}),
    (75, {}, {}, {}),
    (76, {}, {}, {"B.wall": -6, "A.wall": -3}),
    (76, {"wall": 1}, {}, {"B.wall": -6, "A.wall": -1, "A.tower": -2}),
    (77, {}, {}, {"A.barracks": 1}),
    (78, {}, {}, {"B.wall": -5}),
    (79, {}, {}, {"B.wall": -8, "A.tower": -3}),
    (80, {}, {}, {"B.tower": -3, "A.wall": -1}),
    (80, {"wall": 0}, {}, {"B.tower": -3, "A.tower": -1}),
    (81, {}, {}, {"B.wall": -4, "A.wall": 3}),
    (82, {}, {}, {"B.wall": -6}),
    (83, {}, {}, {"B.wall": -6, "A.ore": -5, "A.mana": -5, "A.troops": -5,
                  "B.ore": -5, "B.mana": -5, "B.troops": -5}),
    (84, {}, {}, {"B.wall": -6, "B.troops": -3}),
    (85, {}, {}, {"B.tower": -4}),
    (86, {}, {}, {"B.wall": -7}),
    (87, {}, {}, {"B.tower": -2}),
    (88, {}, {}, {"A.barracks": 2}),
    (89, {}, {}, {"B.wall": -2, "A.wall": 4, "A.tower": 2}),
    (90, {}, {}, {"B.wall": -6}),
    (90, {}, {"wall": 0}, {"B.tower": -10}),
    (91, {}, {}, {"B.wall": -12}),
    (91, {"monasteries": 2}, {}, {"B.wall": -8}),
    (92, {}, {}, {"B.wall": -9}),
    (93, {}, {}, {"B.wall": -6}),
    (93, {"wall": 13}, {}, {"B.tower": -6}),
    (93, {"wall": 12}, {}, {"B.wall": -6}),
    (94, {}, {}, {"B.wall": -10}),
    (94, {}, {"wall": 11}, {"B.wall": -10}),
    (94, {}, {"wall": 10}, {"B.wall": -7}),
    (94, {}, {"wall": 5}, {"B.wall": -5, "B.tower": -2}),
    (95, {}, {}, {"B.wall": -8, "B.mines": -1}),
    (96, {}, {}, {"B.mana": -10, "B.ore": -5, "A.mana": 5, "A.ore": 3}),
    (96, {}, {"mana": 7, "ore": 0}, {"B.mana": -7, "A.mana": 4}),
    (96, {}, {"mana": 1, "ore": 2}, {"B.mana": -1, "B.ore": -2, "A.mana": 1, "A.ore": 1}),
    (97, {}, {}, {"B.wall": -12, "B.tower": -1, "A.mana": -3}),
    (98, {}, {}, {"B.tower": -5, "B.troops": -6}),
    (99, {}, {}, {"B.wall": -10, "A.wall": 4}),
    (100, {}, {}, {"B.wall": -10, "B.troops": -5, "B.barracks": -1}),
    (101, {}, {}, {"B.tower": -12}),
    (102, {}, {}, {"B.wall": -12, "B.tower": -8, "B.mana": -10, "B.barracks": -1}),
]
# fmt: on

PLAY_AGAIN = {4, 5, 21, 23, 37, 39, 40, 72, 75, 87}
DRAW_DISCARD = {40, 75}


def _numbers(state: Any) -> dict[str, int]:
    return {
        f"{seat}.{name}": value
        for index, seat in enumerate("AB")
        for name, value in state.player(index).items()
    }


def _row_id(row: Row) -> str:
    card_id, a, b, _ = row
    changed = ",".join(f"A.{k}={v}" for k, v in a.items()) + ",".join(
        f"B.{k}={v}" for k, v in b.items()
    )
    return f"{card_id}-{CARD_BY_ID[card_id].name}" + (f"[{changed}]" if changed else "")


def test_every_card_and_every_branch_has_a_row() -> None:
    assert {row[0] for row in ROWS} == set(CARD_BY_ID)
    conditional = {11, 13, 15, 17, 26, 35, 55, 60, 74, 90, 91, 93, 94, 96}
    for card_id in conditional:
        assert sum(row[0] == card_id for row in ROWS) >= 2, card_id


def test_play_again_flags() -> None:
    assert {c.id for c in CARD_BY_ID.values() if c.play_again} == PLAY_AGAIN
    assert {c.id for c in CARD_BY_ID.values() if c.draw_discard} == DRAW_DISCARD


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_card_effect(row: Row, make_state: Callable[..., Any], stream: Callable[..., Any]) -> None:
    card_id, a, b, effect = row
    card = CARD_BY_ID[card_id]
    before = make_state(a, b, hand_a=(card_id, 8, 10, 12, 38, 43))
    after = GAME.apply(before, Action("play", card_id), stream())

    expected = _numbers(before)
    expected[f"A.{card.resource}"] -= card.cost
    for key, change in effect.items():
        expected[key] += change
    assert min(expected.values()) >= 0, "a row must describe a reachable state"
    if card_id in PLAY_AGAIN:
        assert (after.turn, after.result) == (0, None)  # A acts again, no production
        if card_id in DRAW_DISCARD:
            assert after.phase == DISCARD
            assert after.hands[0] == (8, 10, 12, 38, 43, before.draw_pile[0])
        else:
            assert after.phase == ACT
            assert after.hands[0] == (8, 10, 12, 38, 43, before.draw_pile[0])
    else:
        assert (after.turn, after.phase, after.result) == (1, ACT, None)
        for producer, resource in (
            ("mines", "ore"),
            ("monasteries", "mana"),
            ("barracks", "troops"),
        ):
            expected[f"B.{resource}"] += expected[f"B.{producer}"]
    assert _numbers(after) == expected
    assert after.discard_pile == (card_id,)
