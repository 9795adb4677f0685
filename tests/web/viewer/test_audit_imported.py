"""Break 5: outsiders cannot steer this server's audit. An honest server's ledger (a real SQLite
file) holds matches played here; an attacker imports 60 bundles through the real ``POST
/api/v1/bundles``, sealed under a key of their own, with server seeds ground so that mallory,
always at seat A, always moves first. Pooled with the honest matches (what the audit did before)
they turn ``first-mover`` and ``player-first`` to FAIL; ``/audit`` and ``fairdeal audit`` now count
only this server's key, list the import apart, and tally the attacker's key on its own only when
asked (``include_imported`` / ``--include-imported``).

Break 9 (audit part): ``/audit?player=`` runs on one bounded worker however many names are asked.
"""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fairdeal.audit import Filters, audit_bundles
from fairdeal.audit.report import build_report
from fairdeal.cli.main import cli
from fairdeal.ledger import creating
from fairdeal.web.app import create_app

from ...audit.conftest import SERVER_KEY as ATTACKER_KEY
from ...audit.conftest import resigned_bundles
from .test_audit_pages import _ready, app_over_copy, play_resigned

HONEST = 40
GROUND = 60


def _mallory_moves_first(bundle: dict[str, Any]) -> bool:
    # grinding: the attacker simulates deals under fresh server seeds and keeps those in which
    # seat A (mallory) is the seat to act first (the seat that resigns in these bundles)
    resign = next(event for event in bundle["events"] if event["type"] == "resign")
    return bool(resign["seat"] == 0)


@pytest.fixture(scope="module")
def attacked_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The honest server's real SQLite data dir after the attacker's import, made once per
    module: every test opens its own copy (``attacked``), so none sees another's writes."""
    folder = tmp_path_factory.mktemp("attacked")
    with pytest.MonkeyPatch.context() as patch:
        # the honest server's seeds from a fixed source: the honest figures are reproducible
        patch.setattr(creating.secrets, "token_bytes", random.Random(5).randbytes)
        app = create_app({"FAIRDEAL_DATA_DIR": str(folder), "FAIRDEAL_SWEEPER": False,
                          "TESTING": True})
        ledger = app.extensions["fairdeal.ledger"]
        for index in range(HONEST):  # mallory and ann, each at seat A half the time
            play_resigned(ledger, *(("mallory", "ann") if index % 2 else ("ann", "mallory")))
        client = app.test_client()
        ground = resigned_bundles("arcomage", GROUND, seed=77, players=("mallory", "ann"),
                                  keep=_mallory_moves_first)
        for index, (_, data) in enumerate(ground):
            # from a few addresses: the import's rate limit is per address, not a defence here
            answer = client.post("/api/v1/bundles", data=data,
                                 headers={"Content-Type": "application/json"},
                                 environ_base={"REMOTE_ADDR": f"203.0.113.{index % 3}"})
            assert answer.status_code == 201, answer.get_data(as_text=True)
            assert answer.get_json()["signed_by"]["this_server"] is False
        # every connection closed: the file is whole (WAL checkpointed) before it is copied
        ledger.store.engine.dispose()
    return folder


@pytest.fixture()
def attacked(attacked_dir: Path, tmp_path: Path) -> Any:
    """The honest server's app over its own copy of that data dir (in ``tmp_path``)."""
    return app_over_copy(attacked_dir, tmp_path)


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {test["name"]: test["verdict"] for test in report["tests"]}


def test_the_import_would_flip_the_pooled_audit(attacked: Any) -> None:
    """What the audit did before: every sealed bundle pooled, whatever key sealed it."""
    ledger = attacked.extensions["fairdeal.ledger"]
    pooled = build_report(audit_bundles(ledger.sealed_bundles())).to_json()
    assert pooled["matches"] == HONEST + GROUND
    assert _verdicts(pooled)["first-mover arcomage"] == "FAIL"
    assert _verdicts(pooled)["player-first"] == "FAIL"
    honest = build_report(audit_bundles(
        ledger.sealed_bundles(), Filters(signers=frozenset({ledger.server_key.public_text}))))
    assert honest.tally.matches == HONEST
    assert _verdicts(honest.to_json())["first-mover arcomage"] == "PASS"


