"""Bad input never raises (docs/hardening.md): every field of every event of an honest
tournament replaced by each of a table of hostile values — and the log re-sealed with the real
server key, so the edit reaches the checks past the chain — gives a report that fails, naming
a check; so does every event dropped, duplicated or moved, and every byte flipped in the zip."""

from __future__ import annotations

import copy
import io
import json
import random
import zipfile
from types import ModuleType
from typing import Any

import pytest

from fairdeal.verifier.tournament import verify_tournament, verify_tournament_zip
from fairdeal.verifier.tournament.report import TOURNAMENT_CHECKS

HOSTILE: tuple[Any, ...] = (None, -1, 0, 2**63, True, "", "x" * 300, "0" * 16, [], {},
                            [None], {"kind": "penalty"})
NAMES = {name for name, _ in TOURNAMENT_CHECKS}


@pytest.fixture(scope="module")
def base(make: ModuleType) -> dict[str, Any]:
    return make.play(make.Plan("hostile", "round-robin", 4, withdrawal=(1, 2),
                               dispute=(1, 1, "result-changed")))


def _fails(make: ModuleType, export: dict[str, Any], what: str) -> None:
    report = verify_tournament(make._match_bytes(export["tournament"]), export["matches"],
                               trusted_key=make.SERVER_KEY.public_text)
    assert report.failure is not None and report.failure.check in NAMES, what


@pytest.fixture(scope="module")
def swiss(make: ModuleType) -> dict[str, Any]:
    """A Swiss, whose pairings (unlike a round-robin's) read the results: a hostile result
    reaches the pairing and the standings code."""
    return make.play(make.Plan("hostile-swiss", "swiss", 5, rounds=3, game="toybattle"))


@pytest.mark.parametrize("which", ["round-robin", "swiss"])
def test_every_field_of_every_event_made_hostile_fails_a_check(
        make: ModuleType, base: dict[str, Any], swiss: dict[str, Any], which: str) -> None:
    base = base if which == "round-robin" else swiss
    events = base["tournament"]["events"]
    for index, event in enumerate(events):
        for field in event:
            if field in ("seq", "prev"):
                continue
            for value in HOSTILE:
                if value == event[field]:
                    continue
                cheat = copy.deepcopy(base)
                cheat["tournament"]["events"][index][field] = value
                try:
                    make.reseal(cheat["tournament"])
                except (TypeError, ValueError, KeyError):
                    pass  # an edit the server's own tools cannot even hash: still fed in
                _fails(make, cheat, f"event {index} {field}={value!r}")


def test_every_event_dropped_repeated_or_moved_fails_a_check(make: ModuleType,
                                                             base: dict[str, Any]) -> None:
    count = len(base["tournament"]["events"])
    for index in range(1, count):
        for edit in ("drop", "repeat", "move"):
            cheat = copy.deepcopy(base)
            events = cheat["tournament"]["events"]
            if edit == "drop":
                del events[index]
            elif edit == "repeat":
                events.insert(index, copy.deepcopy(events[index]))
            else:
                events.insert(index - 2 if index > 2 else index + 1, events.pop(index))
            make.reseal(cheat["tournament"])
            _fails(make, cheat, f"event {index} {edit}")


def test_flipped_bytes_in_the_zip_never_raise(make: ModuleType, base: dict[str, Any]) -> None:
    data = make.zipped(base)
    shuffle = random.Random(22)
    for _ in range(300):
        mutant = bytearray(data)
        for _ in range(shuffle.randint(1, 4)):
            mutant[shuffle.randrange(len(mutant))] = shuffle.randrange(256)
        report = verify_tournament_zip(bytes(mutant))
        assert report.checks and (report.ok or report.failure is not None)


def test_a_match_file_made_hostile_fails_matches(make: ModuleType,
                                                 base: dict[str, Any]) -> None:
    first = sorted(base["matches"])[0]
    for content in (b"", b"[]", b"{}", json.dumps({"format": "fairdeal.bundle/1"}).encode(),
                    b"\xff\xfe", b"[" * 100_000):
        cheat = copy.deepcopy(base)
        cheat["matches"][first] = content
        report = verify_tournament(make._match_bytes(cheat["tournament"]), cheat["matches"])
        assert report.failure is not None and report.failure.check == "matches"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("tournament.json", make._match_bytes(base["tournament"]))
    report = verify_tournament_zip(buffer.getvalue())
    assert report.failure is not None and report.failure.check == "matches"
    assert "is not in the export" in report.failure.reason


def test_a_table_both_played_and_forfeited_fails_results(make: ModuleType,
                                                         base: dict[str, Any]) -> None:
    """A result re-written as a forfeit after the match's own result (a second result for
    the same match) is refused, whichever comes first."""
    for first in ("match", "forfeit"):
        cheat = copy.deepcopy(base)
        events = cheat["tournament"]["events"]
        # the last one: no player-signed event after it, whose signature binds the positions
        played = [e for e in events if e["type"] == "result" and e["outcome"] == "match"][-1]
        forfeit = {key: played[key] for key in ("seq", "prev", "type", "ts", "round", "table",
                                                "match_id")}
        forfeit.update(outcome="forfeit", winner=played["winner"] or "0" * 16)
        at = events.index(played)
        events.insert(at + 1 if first == "match" else at, forfeit)
        make.reseal(cheat["tournament"])
        report = verify_tournament(make._match_bytes(cheat["tournament"]), cheat["matches"])
        assert report.failure is not None and report.failure.check == "results", \
            report.failure
