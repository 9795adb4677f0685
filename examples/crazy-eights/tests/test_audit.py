"""``fairdeal audit`` runs its card × position and opening-hand tests on the deck the plug-in
says was dealt: honest deals pass, and a server that keeps only the matches where seat A was
dealt the eight of hearts (each of them still verifies) fails both."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

Run = Callable[..., Result]


@pytest.fixture(scope="module")
def many(fairdeal: Run, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("many")
    fairdeal("simulate", "crazy-eights", "--bots", "greedy,greedy", "-n", "320", "--seed",
             "audit", "--out", str(out))
    return sorted(out.glob("*.json"))


def _line(report: str, test: str) -> str:
    return next(line for line in report.splitlines() if line.startswith(test))


def test_honest_deals_pass_the_card_by_position_test(fairdeal: Run, many: list[Path]) -> None:
    report = fairdeal("audit", *map(str, many[:60])).stdout
    # 52 cards by 5 bins (A's hand, B's hand, the rest in thirds): df (52 - 1) x (5 - 1)
    assert "(df 204)" in _line(report, "PASS  deal-position crazy-eights deck")
    assert _line(report, "PASS  deal-position crazy-eights deck").endswith("(60 deals)")
    assert _line(report, "PASS  deal-order crazy-eights deck")
    # opening-hand strength (the points of each seat's seven, from the plug-in's hand values)
    assert _line(report, "PASS  seat-hands crazy-eights").endswith("(60 deals)")


def test_a_server_that_deals_seat_a_the_eight_of_hearts_fails_it(fairdeal: Run,
                                                                  many: list[Path],
                                                                  tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()
    for path in many:
        opening = json.loads(fairdeal("replay", str(path), "--step", "0", "--json").stdout)
        if "8h" in opening["hands"][0]:
            shutil.copy(path, kept / path.name)
    chosen = sorted(kept.glob("*.json"))
    assert len(chosen) >= 38  # enough deals for the test to run (5 expected per cell)
    verified = fairdeal("verify", *map(str, chosen)).stdout.splitlines()
    # every file OK, and the summary line after them says so
    assert verified[-1] == f"{len(chosen)} files: {len(chosen)} OK, 0 FAIL"
    assert all(line.startswith("OK: ") for line in verified[:-1] if line.strip()
               and not line.startswith("  ") and not line.startswith("signed"))
    report = fairdeal("audit", *map(str, chosen), code=None)
    assert report.exit_code == 1, report.output
    assert _line(report.stdout, "FAIL  deal-position crazy-eights deck")
    # an eight is worth 50 points: seat A's opening hands are stronger than chance allows
    assert _line(report.stdout, "FAIL  seat-hands crazy-eights")