def test_the_ledger_audit_counts_only_this_servers_key(attacked: Any, tmp_path: Path) -> None:
    ledger = attacked.extensions["fairdeal.ledger"]
    own = ledger.server_key.public_text
    result = CliRunner().invoke(cli, ["--data-dir", str(tmp_path), "audit"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"Audited: matches sealed by this server, key {own} (key id ")
    assert lines[1].startswith(f"{HONEST} verified matches audited")
    assert not any(line.startswith("FAIL") for line in lines)
    assert (f"Not counted above: {GROUND} bundles sealed under other keys (anyone can seal a "
            "bundle under a key of their own), by key:") in lines
    assert (f"  key {ATTACKER_KEY.key_id}  {ATTACKER_KEY.public_text}: {GROUND} bundles"
            in lines)
    assert "  add --include-imported to audit each of these keys on its own" in lines


def test_include_imported_tallies_the_attackers_key_on_its_own(attacked: Any,
                                                               tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--data-dir", str(tmp_path), "audit", "--json",
                                      "--include-imported"], catch_exceptions=False)
    report = json.loads(result.output)
    assert report["matches"] == HONEST
    assert _verdicts(report)["first-mover arcomage"] == "PASS"
    assert _verdicts(report)["player-first"] == "PASS"
    (theirs,) = report["by_key"]
    assert theirs["audited"] == (f"Audited: matches sealed by key {ATTACKER_KEY.public_text} "
                                 f"(key id {ATTACKER_KEY.key_id}) (imported: not this server's "
                                 "key; tallied on its own).")
    assert theirs["matches"] == GROUND
    # the attacker's own matches, on their own, show what they are: mallory always first
    assert _verdicts(theirs)["first-mover arcomage"] == "FAIL"
    assert result.exit_code == 1  # a failing test in any report printed


def test_the_audit_page_counts_only_this_servers_key(attacked: Any) -> None:
    ledger = attacked.extensions["fairdeal.ledger"]
    client = attacked.test_client()
    page = _ready(client, "/audit")
    first = page.index('<p class="audited">')
    assert page[first:].startswith(
        f'<p class="audited"><b>Audited: matches sealed by this server, key '
        f"{ledger.server_key.public_text} (key id {ledger.server_key.key_id}).</b></p>")
    assert f"{HONEST} verified matches audited; " in page and ", 0 failed" in page
    assert '<tr class="fail">' not in page
    assert f"key <code>{ATTACKER_KEY.public_text}</code>: {GROUND} bundles" in page
    with_imported = _ready(client, "/audit?include_imported=1")
    assert f"{HONEST} verified matches audited; " in with_imported
    assert (f"Audited: matches sealed by key {ATTACKER_KEY.public_text} (key id "
            f"{ATTACKER_KEY.key_id}) (imported: not this server&#x27;s key; tallied on its own)"
            in with_imported)
    theirs = with_imported[with_imported.index("(imported: not this server"):]
    assert f"{GROUND} verified matches audited" in theirs and '<tr class="fail">' in theirs
    bad = client.get("/audit?include_imported=maybe")
    assert bad.status_code == 400 and "include_imported must be 1 or 0" in bad.get_data(
        as_text=True)


def test_fairdeal_audit_files_reports_keys_not_trusted_apart(attacked: Any,
                                                             tmp_path: Path) -> None:
    ledger = attacked.extensions["fairdeal.ledger"]
    own = ledger.server_key.public_text
    folder = tmp_path / "bundles"
    folder.mkdir()
    for match_id, data in ledger.sealed_bundles():
        (folder / f"{match_id}.json").write_bytes(data)
    run = CliRunner()
    pinned = run.invoke(cli, ["audit", str(folder), "--trusted-key", own],
                        catch_exceptions=False)
    assert pinned.exit_code == 0, pinned.output
    lines = pinned.output.splitlines()
    assert lines[0] == (f"Audited: matches sealed by key {own} (key id "
                        f"{ledger.server_key.key_id}) (trusted).")
    assert lines[1].startswith(f"{HONEST} verified matches audited")
    assert f"  key {ATTACKER_KEY.key_id}  {ATTACKER_KEY.public_text}: {GROUND} bundles" in lines
    # without a pin, no key is trusted: each signer's bundles are audited on their own
    unpinned = run.invoke(cli, ["audit", str(folder), "--json"], catch_exceptions=False)
    report = json.loads(unpinned.output)
    assert report["audited"].startswith("Audited: bundles sealed by 2 different keys, none "
                                        "pinned with --trusted-key")
    assert report["matches"] == 0
    by_key = {entry["audited"].split()[5]: entry for entry in report["by_key"]}
    assert by_key[own]["matches"] == HONEST
    assert by_key[ATTACKER_KEY.public_text]["matches"] == GROUND
    assert _verdicts(by_key[own])["first-mover arcomage"] == "PASS"
    bad = run.invoke(cli, ["audit", str(folder), "--trusted-key", "ed25519:xyz"])
    assert bad.exit_code == 2 and "--trusted-key" in bad.output


