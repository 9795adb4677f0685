"""`fairdeal log monitor`, `fairdeal log witness` and `fairdeal verify --checkpoint` against
real servers (the app over real SQLite ledgers, served on loopback). A server that forks its
log — the same key and origin, a second database — is caught with exit 1 and both checkpoints
named."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from werkzeug.serving import make_server

from fairdeal.cli.main import cli
from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.note import ED25519, Note, VerifierKey
from fairdeal.web.app import create_app

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / "honest"


class Served:
    """A ledger and its app on a loopback port; ``lies`` maps an API path to the body a
    hostile server answers there instead."""

    def __init__(self, folder: Path, key_dir: Path, witnesses: list[VerifierKey]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.engine = open_engine(f"sqlite:///{folder / 'ledger.db'}")
        self.ledger = Ledger(EventStore(self.engine), load_or_create_server_key(key_dir),
                             log_witnesses=witnesses)
        app = create_app({"FAIRDEAL_LEDGER": self.ledger, "FAIRDEAL_SWEEPER": False})
        self.lies: dict[str, bytes] = {}

        def serve(environ: dict[str, Any], start_response: Any) -> Any:
            lie = self.lies.get(environ["PATH_INFO"])
            if lie is None:
                return app(environ, start_response)
            start_response("200 OK", [("Content-Type", "application/json")])
            return [lie]

        self.server = make_server("127.0.0.1", 0, serve, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def finished_match(self) -> str:
        created = self.ledger.create_match("arcomage", {}, turn_limit_ms=None)
        tokens = [seat["token"] for seat in created["seats"]]
        for token in tokens:
            self.ledger.add_seed(created["id"], token, None)
        self.ledger.resign(created["id"], tokens[0])
        return str(created["id"])

    def stop(self) -> None:
        self.server.shutdown()
        self.engine.dispose()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Any]:
    """``servers(name)`` starts a server; all of one test share one server key (so a second
    one is the same log, forked)."""
    started: list[Served] = []
    runner = CliRunner()
    witness = runner.invoke(cli, ["log", "witness-key", "--key", str(tmp_path / "w.pem"),
                                  "--name", "witness.test/w1"])
    assert witness.exit_code == 0, witness.output
    witness_key = VerifierKey.parse(witness.output.strip())

    def start(name: str) -> Served:
        served = Served(tmp_path / name, tmp_path / "key", [witness_key])
        started.append(served)
        return served

    start.witness_key = witness_key  # type: ignore[attr-defined]
    yield start
    for served in started:
        served.stop()


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_verify_checks_the_bundle_s_log_proofs_offline(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    match_id = a.finished_match()
    bundle = tmp_path / "match.json"
    bundle.write_bytes(a.ledger.bundle(match_id))
    verified = run("verify", "-v", str(bundle))
    assert verified.exit_code == 0, verified.output
    assert "[ok  ] log:" in verified.output and "genesis leaf 0 and seal leaf 1" in verified.output
    # against the very checkpoint the bundle proves against: pass
    checkpoint = tmp_path / "trusted.checkpoint"
    checkpoint.write_text(a.ledger.log.checkpoint())
    assert run("verify", "--checkpoint", str(checkpoint), str(bundle)).exit_code == 0
    # a newer checkpoint: the bundle must be re-exported against it
    a.finished_match()
    checkpoint.write_text(a.ledger.log.checkpoint())
    stale = run("verify", "--checkpoint", str(checkpoint), str(bundle))
    assert stale.exit_code == 1 and "log_size=4" in stale.output
    bundle.write_bytes(a.ledger.bundle(match_id, log_size=4))
    assert run("verify", "--checkpoint", str(checkpoint), str(bundle)).exit_code == 0
    # a monitor's state file serves as the trusted checkpoint too
    state = tmp_path / "monitor.json"
    assert run("log", "monitor", a.url, "--state", str(state)).exit_code == 0
    assert run("verify", "--checkpoint", str(state), str(bundle)).exit_code == 0
    (tmp_path / "bad.json").write_text('{"size": 3}')
    bad = run("verify", "--checkpoint", str(tmp_path / "bad.json"), str(bundle))
    assert bad.exit_code == 2 and "under 'checkpoint'" in bad.output


def test_verify_catches_a_bundle_proved_against_a_forked_log(servers: Any,
                                                            tmp_path: Path) -> None:
    a, b = servers("a"), servers("b")
    a.finished_match()
    match_id = b.finished_match()  # b's log: another match, same size, same key and origin
    trusted = tmp_path / "a.checkpoint"
    trusted.write_text(a.ledger.log.checkpoint())
    bundle = tmp_path / "b.json"
    bundle.write_bytes(b.ledger.bundle(match_id))
    forked = run("verify", "--checkpoint", str(trusted), str(bundle))
    assert forked.exit_code == 1
    assert "log check failed: the log forked" in forked.output


def test_a_tampered_log_proof_fails_the_log_check(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    a.finished_match()
    match_id = a.finished_match()
    data = json.loads(a.ledger.bundle(match_id))
    lines = data["log"]["seal"].split("\n")
    lines[2] = ("A" if lines[2][0] != "A" else "B") + lines[2][1:]  # the first proof hash
    data["log"]["seal"] = "\n".join(lines)
    bundle = tmp_path / "tampered.json"
    bundle.write_text(json.dumps(data))
    failed = run("verify", str(bundle))
    assert failed.exit_code == 1
    assert "log check failed: the seal leaf (index 3) is not in the checkpointed tree" \
        in failed.output


def test_the_monitor_follows_an_honest_log_and_checks_bundles(servers: Any,
                                                              tmp_path: Path) -> None:
    a = servers("a")
    first = a.finished_match()
    state = tmp_path / "state.json"
    seen = run("log", "monitor", a.url, "--state", str(state))
    assert seen.exit_code == 0, seen.output
    assert "first checkpoint seen" in seen.output
    # trust on first use is said out loud, with the key to pin next time
    assert f"first use: trusting the log key {a.ledger.log.verifier_key.text()}" in seen.output
    wrong = run("log", "monitor", a.url, "--state", str(tmp_path / "other.json"), "--log-key",
                servers.witness_key.text())
    assert wrong.exit_code == 2 and "Ed25519 (type 1)" in wrong.output
    impostor = VerifierKey(a.ledger.log.origin, ED25519, SigningKey.generate().public_raw)
    pinned = run("log", "monitor", a.url, "--state", str(tmp_path / "other.json"), "--log-key",
                 impostor.text())
    assert pinned.exit_code == 1 and "ALARM: the server's checkpoint does not verify" in \
        pinned.output
    bundle = tmp_path / "first.json"
    bundle.write_bytes(a.ledger.bundle(first))
    a.finished_match()
    again = run("log", "monitor", a.url, "--state", str(state), str(bundle))
    assert again.exit_code == 0, again.output
    assert "consistent with the last checkpoint seen (size 2)" in again.output
    assert f"OK: {bundle}: genesis leaf 0 and seal leaf 1 in size 4" in again.output
    foreign = run("log", "monitor", a.url, "--state", str(state),
                  str(sorted(FIXTURES.glob("*.json"))[0]))
    assert foreign.exit_code == 1 and "sealed by another key" in foreign.output


@pytest.mark.parametrize("case", ["same size, another root", "smaller", "larger, rewritten"])
def test_the_monitor_alarms_when_the_log_forks(servers: Any, tmp_path: Path,
                                               case: str) -> None:
    a, b = servers("a"), servers("b")
    for _ in range(2):
        a.finished_match()
    state = tmp_path / "state.json"
    assert run("log", "monitor", a.url, "--state", str(state)).exit_code == 0
    before = state.read_text()
    rounds = {"same size, another root": 2, "smaller": 1, "larger, rewritten": 3}[case]
    for _ in range(rounds):
        b.finished_match()
    alarm = run("log", "monitor", b.url, "--state", str(state))
    assert alarm.exit_code == 1
    expected = {"same size, another root": "have one size and different roots",
                "smaller": "the log shrank", "larger, rewritten": "does not extend"}[case]
    assert "ALARM" in alarm.output and expected in alarm.output
    old_note, new_note = a.ledger.log.checkpoint(), b.ledger.log.checkpoint()
    assert old_note in alarm.output and new_note in alarm.output  # both checkpoints, whole
    assert state.read_text() == before  # the alarm keeps ringing on the next run
    assert run("log", "monitor", b.url, "--state", str(state)).exit_code == 1


def test_a_witness_cosigns_and_the_monitor_checks_it(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    a.finished_match()
    key, wstate = str(tmp_path / "w.pem"), str(tmp_path / "witness.json")
    cosigned = run("log", "witness", a.url, "--key", key, "--name", "witness.test/w1",
                   "--state", wstate)
    assert cosigned.exit_code == 0, cosigned.output
    note = Note.parse(cosigned.stdout)
    assert [sig.name for sig in note.signatures] == [a.ledger.log.origin, "witness.test/w1"]
    served = a.ledger.log.cosigned(a.ledger.log.checkpoint())
    assert served == cosigned.stdout  # the server kept it and serves it
    monitored = run("log", "monitor", a.url, "--state", str(tmp_path / "m.json"),
                    "--witness", servers.witness_key.text())
    assert monitored.exit_code == 0, monitored.output
    assert "cosigned by 1 of 1 witness (1 needed): witness.test/w1" in monitored.output


def test_a_forged_cosignature_is_refused(servers: Any, tmp_path: Path) -> None:
    a = servers("a")
    a.finished_match()
    cosigned = run("log", "witness", a.url, "--key", str(tmp_path / "w.pem"), "--name",
                   "witness.test/w1", "--state", str(tmp_path / "w.json"), "--no-post").stdout
    note = Note.parse(cosigned)
    bad = note.signatures[1]
    # one bit of the signature's R flipped (after the 8-byte time; the last byte of S is
    # often already zero, so overwriting it would forge nothing)
    changed = bad.signature[:8] + bytes([bad.signature[8] ^ 1]) + bad.signature[9:]
    forged = Note(note.text, (note.signatures[0], type(bad)(bad.name, bad.key_id, changed)))
    with pytest.raises(BadRequest, match="does not verify"):
        a.ledger.log.add_cosignatures(forged.render())
    with pytest.raises(BadRequest, match="no such checkpoint"):
        a.ledger.log.add_cosignatures(note.render().replace("\n2\n", "\n9\n", 1))


def test_a_witness_never_cosigns_a_fork(servers: Any, tmp_path: Path) -> None:
    a, b = servers("a"), servers("b")
    a.finished_match()
    b.finished_match()
    args = ["--key", str(tmp_path / "w.pem"), "--name", "witness.test/w1", "--state",
            str(tmp_path / "w.json")]
    assert run("log", "witness", a.url, *args).exit_code == 0
    refused = run("log", "witness", b.url, *args)
    assert refused.exit_code == 1 and "ALARM: the log forked" in refused.output
    assert b.ledger.log.cosigned(b.ledger.log.checkpoint()) == b.ledger.log.checkpoint()


def test_keys_show_prints_the_log_key_before_the_trusted_key(tmp_path: Path) -> None:
    shown = run("--data-dir", str(tmp_path), "keys", "show")
    lines = shown.output.splitlines()
    assert lines[-1].startswith("ed25519:")
    log_line = [line for line in lines if line.startswith("log key:")][0]
    key = VerifierKey.parse(log_line.split()[-1])
    assert key.public_raw.hex() == lines[-1].removeprefix("ed25519:")


def test_export_carries_the_proofs_and_takes_a_log_size(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None)
    tokens = [seat["token"] for seat in created["seats"]]
    for token in tokens:
        ledger.add_seed(created["id"], token, None)
    ledger.resign(created["id"], tokens[0])
    ledger.log.checkpoint()
    ledger.store.engine.dispose()
    out = tmp_path / "m.json"
    exported = run("--data-dir", str(tmp_path), "export", created["id"], "-o", str(out),
                   "--log-size", "2")
    assert exported.exit_code == 0, exported.output
    assert set(json.loads(out.read_text())["log"]) == {"genesis", "seal"}
    assert run("verify", str(out)).exit_code == 0
    missing = run("--data-dir", str(tmp_path), "export", created["id"], "--log-size", "9")
    assert missing.exit_code == 1 and "signed no checkpoint of size 9" in missing.output


@pytest.mark.parametrize("lie", [b'{"hashes": ["not base64!"]}', b'{"no": "hashes"}', b"[]",
                                 b'{"hashes": []}'])
def test_a_server_that_will_not_prove_its_growth_is_an_alarm(servers: Any, tmp_path: Path,
                                                             lie: bytes) -> None:
    a = servers("a")
    a.finished_match()
    state = tmp_path / "state.json"
    assert run("log", "monitor", a.url, "--state", str(state)).exit_code == 0
    a.finished_match()
    a.lies["/api/v1/log/proof/consistency"] = lie
    alarm = run("log", "monitor", a.url, "--state", str(state))
    assert alarm.exit_code == 1 and "ALARM" in alarm.output
    assert "Traceback" not in alarm.output


def test_keys_show_names_a_bad_log_origin(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRDEAL_LOG_ORIGIN", "bad origin")
    shown = run("--data-dir", str(tmp_path), "keys", "show")
    assert shown.exit_code == 1 and "FAIRDEAL_LOG_ORIGIN: a key name is non-empty" in shown.output


def test_the_monitor_saves_the_checkpoint_it_checked_and_only_then(servers: Any,
                                                                   tmp_path: Path) -> None:
    a = servers("a")
    match_id = a.finished_match()
    state, saved = tmp_path / "monitor.json", tmp_path / "trusted.checkpoint"
    held = run("log", "monitor", a.url, "--state", str(state), "--save-checkpoint", str(saved))
    assert held.exit_code == 0, held.output
    assert f"trusted checkpoint saved: {saved} (size 2)" in held.output
    assert saved.read_text() == json.loads(state.read_text())["checkpoint"]
    bundle = tmp_path / "match.json"
    bundle.write_bytes(a.ledger.bundle(match_id))
    assert run("verify", "--checkpoint", str(saved), str(bundle)).exit_code == 0
    # a check that does not hold saves nothing: the file keeps the tree last trusted
    before = saved.read_text()
    a.lies["/api/v1/log/checkpoint"] = b"not a checkpoint"
    alarm = run("log", "monitor", a.url, "--state", str(state), "--save-checkpoint", str(saved))
    assert alarm.exit_code == 1 and "ALARM" in alarm.output
    assert "trusted checkpoint saved" not in alarm.output and saved.read_text() == before
