"""The troop and board data against the seed and the board facts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fairdeal.games import get_game
from fairdeal.games.toybattle import BOARD_BY_ID, BOARDS, GAME, TROOPS
from fairdeal.games.toybattle.troops import full_army
from fairdeal.verifier.canonical import check_canonical

FACTS = Path(__file__).parents[3] / "fixtures" / "games" / "toybattle" / "board-facts.md"

#: (medals to win, medals in all, blue HQs, red HQs) as the board facts state them
EXPECTED = {
    "castle-field": (7, 14, (1,), (41,)),
    "tropical-pool": (6, 12, (1, 2), (41, 42)),
    "city-of-clouds": (8, 16, (1,), (41,)),
    "volcanic-jungle": (7, 14, (1,), (41,)),
    "cursed-cemetery": (7, 14, (1,), (41,)),
    "caribbean-sea": (5, 11, (1, 2), (41,)),
    "station-metal-x": (7, 14, (1,), (41,)),
    "battlefield": (8, 16, (1,), (41,)),
}


def test_registry_finds_the_game() -> None:
    game = get_game("toybattle")
    assert game is GAME
    assert (game.name, game.title, game.rules_version) == ("toybattle", "Toy Battle", "toybattle/1")
    assert game.seat_names == ("blue", "red")


def test_eight_troop_kinds_three_each() -> None:
    assert [(t.id, t.strength) for t in TROOPS] == [
        ("kwak", None),
        ("skully", 1),
        ("capn", 2),
        ("jumbo", 3),
        ("hook", 4),
        ("xb42", 5),
        ("star", 6),
        ("roxy", 7),
    ]
    army = full_army()
    assert len(army) == 24
    assert all(army.count(t.id) == 3 for t in TROOPS)


def test_every_board_is_there_with_its_medals() -> None:
    assert [b.id for b in BOARDS] == list(EXPECTED)
    for board in BOARDS:
        to_win, total, blue, red = EXPECTED[board.id]
        assert board.medals_to_win == to_win, board.id
        assert board.medals_total == total, board.id
        assert board.hqs(0) == blue and board.hqs(1) == red, board.id


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.id)
def test_graph_is_undirected_and_well_formed(board) -> None:
    nodes = board.node_by_id
    for node in board.nodes:
        assert node.id not in node.neighbours
        assert len(set(node.neighbours)) == len(node.neighbours)
        for neighbour in node.neighbours:
            assert node.id in nodes[neighbour].neighbours, (board.id, node.id, neighbour)
        if node.hq is not None:
            assert node.id in ((1, 2) if node.hq == 0 else (41, 42))
            assert all(nodes[n].is_base for n in node.neighbours), "HQs touch only bases"
        else:
            assert 11 <= node.id <= 25
    # every base is reachable from both sides' HQs
    for seat in (0, 1):
        seen = set(board.hqs(seat))
        frontier = list(seen)
        while frontier:
            for n in nodes[frontier.pop()].neighbours:
                if n not in seen:
                    seen.add(n)
                    frontier.append(n)
        assert seen == set(nodes)


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.id)
def test_regions_are_made_of_existing_bases(board) -> None:
    for region in board.regions:
        assert region.medals >= 1
        assert len(set(region.bases)) == len(region.bases) >= 3
        assert all(board.node_by_id[base].is_base for base in region.bases)


def _parse_facts() -> dict[str, dict[str, object]]:
    """The board facts document parsed on its own, independently of the package's data."""
    kinds = {
        "C": "castle",
        "K": "clouds",
        "V": "volcano",
        "G": "cemetery",
        "M": "metal",
        "F": "battlefield",
    }
    limits = {"T12": [1, 2], "T345": [3, 4, 5], "T4567": [4, 5, 6, 7], "T67": [6, 7]}
    boards: dict[str, dict[str, object]] = {}
    for section in re.split(r"^## ", FACTS.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]:
        head, _, body = section.partition("\n")
        match = re.match(r"(.+?) — (\d+) medals win \((\d+) in all\)", head)
        if not match:
            continue
        graph_text, _, region_text = body.partition("Regions")
        nodes = {}
        for node_id, mark, neighbours in re.findall(r"(\d+)(?:\*(\w+))?:((?: \d+)+)", graph_text):
            nodes[int(node_id)] = {
                "neighbours": [int(n) for n in neighbours.split()],
                "special": None if not mark else "pool" if mark in limits else kinds[mark],
                "limit": limits.get(mark),
            }
        if "1 medal each" in region_text:
            regions = [
                ([int(b) for b in r.split()], 1) for r in re.findall(r"\[([\d ]+)\]", region_text)
            ]
        else:
            regions = [
                ([int(b) for b in r.split()], int(m))
                for r, m in re.findall(r"\[([\d ]+)\]=(\d+)", region_text)
            ]
        boards[match.group(1)] = {
            "to_win": int(match.group(2)),
            "total": int(match.group(3)),
            "nodes": nodes,
            "regions": regions,
        }
    return boards


def test_boards_match_the_board_facts_document_exactly() -> None:
    facts = _parse_facts()
    assert sorted(facts) == sorted(b.name for b in BOARDS)
    for board in BOARDS:
        fact = facts[board.name]
        assert board.medals_to_win == fact["to_win"]
        assert board.medals_total == fact["total"]
        ours = {
            node.id: {
                "neighbours": list(node.neighbours),
                "special": node.special,
                "limit": None if node.limit is None else list(node.limit),
            }
            for node in board.nodes
        }
        assert ours == fact["nodes"], board.name
        assert [(list(r.bases), r.medals) for r in board.regions] == fact["regions"]


def test_tropical_pool_limits_mark_the_hqs() -> None:
    pool = BOARD_BY_ID["tropical-pool"].node_by_id
    assert pool[2].limit == (6, 7) and pool[41].limit == (6, 7)
    assert pool[1].limit is None and pool[42].limit is None
    assert {n.id for n in pool.values() if n.limit == (3, 4, 5)} == {16, 18}


def test_rules_data_is_canonical_json_with_flat_tables() -> None:
    data = GAME.rules_data()
    check_canonical(data)
    assert set(data) == {"troops", "boards", "board_summary"}
    for record in data["troops"] + data["board_summary"]:
        assert all(not isinstance(v, (dict, list)) for v in record.values()), record
    assert [t["id"] for t in data["troops"]][:2] == ["kwak", "skully"]
    assert data["troops"][0]["strength"] is None
    castle = data["boards"][0]
    assert castle["id"] == "castle-field" and castle["medals_to_win"] == 7
    node_41 = next(n for n in castle["nodes"] if n["id"] == 41)
    assert node_41 == {
        "id": 41,
        "neighbours": [24, 25],
        "hq": "red",
        "special": None,
        "limit": None,
    }
    assert castle["regions"][0] == {"bases": [11, 12, 13, 14, 18], "medals": 3}
