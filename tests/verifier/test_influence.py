"""Who could have chosen a deal: a table of seating orders, each with the smallest groups of
parties that could have chosen the deal together and the line the report prints."""

from __future__ import annotations

import pytest

from fairdeal.verifier.influence import Contribution, SeatSeed, deal_influence, minimal_groups

REVEAL = 99  # the final reveal, where the server seed is shown


def two_step(commit: int, reveal: int, signed: bool = True) -> SeatSeed:
    return SeatSeed("commit-reveal", signed, commit, reveal)


def one_step(at: int, signed: bool = True) -> SeatSeed:
    return SeatSeed("one-step", signed, at, at)


CASES = [
    ("both commit first, signed", [two_step(1, 3), two_step(2, 4)], [["server", "A", "B"]],
     "fixed before any seat's entropy was known; seats A and B contributed signed seeds: fair "
     "unless both players and the server colluded"),
    ("B declined", [two_step(1, 3), SeatSeed("declined", True, 2)], [["server", "A"]],
     "seat B declined: the server and seat A could have chosen this deal"),
    ("B expired", [two_step(1, 3), SeatSeed("expired", False, 2)], [["server", "A"]],
     "seat B sent no seed in time: the server and seat A could have chosen this deal"),
    ("nobody signed", [two_step(1, 3, False), two_step(2, 4, False)], [["server"]],
     "seat A's seed is not signed; seat B's seed is not signed: the server could have chosen "
     "this deal"),
    ("B unsigned", [two_step(1, 3), two_step(2, 4, False)], [["server", "A"]],
     "seat B's seed is not signed: the server and seat A could have chosen this deal"),
    ("A shows its seed before B commits", [one_step(1), two_step(2, 3)], [["server", "B"]],
     "seat A showed its seed before every other seat had committed: the server and seat B "
     "could have chosen this deal"),
    ("A shows its seed after B committed", [one_step(2), two_step(1, 3)],
     [["server", "A", "B"]], None),
    ("A one step early, B declines", [one_step(1), SeatSeed("declined", True, 2)],
     [["server", "A"]], "seat B declined: the server and seat A could have chosen this deal"),
    ("both one step, unsigned", [one_step(1, False), one_step(2, False)], [["server"]], None),
]


@pytest.mark.parametrize("name, seats, groups, text", CASES, ids=[c[0] for c in CASES])
def test_who_could_have_chosen_the_deal(name: str, seats: list[SeatSeed],
                                        groups: list[list[str]], text: str | None) -> None:
    for seat in seats:
        seat.pinned = True
    influence = deal_influence("fairdeal/2", seats, ["A", "B"], reveal_seq=REVEAL)
    assert influence["colluders_needed"] == groups
    if text is not None:
        assert influence["text"] == text


def test_an_unpinned_signing_seat_is_said() -> None:
    influence = deal_influence("fairdeal/2", [two_step(1, 3), two_step(2, 4)], ["A", "B"],
                               reveal_seq=REVEAL)
    assert influence["text"].endswith("(keys of seats A and B not pinned: pin them with "
                                      "--seat-key to be sure they are the players')")


def test_version_1_and_forfeits() -> None:
    v1 = deal_influence("fairdeal/1", [one_step(1, False), one_step(2, False)], ["A", "B"],
                        reveal_seq=REVEAL)
    assert v1["text"] == ("version 1 bundle, client seeds unsigned: the server could have "
                          "chosen this deal")
    forfeit = deal_influence("fairdeal/2", [two_step(1, 3), SeatSeed("forfeited", True, 2)],
                             ["A", "B"], reveal_seq=REVEAL)
    assert forfeit["colluders_needed"] == []
    assert forfeit["text"].startswith("no deal was made: seat B committed")


def test_a_group_that_sees_everything_before_its_last_choice_can_choose() -> None:
    server = Contribution("server", 0, REVEAL, frozenset({"server"}))
    early = Contribution("A", 1, 1, frozenset({"A"}))
    late = Contribution("B", 2, 5, frozenset({"B"}))
    assert minimal_groups([server, early, late], ["server", "A", "B"]) == [
        frozenset({"server", "B"})]
    # nothing controlled by the group comes after the others are shown: it cannot choose
    assert minimal_groups([server, late], ["server", "B"]) == [frozenset({"server", "B"})]