def test_many_names_at_once_run_on_one_worker(attacked: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Break 9: a thread per name, each reading every bundle, had no limit."""
    from fairdeal.web.viewer import audit as audit_pages

    names = [f"p{index}" for index in range(20)]
    ledger = attacked.extensions["fairdeal.ledger"]
    for index in range(0, len(names), 2):
        play_resigned(ledger, names[index], names[index + 1])
    hold = threading.Event()
    lock = threading.Lock()
    running = [0, 0]  # now, most at once
    real = audit_pages._audit_html

    def held(*args: Any) -> str:
        with lock:
            running[0] += 1
            running[1] = max(running)
        hold.wait(10)
        with lock:
            running[0] -= 1
        return real(*args)

    monkeypatch.setattr(audit_pages, "_audit_html", held)
    monkeypatch.setattr(audit_pages, "FIRST_WAIT_S", 0.2)
    before = {thread.ident for thread in threading.enumerate()}
    answers: list[int] = []

    def ask(name: str) -> None:
        answers.append(attacked.test_client().get(f"/audit?player={name}").status_code)

    askers = [threading.Thread(target=ask, args=(name,)) for name in names]
    try:
        for asker in askers:
            asker.start()
        for asker in askers:
            asker.join()
        workers = [thread for thread in threading.enumerate()
                   if thread.name == "fairdeal-audit" and thread.ident not in before]
        assert len(workers) == 1
        assert running[1] == 1
        # one computing, QUEUE_LIMIT waiting: every other name is told to come back later
        assert sorted(answers) == [202] * (1 + audit_pages.QUEUE_LIMIT) + [503] * (
            len(names) - 1 - audit_pages.QUEUE_LIMIT)
    finally:
        hold.set()
    cache = attacked.extensions["fairdeal.audit"]
    assert cache.workers_started == 1
    for _ in range(600):
        if cache.computed == 1 + audit_pages.QUEUE_LIMIT:
            break
        time.sleep(0.05)
    # repeated requests for one name share one computation
    monkeypatch.setattr(audit_pages, "_audit_html", real)
    computed = cache.computed
    askers = [threading.Thread(target=ask, args=("mallory",)) for _ in range(10)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    _ready(attacked.test_client(), "/audit?player=mallory")
    assert cache.computed == computed + 1
    assert cache.workers_started == 1


def test_a_full_queue_answers_503_with_retry_after(attacked: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from fairdeal.web.viewer import audit as audit_pages

    hold, running = threading.Event(), threading.Event()
    real = audit_pages._audit_html

    def held(*args: Any) -> str:
        running.set()
        hold.wait(10)
        return real(*args)

    monkeypatch.setattr(audit_pages, "_audit_html", held)
    monkeypatch.setattr(audit_pages, "FIRST_WAIT_S", 0.05)
    play_resigned(attacked.extensions["fairdeal.ledger"], "cy", "dee")
    client = attacked.test_client()
    try:
        assert client.get("/audit?player=mallory").status_code == 202
        assert running.wait(10)  # the worker holds that one; QUEUE_LIMIT (4) more may wait
        queued = [client.get(f"/audit?player={name}&include_imported={flag}").status_code
                  for name, flag in (("mallory", 1), ("ann", 0), ("ann", 1), ("cy", 0))]
        assert queued == [202, 202, 202, 202]
        # a name already queued shares that computation: not refused, not queued twice
        assert client.get("/audit?player=ann").status_code == 202
        busy = client.get("/audit?player=cy&include_imported=1")
        assert busy.status_code == 503
        assert busy.headers["Retry-After"] == str(audit_pages.RETRY_AFTER_S)
        assert "Other audits are being computed" in busy.get_data(as_text=True)
        # the whole ledger's audit is always let in, at the front of the queue
        assert client.get("/audit").status_code == 202
        assert attacked.extensions["fairdeal.audit"].workers_started == 1
    finally:
        hold.set()
        cache = attacked.extensions["fairdeal.audit"]
        for _ in range(600):  # let the worker drain the queue before the data dir goes
            if cache.computed >= 6:
                break
            time.sleep(0.05)


def test_a_name_no_match_has_is_answered_at_once(attacked: Any) -> None:
    ledger = attacked.extensions["fairdeal.ledger"]
    read = []
    real = ledger.sealed_bundles
    ledger.sealed_bundles = lambda *args: read.append(1) or real(*args)
    started = time.monotonic()
    answer = attacked.test_client().get("/audit?player=nobody%25")
    assert time.monotonic() - started < 1.0
    assert answer.status_code == 404
    assert "No match in this ledger has a player named nobody% at a seat" in answer.get_data(
        as_text=True)
    assert read == []
    assert attacked.extensions["fairdeal.audit"].workers_started == 0
