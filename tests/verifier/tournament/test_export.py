"""The export zip read defensively (docs/hardening.md applies per file): a stranger's zip is
refused, naming why, when it is no zip, lacks its tournament, holds anything but
tournament.json and matches/<id>.json, names a file twice or outside, or claims or inflates
past the limits. Each refusal is the report's format check, never an exception."""

from __future__ import annotations

import io
import zipfile

import pytest

from fairdeal.verifier.tournament import InvalidExport, read_export, verify_tournament_zip
from fairdeal.verifier.tournament import bundle as tournament_bundle


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def _refused(data: bytes, message: str) -> None:
    with pytest.raises(InvalidExport, match=message):
        read_export(data)
    report = verify_tournament_zip(data)
    assert not report.ok and report.failure is not None
    assert report.failure.check == "format"
    assert [c.status for c in report.checks][:2] == ["fail", "not-checked"]


def test_the_files_of_an_export_are_read_by_match_id() -> None:
    export = read_export(_zip([("tournament.json", b"{}"), ("matches/m-1.json", b"[]"),
                               ("matches/", b"")]))
    assert export.tournament == b"{}" and export.matches == {"m-1": b"[]"}


@pytest.mark.parametrize(("members", "message"), [
    ([("matches/m-1.json", b"{}")], "no tournament.json"),
    ([("tournament.json", b"{}"), ("notes.txt", b"hi")], "unexpected file 'notes.txt'"),
    ([("tournament.json", b"{}"), ("../tournament.json", b"{}")],
     r"unexpected file '\.\./tournament\.json'"),
    ([("tournament.json", b"{}"), ("/etc/matches/x.json", b"{}")], "unexpected file"),
    ([("tournament.json", b"{}"), ("matches/a b.json", b"{}")], "unexpected file"),
    ([("tournament.json", b"{}"), ("matches/x/y.json", b"{}")], "unexpected file"),
    ([("tournament.json", b"{}"), ("tournament.json", b"{}")], "holds 'tournament.json' twice"),
])
def test_a_zip_that_is_not_an_export_is_refused_by_name(members: list[tuple[str, bytes]],
                                                         message: str) -> None:
    with pytest.warns(UserWarning) if len({n for n, _ in members}) < len(members) else _none():
        data = _zip(members)
    _refused(data, message)


class _none:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


def test_what_is_no_zip_is_refused() -> None:
    _refused(b"PK\x03\x04 truncated", "not a zip file")
    _refused(b"", "not a zip file")


def test_a_zip_bomb_stops_at_the_per_file_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    limit = 1_000_000
    monkeypatch.setattr(tournament_bundle, "MAX_BUNDLE_BYTES", limit)
    bomb = _zip([("tournament.json", b"{}"), ("matches/m.json", b" " * (limit * 20))])
    assert len(bomb) < limit // 10  # a small file that inflates twenty times past the limit
    _refused(bomb, r"'matches/m\.json': 20,000,000 bytes, larger than the 1,000,000")
    # a header that lies about the size is caught while reading: at most one byte past it
    lying = bytearray(bomb)
    lying = _lie_about_sizes(bytes(lying), 20 * limit, 10)
    _refused(lying, r"matches/m\.json")


def _lie_about_sizes(data: bytes, real: int, claimed: int) -> bytes:
    """The zip with its member's uncompressed size written as ``claimed``."""
    real_bytes, claimed_bytes = real.to_bytes(4, "little"), claimed.to_bytes(4, "little")
    return data.replace(real_bytes, claimed_bytes)


def test_too_many_matches_and_too_many_bytes_are_refused(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(tournament_bundle, "MAX_MATCHES", 3)
    members = [("tournament.json", b"{}")] + [(f"matches/m{i}.json", b"{}") for i in range(4)]
    _refused(_zip(members), "holds 5 files; an export holds at most 3 matches")
    monkeypatch.setattr(tournament_bundle, "MAX_MATCHES", 100)
    monkeypatch.setattr(tournament_bundle, "MAX_EXPORT_BYTES", 1000)
    members = [("tournament.json", b"{}")] + [(f"matches/m{i}.json", b" " * 600)
                                              for i in range(2)]
    _refused(_zip(members), "larger than the 1,000 bytes allowed together")


@pytest.mark.parametrize(("tournament", "message"), [
    (b"not json", "tournament.json: not valid JSON"),
    (b'{"format": "fairdeal.bundle/1"}', "format: expected 'fairdeal.tournament/1'"),
    (b'{"format": "fairdeal.tournament/1", "events": [1.5]}', "integers"),
    (b'{"format": "fairdeal.tournament/1", "events": [{}, {}]}', "event 0: missing field"),
])
def test_a_tournament_file_that_is_not_one_fails_the_format_check(tournament: bytes,
                                                                  message: str) -> None:
    report = verify_tournament_zip(_zip([("tournament.json", tournament)]))
    assert report.failure is not None and report.failure.check == "format"
    assert message in report.failure.reason
