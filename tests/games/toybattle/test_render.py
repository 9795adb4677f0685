"""The SVG drawing: valid standalone XML, every node drawn, racks per perspective."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from fairdeal.games.toybattle import BOARDS, GAME
from fairdeal.games.toybattle.bots import play_match
from fairdeal.games.toybattle.render import board_svg, layout

SVG = "{http://www.w3.org/2000/svg}"
B, R = 0, 1


def texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    # a wrapped text is one <text> of <tspan> lines
    return [" ".join(el.itertext()) for el in root.iter()
            if el.tag in (f"{SVG}text", f"{SVG}title")]


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.id)
def test_every_board_draws_every_node_path_and_region(board) -> None:
    state, _ = play_match({"board": board.id}, ("greedy", "random"), random.Random(1))
    svg = GAME.render_svg(state)
    root = ET.fromstring(svg)
    titles = [el.text or "" for el in root.iter(f"{SVG}title")]
    assert sum(t.startswith("base ") for t in titles) == len(board.bases)
    assert sum(t.startswith(("blue HQ ", "red HQ ")) for t in titles) == \
        len(board.hqs(0)) + len(board.hqs(1))
    assert sum(t.startswith("region ") for t in titles) == len(board.regions)
    edges = sum(len(n.neighbours) for n in board.nodes) // 2
    assert len(list(root.iter(f"{SVG}line"))) == edges
    assert GAME.render_svg(state) == svg  # deterministic


def test_layout_puts_the_hqs_on_the_outer_rows() -> None:
    for board in BOARDS:
        grid = layout(board)
        rows = [row for _, row in grid.values()]
        assert {grid[hq][1] for hq in board.hqs(0)} == {min(rows)}
        assert {grid[hq][1] for hq in board.hqs(1)} == {max(rows)}
        assert len(set(grid.values())) == len(grid), "two nodes drawn on one spot"


def test_racks_follow_the_perspective(build) -> None:
    state = build(racks=(("hook", "capn"), ("star", "xb42")), stacks={11: [(B, "roxy")]})
    blue = " ".join(texts(board_svg(state, 0)))
    assert "Hook 4" in blue and "Star 6" not in blue and "2 troops (hidden)" in blue
    red = " ".join(texts(board_svg(state, 1)))
    assert "Star 6" in red and "Hook 4" not in red
    everything = " ".join(texts(GAME.render_svg(state)))
    assert "Hook 4" in everything and "Star 6" in everything and "set aside" in everything
    public = " ".join(texts(board_svg(state, None, spectator=True)))
    assert "Hook 4" not in public and "Star 6" not in public and "set aside" not in public


def test_captured_hq_and_taken_regions_are_marked(build, play) -> None:
    state = build(
        stacks={
            11: [(B, "kwak")],
            13: [(B, "kwak")],
            18: [(B, "kwak")],
            22: [(B, "kwak")],
            24: [(B, "kwak")],
        },
        racks=(("roxy",), ()),
        regions=[None, 0] + [None] * 6,
    )
    over = play(state, {"kind": "place", "troop": "roxy", "base": 41})
    found = " ".join(texts(GAME.render_svg(over)))
    assert "taken by blue's Roxy" in found and "blue wins (hq-captured)" in found
    assert "region [13, 15, 17]: 1 medal(s), taken by blue" in found
