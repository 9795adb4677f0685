"""Split view (issue 18, break 6) played for real, and the log commands against hostile answers
and broken state files (break 10's log items).

One server key and origin, two SQLite ledgers: the server shows observer A one tree and
observer B another. Each observer's monitor alone is content; `fairdeal log compare` of their
two state files raises the alarm, and `fairdeal verify --witness` refuses a bundle whose
checkpoint no witness it trusts cosigned — an honest witness never cosigns both trees.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from fairdeal.cli.main import cli
from fairdeal.verifier.note import COSIGNATURE, Note, NoteSignature, VerifierKey

from .test_log_cli import FIXTURES, Served

W1, W2 = "witness.test/w1", "witness.test/w2"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def one_clear_line(result: Result, code: int, words: str) -> None:
    """Exit ``code`` by a handled error (never an exception escaping), one line naming it."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert words in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


class Witness:
    """A witness: its key file, its state file and its cosigner key."""

    def __init__(self, folder: Path, name: str) -> None:
        self.name = name
        slug = name.rsplit("/", 1)[-1]
        self.key_path, self.state = str(folder / f"{slug}.pem"), str(folder / f"{slug}.json")
        shown = run("log", "witness-key", "--key", self.key_path, "--name", name)
        assert shown.exit_code == 0, shown.output
        self.vkey = shown.output.strip()
        assert VerifierKey.parse(self.vkey).kind == COSIGNATURE

    def cosign(self, url: str) -> Result:
        return run("log", "witness", url, "--key", self.key_path, "--name", self.name,
                   "--state", self.state)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Any]:
    """Two witnesses the servers accept, and ``world.server(name)`` to start a server; every
    server of one test shares one key (a second one is the same log, forked)."""
    started: list[Served] = []

    class World:
        w1 = Witness(tmp_path, W1)
        w2 = Witness(tmp_path, W2)

        @staticmethod
        def server(name: str) -> Served:
            served = Served(tmp_path / name, tmp_path / "key",
                            [VerifierKey.parse(World.w1.vkey), VerifierKey.parse(World.w2.vkey)])
            started.append(served)
            return served

    yield World
    for served in started:
        served.stop()


def monitor(url: str, state: Path, *more: str) -> Result:
    return run("log", "monitor", url, "--state", str(state), *more)


# --- split view: each observer alone is content; compared, they are not ------------------------

def test_a_split_view_passes_each_monitor_and_log_compare_alarms(world: Any,
                                                                 tmp_path: Path) -> None:
    a, b = world.server("a"), world.server("b")  # one key, one origin, two trees
    for _ in range(2):
        a.finished_match()
        b.finished_match()
    log_key = a.ledger.log.verifier_key.text()
    assert b.ledger.log.verifier_key.text() == log_key
    seen_a, seen_b = tmp_path / "alice.json", tmp_path / "bob.json"
    # each observer, alone, sees an append-only log under the pinned key
    for url, state in ((a.url, seen_a), (b.url, seen_b)):
        alone = monitor(url, state, "--log-key", log_key)
        assert alone.exit_code == 0, alone.output
        assert "first checkpoint seen" in alone.output
    a.finished_match()
    b.finished_match()
    for url, state in ((a.url, seen_a), (b.url, seen_b)):
        alone = monitor(url, state)
        assert alone.exit_code == 0 and "consistent with the last checkpoint seen" in \
            alone.output, alone.output
    # compared, the two views cannot both be the log's
    compared = run("log", "compare", str(seen_a), str(seen_b))
    assert compared.exit_code == 1, compared.output
    assert "ALARM: the two views cannot both be the log's" in compared.output
    assert "have one size and different roots" in compared.output
    note_a, note_b = a.ledger.log.checkpoint(), b.ledger.log.checkpoint()
    assert note_a in compared.output and note_b in compared.output  # both, whole


