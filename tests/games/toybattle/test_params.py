"""Match parameters: the board, by id or English name."""

from __future__ import annotations

import pytest

from fairdeal.games import InvalidParams
from fairdeal.games.toybattle import GAME


def test_default_is_castle_field() -> None:
    assert GAME.default_params() == {"board": "castle-field"}
    assert GAME.normalize_params({}) == {"board": "castle-field"}


@pytest.mark.parametrize(
    ("given", "board"),
    [
        ("tropical-pool", "tropical-pool"),
        ("Station Metal-X", "station-metal-x"),
        ("CITY OF CLOUDS", "city-of-clouds"),
        ("  battlefield ", "battlefield"),
    ],
)
def test_board_by_id_or_name(given: str, board: str) -> None:
    assert GAME.normalize_params({"board": given}) == {"board": board}


def test_unknown_key_is_named() -> None:
    with pytest.raises(InvalidParams, match="'deck'"):
        GAME.normalize_params({"board": "battlefield", "deck": "normal"})


@pytest.mark.parametrize("bad", ["moon-base", 3, None, ""])
def test_unknown_board_lists_the_allowed_values(bad: object) -> None:
    with pytest.raises(InvalidParams, match=r"'board' must be one of .*'castle-field'.*got"):
        GAME.normalize_params({"board": bad})
