"""The sample bundles: every honest one verifies, every tampered one fails with the check and
the event it must name, and the committed files are exactly what fixtures/build.py makes. The
archive of version-1 bundles (fixtures/bundles/v1/, recorded before protocol v2) still verifies,
and its reports state the weaker guarantee those bundles carry."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from fairdeal.verifier.verify import verify_bytes

ROOT = Path(__file__).parents[2] / "fixtures" / "bundles"
SERVER_KEY = (ROOT / "server-key.txt").read_text().strip()
EXPECTED = json.loads((ROOT.parent / "tampered-expected.json").read_text())
HONEST = sorted((ROOT / "honest").glob("*.json"))
V1 = ROOT / "v1"
V1_EXPECTED = json.loads((ROOT.parent / "tampered-expected-v1.json").read_text())
V1_HONEST = sorted((V1 / "honest").glob("*.json"))
V1_KEY = (V1 / "server-key.txt").read_text().strip()


def test_the_corpus_is_broad() -> None:
    names = {path.stem for path in HONEST}
    assert len(EXPECTED) >= 15
    assert {n for n in names if n.startswith("arcomage-") and n.endswith("-normal")}
    assert {n for n in names if n.startswith("arcomage-") and n.endswith("-infinite")}
    assert len([n for n in names if n.startswith("toybattle-")]) >= 8
    assert len([n for n in names if n.startswith("wyrdstone-")]) >= 3


@pytest.mark.parametrize("path", HONEST, ids=lambda path: path.stem)
def test_honest_bundles_verify_with_the_pinned_key(path: Path) -> None:
    report = verify_bytes(path.read_bytes(), SERVER_KEY)
    assert report.ok, report.failure
    statuses = {check.name: check.status for check in report.checks}
    assert statuses.pop("receipts") == "skipped"
    # the fixtures are built offline, without a log: its optional check is skipped too
    assert statuses.pop("log") == "skipped"
    assert set(statuses.values()) == {"pass"} and len(statuses) == 12
    assert report.facts["key_pinned"] is True
    assert report.facts["protocol"] == "fairdeal/2"
    assert "could have chosen" in report.facts["deal_influence"]["text"] or \
        "fair unless" in report.facts["deal_influence"]["text"]


@pytest.mark.parametrize("path", V1_HONEST, ids=lambda path: path.stem)
def test_version_1_bundles_still_verify_with_their_weaker_guarantee(path: Path) -> None:
    report = verify_bytes(path.read_bytes(), V1_KEY)
    assert report.ok, report.failure
    assert report.facts["protocol"] == "fairdeal/1"
    assert report.facts["deal_influence"]["text"] == (
        "version 1 bundle, client seeds unsigned: the server could have chosen this deal")
    assert report.facts["deal_influence"]["colluders_needed"] == [["server"]]
    seeds = next(check for check in report.checks if check.name == "seeds")
    assert "weaker guarantee" in seeds.detail


@pytest.mark.parametrize("name", sorted(V1_EXPECTED), ids=str)
def test_tampered_version_1_bundles_still_fail(name: str) -> None:
    expect = V1_EXPECTED[name]
    report = verify_bytes((V1 / "tampered" / f"{name}.json").read_bytes(), V1_KEY)
    assert report.failure is not None and report.failure.check == expect["check"], report.failure
    if "seq" in expect:
        assert report.failure.seq == expect["seq"]


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=str)
def test_tampered_bundles_fail_where_and_why_they_must(name: str) -> None:
    expect = EXPECTED[name]
    data = (ROOT / "tampered" / f"{name}.json").read_bytes()
    pinned = verify_bytes(data, SERVER_KEY)
    assert not pinned.ok
    assert pinned.failure is not None
    assert pinned.failure.check == expect["check"], pinned.failure
    if "seq" in expect:
        assert pinned.failure.seq == expect["seq"], pinned.failure
    if "reason" in expect:
        assert expect["reason"] in pinned.failure.reason
    statuses = {check.name: check.status for check in pinned.checks}
    assert statuses[expect["check"]] == "fail"
    assert list(statuses.values()).count("fail") == 1
    unpinned = verify_bytes(data)
    # a history re-forged under another key is caught only by pinning the server's key
    assert unpinned.ok is bool(expect.get("trusted_key"))


def test_the_committed_fixtures_are_reproducible() -> None:
    spec = importlib.util.spec_from_file_location("fixtures_build", ROOT.parent / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build()
    committed = {str(p.relative_to(ROOT.parent)): p.read_bytes() for p in ROOT.rglob("*")
                 if p.is_file() and V1 not in p.parents}
    expected = ROOT.parent / "tampered-expected.json"
    committed[expected.name] = expected.read_bytes()
    assert set(built) == set(committed)
    changed = [name for name in built if built[name] != committed[name]]
    assert not changed, f"fixtures differ from what build.py makes: {changed[:5]}"


def test_the_tampered_folder_holds_only_the_corpus_bundles() -> None:
    """`fairdeal verify fixtures/bundles/tampered/*.json` reads every tampered bundle and
    nothing else: each file there has its expectation, and each expectation its file."""
    assert {path.stem for path in (ROOT / "tampered").glob("*.json")} == set(EXPECTED)
