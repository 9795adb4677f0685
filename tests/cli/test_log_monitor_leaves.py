"""`fairdeal log monitor` reads every leaf (issue 18, break 4): against a real server over a
real SQLite ledger, the operator who re-deals a match under a used id, logs a seal without its
genesis, or keeps no bundle behind a seal gets an ALARM (exit 1, both leaf indices); a server
that lists other leaves than its tree holds too. The honest log beside each passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairdeal.ledger.tlog import append_leaf
from fairdeal.verifier.logleaf import seal_leaf

from ..redeal import forget_match, redeal
from . import test_log_cli
from .test_log_cli import run

servers = test_log_cli.servers  # the fixture: real servers over real SQLite ledgers


def test_the_monitor_alarms_for_a_match_id_dealt_twice(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    a.finished_match()
    state = tmp_path / "monitor.json"
    honest = run("log", "monitor", a.url, "--state", str(state))
    assert honest.exit_code == 0, honest.output
    assert "leaves 0 to 1 scanned: 1 match id created, 1 sealed, each once" in honest.output
    match_id, _ = redeal(a.ledger, a.engine)
    # the bundle alone cannot show it: its genesis and seal are both in the log
    bundle = tmp_path / "redealt.json"
    bundle.write_bytes(a.ledger.bundle(match_id))
    assert run("verify", str(bundle)).exit_code == 0
    caught = run("log", "monitor", a.url, "--state", str(state))
    assert caught.exit_code == 1, caught.output
    assert (f"ALARM: match {match_id!r} has a second genesis leaf 3; its first is leaf 2: the "
            "server dealt this match id twice") in caught.output
    assert (f"ALARM: seal leaf 4 of match {match_id!r} names genesis leaf 3, which is not the "
            "match's genesis (leaf 2)") in caught.output
    # the state was left as it was: the alarm rings again on the next run
    assert json.loads(state.read_text())["scan"]["size"] == 2
    again = run("log", "monitor", a.url, "--state", str(state))
    assert again.exit_code == 1 and "second genesis leaf 3" in again.output
    # a monitor that starts afresh sees it too
    fresh = run("log", "monitor", a.url, "--state", str(tmp_path / "fresh.json"))
    assert fresh.exit_code == 1 and "its first is leaf 2" in fresh.output


def test_the_monitor_alarms_for_a_seal_without_its_genesis(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    a.finished_match()
    state = tmp_path / "monitor.json"
    assert run("log", "monitor", a.url, "--state", str(state)).exit_code == 0
    # the operator logs a seal for a match the log never created
    with a.engine.begin() as conn:
        append_leaf(conn, "seal", "ghost", seal_leaf("ghost", 3, "ab" * 32, 0))
    caught = run("log", "monitor", a.url, "--state", str(state))
    assert caught.exit_code == 1, caught.output
    assert ("ALARM: seal leaf 2 of match 'ghost' closes no genesis leaf: the log holds no "
            "genesis of this match before it") in caught.output


def test_the_monitor_scans_only_the_new_leaves_page_by_page(servers: Any, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr("fairdeal.client.monitor.LEAF_PAGE", 2)
    a = servers("a")
    for _ in range(3):
        a.finished_match()
    state = tmp_path / "monitor.json"
    first = run("log", "monitor", a.url, "--state", str(state))
    assert first.exit_code == 0 and "leaves 0 to 5 scanned: 3 match ids" in first.output
    a.finished_match()
    a.ledger.create_match("arcomage", {}, turn_limit_ms=None)  # open: fine, it is counted
    second = run("log", "monitor", a.url, "--state", str(state))
    assert second.exit_code == 0, second.output
    assert "leaves 6 to 8 scanned: 5 match ids created, 4 sealed" in second.output
    assert "no new leaves to scan" in run("log", "monitor", a.url, "--state",
                                          str(state)).output


def test_the_monitor_checks_the_listed_leaves_are_the_tree(servers: Any,
                                                           tmp_path: Path) -> None:
    a = servers("a")
    a.finished_match()
    b = servers("b")  # the same key: its leaves are well-formed, but of another tree
    b.finished_match()
    a.lies["/api/v1/log/leaves"] = json.dumps(
        {"leaves": [{"index": index, "leaf": leaf.body.decode()}
                    for index, leaf in b.ledger.log.every_leaf()]}).encode()
    caught = run("log", "monitor", a.url, "--state", str(tmp_path / "m.json"))
    assert caught.exit_code == 1, caught.output
    assert "ALARM: the leaves the server lists are not the tree its checkpoint signs" \
        in caught.output
    # a list that is nothing but noise, however long, is cut to the page asked for
    a.lies["/api/v1/log/leaves"] = json.dumps(
        {"leaves": [{"index": 7, "leaf": "x"}] * 50_000}).encode()
    noise = run("log", "monitor", a.url, "--state", str(tmp_path / "m.json"))
    assert noise.exit_code == 1 and "has no leaf 0 where it should be" in noise.output
    a.lies["/api/v1/log/leaves"] = b'{"leaves": []}'
    empty = run("log", "monitor", a.url, "--state", str(tmp_path / "m.json"))
    assert empty.exit_code == 1
    assert "the server lists no leaf 0, though its checkpoint holds 2 leaves" in empty.output


def test_deep_checks_each_sealed_match_s_bundle(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    kept, other = a.finished_match(), a.finished_match()
    deep = run("log", "monitor", a.url, "--state", str(tmp_path / "deep.json"), "--deep")
    assert deep.exit_code == 0, deep.output
    assert "deep: 2 sealed match bundles checked against their leaves" in deep.output
    # the server answers for one match with the bundle of another
    a.lies[f"/api/v1/matches/{kept}/bundle"] = a.ledger.bundle(other)
    swapped = run("log", "monitor", a.url, "--state", str(tmp_path / "s.json"), "--deep")
    assert swapped.exit_code == 1, swapped.output
    assert (f"ALARM: seal leaf 1 of match {kept!r}: the bundle's genesis is not genesis leaf 0"
            in swapped.output)
    del a.lies[f"/api/v1/matches/{kept}/bundle"]
    # the operator forgets a sealed match: its leaves are fine, no bundle stands behind them
    forget_match(a.engine, kept)
    a.ledger.matches.forget(kept)
    shallow = run("log", "monitor", a.url, "--state", str(tmp_path / "shallow.json"))
    assert shallow.exit_code == 0, shallow.output
    gone = run("log", "monitor", a.url, "--state", str(tmp_path / "gone.json"), "--deep")
    assert gone.exit_code == 1, gone.output
    assert (f"ALARM: seal leaf 1 of match {kept!r}: the server gives no bundle of this match "
            "(HTTP 404)") in gone.output