def test_log_compare_of_different_sizes_asks_the_log_for_its_proof(world: Any,
                                                                   tmp_path: Path) -> None:
    a, b = world.server("a"), world.server("b")
    a.finished_match()
    for _ in range(2):
        b.finished_match()
    seen_a, seen_b = tmp_path / "alice.json", tmp_path / "bob.json"
    assert monitor(a.url, seen_a).exit_code == 0
    assert monitor(b.url, seen_b).exit_code == 0
    # different sizes, no server to ask: a usage error that says what is missing
    undecided = run("log", "compare", str(seen_a), str(seen_b))
    assert undecided.exit_code == 2 and "pass --url" in undecided.output
    # the forked server's own proof does not lead from A's root to B's
    forked = run("log", "compare", str(seen_a), str(seen_b), "--url", b.url)
    assert forked.exit_code == 1 and "ALARM" in forked.output
    assert "does not extend" in forked.output
    assert a.ledger.log.checkpoint() in forked.output and b.ledger.log.checkpoint() in \
        forked.output
    # a server that cannot prove it (A's tree is smaller than B's) is an alarm too
    unproved = run("log", "compare", str(seen_a), str(seen_b), "--url", a.url)
    assert unproved.exit_code == 1 and "ALARM: the server gives no usable consistency proof" \
        in unproved.output


def test_log_compare_of_two_honest_views(world: Any, tmp_path: Path) -> None:
    a = world.server("a")
    a.finished_match()
    early, late, twin = tmp_path / "early.json", tmp_path / "late.json", tmp_path / "twin.json"
    assert monitor(a.url, early).exit_code == 0
    a.finished_match()
    assert monitor(a.url, late).exit_code == 0
    assert monitor(a.url, twin).exit_code == 0
    same = run("log", "compare", str(late), str(twin))
    assert same.exit_code == 0 and "consistent: " in same.output and "same tree" in same.output
    grown = run("log", "compare", str(early), str(late), "--url", a.url)
    assert grown.exit_code == 0, grown.output
    assert f"consistent: {late}'s tree" in grown.output and "extends" in grown.output
    # a witness's state file and a bare checkpoint are views too
    assert world.w1.cosign(a.url).exit_code == 0
    bare = tmp_path / "bare.checkpoint"
    bare.write_text(a.ledger.log.checkpoint())
    assert run("log", "compare", world.w1.state, str(late)).exit_code == 0
    assert run("log", "compare", str(bare), str(late)).exit_code == 0


def test_log_compare_refuses_views_it_cannot_trust(world: Any, tmp_path: Path) -> None:
    a = world.server("a")
    a.finished_match()
    mine, bare = tmp_path / "mine.json", tmp_path / "bare.checkpoint"
    assert monitor(a.url, mine).exit_code == 0
    bare.write_text(a.ledger.log.checkpoint())
    # a bare checkpoint names no key: say so
    nokey = run("log", "compare", str(bare), str(bare))
    assert nokey.exit_code == 2 and "pass --log-key" in nokey.output
    # a view edited after the fact is not the log's signed word
    state = json.loads(mine.read_text())
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps({**state, "checkpoint": state["checkpoint"].replace(
        "\n2\n", "\n3\n", 1)}))
    one_clear_line(run("log", "compare", str(mine), str(edited)), 1,
                   "the checkpoint is not the log's signed word")
    # views that follow two different log keys are not two views of one log
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**state, "log_key": VerifierKey.parse(world.w1.vkey).text()}))
    one_clear_line(run("log", "compare", str(mine), str(other)), 1, "different log keys")
    for body in ("[]", "{", "[" * 100_000):
        broken = tmp_path / "broken.json"
        broken.write_text(body)
        result = run("log", "compare", str(mine), str(broken))
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert str(broken) in result.output


# --- verify --witness ---------------------------------------------------------------------------

def _verify(bundle: Path, *more: str) -> Result:
    return run("verify", "-v", *more, str(bundle))


