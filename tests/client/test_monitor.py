"""The log monitor and witness as a library (fairdeal.client.monitor, .witness, .logwatch),
called directly against real servers over real SQLite ledgers — no CLI in between: an honest
log passes and is remembered, a forked one (the same key, a second database) is an ALARM that
leaves the state file as it was, and the two observers' files compare as the log says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairdeal.client import (
    LogOptionError,
    LogServer,
    LogUsageError,
    LogWatchError,
    compare_files,
    load_witness_key,
    run_monitor,
    run_witness,
    witness_verifier_key,
)
from fairdeal.client.logwatch import read_state
from fairdeal.verifier.note import Note

from ..cli import test_log_cli

servers = test_log_cli.servers  # the fixture: real servers over real SQLite ledgers


def test_an_honest_log_passes_and_is_remembered(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    first = a.finished_match()
    bundle = tmp_path / "first.json"
    bundle.write_bytes(a.ledger.bundle(first))
    state = tmp_path / "monitor.json"
    said: list[str] = []
    warned: list[str] = []
    assert run_monitor(LogServer.at(a.url), state, bundles=[str(bundle)], say=said.append,
                       warn=warned.append)
    assert said[0].startswith("first checkpoint seen: ")
    assert said[1:] == ["leaves 0 to 1 scanned: 1 match id created, 1 sealed, each once",
                        f"OK: {bundle}: genesis leaf 0 and seal leaf 1 in size 2"]
    assert warned == [f"first use: trusting the log key {a.ledger.log.verifier_key.text()} "
                      "(pin it with --log-key)"]
    assert json.loads(state.read_text())["checkpoint"] == a.ledger.log.checkpoint()
    a.finished_match()
    said.clear()
    assert run_monitor(LogServer.at(a.url), state, say=said.append, warn=warned.append)
    assert said[0].startswith("consistent with the last checkpoint seen (size 2): ")
    assert len(warned) == 1  # the key is remembered now, not trusted again


def test_a_forked_log_is_an_alarm_and_the_state_is_kept(servers: Any, tmp_path: Path) -> None:
    a, b = servers("a"), servers("b")
    a.finished_match()
    b.finished_match()
    b.finished_match()
    state = tmp_path / "monitor.json"
    assert run_monitor(LogServer.at(a.url), state, say=lambda line: None,
                       warn=lambda line: None)
    before = state.read_text()
    with pytest.raises(LogWatchError, match="^ALARM: ") as alarm:
        run_monitor(LogServer.at(b.url), state, say=lambda line: None)
    assert a.ledger.log.checkpoint() in str(alarm.value)
    assert b.ledger.log.checkpoint() in str(alarm.value)
    assert state.read_text() == before


def test_a_witness_cosigns_and_the_views_compare(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    a.finished_match()
    key = load_witness_key(tmp_path / "w.pem")
    me = witness_verifier_key("witness.test/w1", key)
    assert me.text() == servers.witness_key.text()  # the key file the fixture made
    witnessed = tmp_path / "witness.json"
    warned: list[str] = []
    cosigned = run_witness(LogServer.at(a.url), key, me, witnessed, warn=warned.append)
    assert [sig.name for sig in Note.parse(cosigned).signatures] == [a.ledger.log.origin,
                                                                      "witness.test/w1"]
    assert warned[-1] == f"cosignature handed to {a.url}/api/v1"
    assert a.ledger.log.cosigned(a.ledger.log.checkpoint()) == cosigned
    monitored = tmp_path / "monitor.json"
    a.finished_match()
    assert run_monitor(LogServer.at(a.url), monitored, say=lambda line: None,
                       warn=lambda line: None)
    with pytest.raises(LogUsageError, match="pass --url"):
        compare_files(str(witnessed), str(monitored))
    line = compare_files(str(witnessed), str(monitored), url=a.url)
    assert line.startswith("consistent: ") and str(monitored) in line


def test_what_cannot_be_used_is_named() -> None:
    with pytest.raises(LogOptionError, match="not an http") as bad_url:
        LogServer.at("ftp://example.org")
    assert bad_url.value.option == "URL"


def test_a_state_file_that_is_not_one_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "monitor.json"
    assert read_state(state) == {}  # first use
    state.write_text('{"checkpoint": 3}')
    with pytest.raises(LogWatchError, match="is not a fairdeal log state file"):
        read_state(state)
    with pytest.raises(LogWatchError, match="the folder .* does not exist"):
        read_state(tmp_path / "nowhere" / "monitor.json")