def test_verify_with_witnesses_takes_an_honest_cosignature(world: Any, tmp_path: Path) -> None:
    a = world.server("a")
    match_id = a.finished_match()
    unwitnessed = tmp_path / "before.json"
    unwitnessed.write_bytes(a.ledger.bundle(match_id))
    assert world.w1.cosign(a.url).exit_code == 0
    bundle = tmp_path / "match.json"
    bundle.write_bytes(a.ledger.bundle(match_id))
    # export embeds the cosigned checkpoint in both proofs
    proofs = json.loads(bundle.read_text())["log"]
    for proof in proofs.values():
        assert f"\u2014 {W1} " in proof
    ok = _verify(bundle, "--witness", world.w1.vkey)
    assert ok.exit_code == 0, ok.output
    assert f"cosigned by 1 of 1 witness (1 needed): {W1}" in ok.output
    # one of two is enough by default
    assert _verify(bundle, "--witness", world.w1.vkey, "--witness", world.w2.vkey).exit_code == 0
    # without --witness, both bundles verify as before
    assert _verify(bundle).exit_code == 0 and _verify(unwitnessed).exit_code == 0
    # missing: exported before the witness cosigned
    missing = _verify(unwitnessed, "--witness", world.w1.vkey)
    assert missing.exit_code == 1
    assert "log check failed: the checkpoint is cosigned by 0 of the witnesses asked for, 1 " \
           f"needed; asked for at least 1 of 1 witness: {W1}" in missing.output
    assert "signed: none of them" in missing.output
    assert f"fairdeal export {match_id} --log-size N" in missing.output
    # the wrong witness
    wrong = _verify(bundle, "--witness", world.w2.vkey)
    assert wrong.exit_code == 1 and "signed: none of them" in wrong.output
    # two needed, one signed: names who was asked and who signed
    short = _verify(bundle, "--witness", world.w1.vkey, "--witness", world.w2.vkey,
                    "--witnesses", "2")
    assert short.exit_code == 1
    assert "cosigned by 1 of the witnesses asked for, 2 needed" in short.output
    assert f"{W1} (key" in short.output and f"{W2} (key" in short.output
    assert f"signed: {W1} (key {VerifierKey.parse(world.w1.vkey).key_id.hex()}) at" \
        in short.output
    # both witnesses cosign: two of two
    assert world.w2.cosign(a.url).exit_code == 0
    bundle.write_bytes(a.ledger.bundle(match_id))
    both = _verify(bundle, "--witness", world.w1.vkey, "--witness", world.w2.vkey,
                   "--witnesses", "2")
    assert both.exit_code == 0 and "cosigned by 2 of 2 witnesses" in both.output


def test_export_embeds_the_newest_cosigned_tree_that_holds_the_match(world: Any,
                                                                     tmp_path: Path) -> None:
    a = world.server("a")
    early = a.finished_match()
    assert world.w1.cosign(a.url).exit_code == 0  # the witness cosigns size 2
    late = a.finished_match()
    assert a.ledger.log.checkpoint().split("\n")[1] == "4"  # the log grew past it
    bundle = tmp_path / "early.json"
    bundle.write_bytes(a.ledger.bundle(early))
    ok = _verify(bundle, "--witness", world.w1.vkey)
    assert ok.exit_code == 0 and "in fairdeal.log/" in ok.output and " size 2 " in ok.output
    # a match sealed after the witness last cosigned: against the latest tree, not cosigned yet
    fresh = tmp_path / "late.json"
    fresh.write_bytes(a.ledger.bundle(late))
    assert _verify(fresh).exit_code == 0
    uncosigned = _verify(fresh, "--witness", world.w1.vkey)
    assert uncosigned.exit_code == 1 and "signed: none of them" in uncosigned.output
    assert world.w1.cosign(a.url).exit_code == 0
    fresh.write_bytes(a.ledger.bundle(late))
    assert _verify(fresh, "--witness", world.w1.vkey).exit_code == 0
    # asked for a size, the export keeps to it, with that size's cosignatures
    bundle.write_bytes(a.ledger.bundle(early, log_size=2))
    assert _verify(bundle, "--witness", world.w1.vkey).exit_code == 0


def _with_cosignature(bundle: bytes, line: NoteSignature) -> bytes:
    """The bundle with ``line`` added to the checkpoint in both its proofs (what a server that
    holds a cosignature line can do to any bundle it serves)."""
    data = json.loads(bundle)
    for kind, proof in data["log"].items():
        head, _, note = proof.partition("\n\n")
        data["log"][kind] = head + "\n\n" + Note.parse(note).with_signatures([line]).render()
    return json.dumps(data).encode()


def test_verify_with_witnesses_refuses_a_forked_tree(world: Any, tmp_path: Path) -> None:
    a, b = world.server("a"), world.server("b")
    a.finished_match()
    forked_match = b.finished_match()  # b: the same size, another tree
    assert world.w1.cosign(a.url).exit_code == 0
    refused = world.w1.cosign(b.url)  # an honest witness never cosigns the other tree
    assert refused.exit_code == 1 and "ALARM: the log forked" in refused.output
    forked = tmp_path / "forked.json"
    forked.write_bytes(b.ledger.bundle(forked_match))
    # B's bundle verifies as long as no one asks for a witness: each view alone is fine
    assert _verify(forked).exit_code == 0
    unsigned = _verify(forked, "--witness", world.w1.vkey)
    assert unsigned.exit_code == 1 and "signed: none of them" in unsigned.output
    # the witness's cosignature of A's tree, copied onto B's checkpoint of the same size
    cosigned_a = Note.parse(a.ledger.log.cosigned(a.ledger.log.checkpoint()))
    w1_line = [sig for sig in cosigned_a.signatures if sig.name == W1][0]
    transplanted = tmp_path / "transplanted.json"
    transplanted.write_bytes(_with_cosignature(forked.read_bytes(), w1_line))
    caught = _verify(transplanted, "--witness", world.w1.vkey)
    assert caught.exit_code == 1
    assert "log check failed: a witness's cosignature is forged or the checkpoint was changed " \
           f"after it was cosigned: the cosignature of {W1}" in caught.output
    # one bit of an honest cosignature flipped
    honest = tmp_path / "honest.json"
    honest.write_bytes(a.ledger.bundle(a.ledger.log.leaves()[0][1].match_id))
    data = json.loads(honest.read_bytes())
    head, _, note_text = data["log"]["seal"].partition("\n\n")
    note = Note.parse(note_text)
    sig = [s for s in note.signatures if s.name == W1][0]
    flipped = NoteSignature(sig.name, sig.key_id,
                            sig.signature[:8] + bytes([sig.signature[8] ^ 1]) + sig.signature[9:])
    changed = Note(note.text, tuple(flipped if s == sig else s for s in note.signatures))
    for kind in data["log"]:
        data["log"][kind] = data["log"][kind].partition("\n\n")[0] + "\n\n" + changed.render()
    honest.write_text(json.dumps(data))
    bad = _verify(honest, "--witness", world.w1.vkey)
    assert bad.exit_code == 1 and "forged" in bad.output
    assert _verify(honest).exit_code == 0  # an unknown key's line is ignored (the spec says)


def test_verify_witness_usage(world: Any) -> None:
    fixture = sorted(FIXTURES.glob("*.json"))[0]  # a bundle built offline: no log proofs
    no_log = _verify(fixture, "--witness", world.w1.vkey)
    assert no_log.exit_code == 1
    assert "witness cosignatures were asked for" in no_log.output
    assert "carries no log proofs" in no_log.output
    for args, words in (
            (("--witness", world.w1.vkey, "--witnesses", "2"), "from 1 to 1"),
            (("--witnesses", "1"), "needs the witnesses' keys"),
            (("--witness", world.w1.vkey, "--witness", world.w1.vkey), "given twice"),
            (("--witness", "witness.test/w1+00000000+AAAA"), "--witness"),
            (("--witnesses", "0", "--witness", world.w1.vkey), "--witnesses")):
        used = run("verify", *args, str(fixture))
        assert used.exit_code == 2, (args, used.output)
        assert words in used.output, (args, used.output)
        assert "Traceback" not in used.output


# --- log monitor --witness ----------------------------------------------------------------------

def test_the_monitor_requires_the_witnesses(world: Any, tmp_path: Path) -> None:
    a = world.server("a")
    a.finished_match()
    state = tmp_path / "m.json"
    alarm = monitor(a.url, state, "--witness", world.w1.vkey)
    assert alarm.exit_code == 1
    assert "ALARM: the checkpoint is cosigned by 0 of the witnesses asked for, 1 needed" \
        in alarm.output
    assert a.ledger.log.checkpoint() in alarm.output
    assert not state.exists()  # not accepted, not remembered
    assert world.w1.cosign(a.url).exit_code == 0
    accepted = monitor(a.url, state, "--witness", world.w1.vkey)
    assert accepted.exit_code == 0, accepted.output
    assert f"cosigned by 1 of 1 witness (1 needed): {W1}" in accepted.output
    before = state.read_text()
    two = monitor(a.url, state, "--witness", world.w1.vkey, "--witness", world.w2.vkey,
                  "--witnesses", "2")
    assert two.exit_code == 1 and "2 needed" in two.output and f"signed: {W1}" in two.output
    assert state.read_text() == before


# --- hostile answers and broken state files: one clear line, exit 1 ----------------------------

HOSTILE_KEYS = [b"[]", b'"x"', b'{"keys":[5]}', b'{"keys":"x"}', b'{"keys":[{"log_key":5}]}',
                b"{}", b"null", b"[" * 100_000 + b"]" * 100_000]


@pytest.mark.parametrize("lie", HOSTILE_KEYS, ids=lambda lie: repr(lie[:20]))
@pytest.mark.parametrize("command", ["monitor", "witness"])
def test_a_hostile_keys_answer_is_one_clear_line(world: Any, tmp_path: Path, lie: bytes,
                                                 command: str) -> None:
    a = world.server("a")
    a.lies["/api/v1/keys"] = lie
    state = str(tmp_path / "state.json")
    args = (["log", "monitor", a.url, "--state", state] if command == "monitor" else
            ["log", "witness", a.url, "--key", world.w1.key_path, "--name", W1, "--state",
             state])
    result = CliRunner().invoke(cli, args)
    words = "names no log key" if lie.startswith((b"{", b'"', b"[]", b"n")) and \
        len(lie) < 100 else "did not answer JSON"
    one_clear_line(result, 1, words)


@pytest.mark.parametrize("lie", [b"[" * 100_000, b'{"hashes": {"a": 1}}', b'{"hashes": [5]}',
                                 b"5"])
def test_hostile_proof_answers_are_alarms_not_tracebacks(world: Any, tmp_path: Path,
                                                         lie: bytes) -> None:
    a = world.server("a")
    first = a.finished_match()
    bundle = tmp_path / "first.json"
    bundle.write_bytes(a.ledger.bundle(first))
    state = tmp_path / "state.json"
    assert monitor(a.url, state).exit_code == 0
    a.lies["/api/v1/log/proof/inclusion"] = lie
    failed = monitor(a.url, state, str(bundle))
    assert failed.exit_code == 1 and isinstance(failed.exception, SystemExit), failed.output
    assert f"FAIL: {bundle}" in failed.output
    a.finished_match()
    a.lies["/api/v1/log/proof/consistency"] = lie
    alarm = monitor(a.url, state)
    assert alarm.exit_code == 1 and isinstance(alarm.exception, SystemExit), alarm.output
    assert "ALARM: the server gives no usable consistency proof" in alarm.output


@pytest.mark.parametrize("command", ["monitor", "witness"])
def test_state_file_errors_are_one_clear_line(world: Any, tmp_path: Path, command: str) -> None:
    a = world.server("a")
    a.finished_match()

    def watch(state: str) -> Result:
        if command == "monitor":
            return monitor(a.url, Path(state))
        return run("log", "witness", a.url, "--key", world.w1.key_path, "--name", W1,
                   "--state", state, "--no-post")

    one_clear_line(watch("/nonexistent/d/m.json"), 1,
                   "cannot write the state file /nonexistent/d/m.json: No such file or "
                   "directory: the folder /nonexistent/d does not exist")
    broken = tmp_path / "broken.json"
    for body, words in (("not json", "cannot read the state file"),
                        ("[" * 100_000, "it is nested too deeply"),
                        ("[]", "is not a fairdeal log state file"),
                        ('{"checkpoint": 5, "log_key": "x"}', "is not a fairdeal log state"),
                        ('{"checkpoint": "x\\n", "log_key": "y"}',
                         "is not a fairdeal log state file: the checkpoint is not a signed "
                         "note")):
        broken.write_text(body)
        one_clear_line(watch(str(broken)), 1, words)
    good = tmp_path / "good.json"
    assert watch(str(good)).exit_code == 0
    state = json.loads(good.read_text())
    broken.write_text(json.dumps({**state, "log_key": "no key"}))
    one_clear_line(watch(str(broken)), 1, "is not a fairdeal log state file: a verifier key")
