"""The tournament bundle (``fairdeal.tournament/1``) and the export zip (docs/tournaments.md §3).

Parse, then validate at construction: a ``TournamentBundle`` in memory is well formed, every
event shape-checked (events.py). The zip is read defensively, as any file from a stranger is
(docs/hardening.md): every member's size bounded before and while it is read (a zip bomb
stops at the limit), names only ``tournament.json`` and ``matches/<match id>.json`` (nothing
outside, no duplicate), a cap on the number of matches, each file strict JSON.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any, Final

from ..bundle import MAX_BUNDLE_BYTES, InvalidBundle, parse_json, shown
from .events import InvalidTournament, validate_event
from .primitives import FORMAT

__all__ = ["MAX_EXPORT_BYTES", "MAX_MATCHES", "MAX_TOURNAMENT_EVENTS", "InvalidExport",
           "TournamentBundle", "TournamentExport", "read_export"]

#: a tournament of 4,096 players over 64 rounds writes about 140,000 events
MAX_TOURNAMENT_EVENTS: Final = 200_000
#: matches in one export: a Swiss of 1,000 players over 9 rounds plays 4,500
MAX_MATCHES: Final = 20_000
#: every member of the zip together, uncompressed
MAX_EXPORT_BYTES: Final = 2 * 1024**3
_MATCH_NAME: Final = re.compile(r"matches/([A-Za-z0-9_-]{1,64})\.json\Z")
_KEY: Final = re.compile(r"ed25519:[0-9a-f]{64}\Z")
_HEX128: Final = re.compile(r"[0-9a-f]{128}\Z")
_LOG_PROOF_BYTES: Final = 65536


class InvalidExport(InvalidTournament):
    """A tournament export (zip) that cannot be read: the message names the member and why."""


@dataclass(frozen=True)
class TournamentBundle:
    """A parsed, well-formed tournament bundle; its meaning is verify.py's to check."""

    events: list[dict[str, Any]]
    server_key: str
    signature: str
    log: dict[str, Any] | None = None

    @property
    def header(self) -> dict[str, Any]:
        return self.events[0]

    @property
    def tournament_id(self) -> str:
        tournament_id: str = self.events[0]["tournament_id"]
        return tournament_id

    @classmethod
    def from_bytes(cls, data: bytes | str) -> TournamentBundle:
        try:
            value = parse_json(data, MAX_BUNDLE_BYTES)
        except InvalidBundle as e:
            raise InvalidTournament(f"tournament.json: {e}") from None
        return cls.from_json(value)

    @classmethod
    def from_json(cls, data: Any) -> TournamentBundle:
        if not isinstance(data, dict):
            raise InvalidTournament(f"a tournament bundle is a JSON object, got "
                                    f"{type(data).__name__}")
        if data.get("format") != FORMAT:
            raise InvalidTournament(f"format: expected {FORMAT!r}, got {shown(data.get('format'))}"
                                    " (a match bundle is verified as a match, not here)")
        extra = set(data) - {"format", "events", "signature", "log"}
        if extra:
            raise InvalidTournament(f"unexpected top-level field {shown(sorted(extra)[0])}")
        events = data.get("events")
        if not isinstance(events, list) or len(events) < 2:
            raise InvalidTournament("events: expected a list of events, from the header to "
                                    "the final standings")
        if len(events) > MAX_TOURNAMENT_EVENTS:
            raise InvalidTournament(f"events: {len(events):,} events, more than the "
                                    f"{MAX_TOURNAMENT_EVENTS:,} a tournament may hold")
        for index, event in enumerate(events):
            validate_event(event, index)
        if events[0]["type"] != "header":
            raise InvalidTournament(f"event 0: the first event must be the header, got "
                                    f"{shown(events[0]['type'])}")
        if events[-1]["type"] != "final":
            raise InvalidTournament(
                f"event {len(events) - 1}: the last event of a finished tournament is its "
                f"final standings, got {shown(events[-1]['type'])} (the log is cut short, or "
                "the tournament is not over)")
        signature = data.get("signature")
        if (not isinstance(signature, dict) or set(signature) != {"key", "sig"}
                or not isinstance(signature["key"], str) or not _KEY.match(signature["key"])
                or not isinstance(signature["sig"], str)
                or not _HEX128.match(signature["sig"])):
            raise InvalidTournament('signature: expected {"key": "ed25519:<64 hex>", '
                                    '"sig": "<128 hex>"}')
        return cls(events, signature["key"], signature["sig"], _log(data.get("log")))

    def to_json(self) -> dict[str, Any]:
        value: dict[str, Any] = {"format": FORMAT, "events": self.events,
                                 "signature": {"key": self.server_key, "sig": self.signature}}
        if self.log is not None:
            value["log"] = self.log
        return value


def _log(log: Any) -> dict[str, Any] | None:
    """The optional log proofs: ``{"created": proof, "rounds": [proof, …], "final": proof}``."""
    if log is None:
        return None

    def proof(value: Any) -> bool:
        return isinstance(value, str) and 0 < len(value) < _LOG_PROOF_BYTES

    if (not isinstance(log, dict) or "rounds" not in log
            or not set(log) <= {"created", "rounds", "final"}
            or not all(proof(log[kind]) for kind in ("created", "final") if kind in log)
            or not isinstance(log["rounds"], list) or not all(map(proof, log["rounds"]))):
        raise InvalidTournament('log: expected {"created": <tlog proof>, "rounds": [<tlog '
                                'proof>, …], "final": <tlog proof>}')
    return log


@dataclass(frozen=True)
class TournamentExport:
    """An export's files: the tournament bundle's bytes and each match's, by match id."""

    tournament: bytes
    matches: dict[str, bytes]


def read_export(data: bytes) -> TournamentExport:
    """The files of a tournament export zip; raise InvalidExport naming what is wrong."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError) as e:
        raise InvalidExport(f"not a zip file ({e})") from None
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) > MAX_MATCHES + 1:
            raise InvalidExport(f"the zip holds {len(members):,} files; an export holds at "
                                f"most {MAX_MATCHES:,} matches")
        seen: set[str] = set()
        total = 0
        tournament: bytes | None = None
        matches: dict[str, bytes] = {}
        for info in members:
            name = info.filename
            if name in seen:
                raise InvalidExport(f"the zip holds {shown(name)} twice")
            seen.add(name)
            found = _MATCH_NAME.match(name)
            if name != "tournament.json" and found is None:
                raise InvalidExport(f"unexpected file {shown(name)} in the export (it holds "
                                    "tournament.json and matches/<match id>.json only)")
            content = _member(archive, info)
            total += len(content)
            if total > MAX_EXPORT_BYTES:
                raise InvalidExport(f"the export's files are larger than the "
                                    f"{MAX_EXPORT_BYTES:,} bytes allowed together")
            if found is None:
                tournament = content
            else:
                matches[found.group(1)] = content
        if tournament is None:
            raise InvalidExport("the zip holds no tournament.json: it is not a tournament "
                                "export")
        return TournamentExport(tournament, matches)


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One member's bytes, refused past the per-file limit (MAX_BUNDLE_BYTES) whatever its
    header claims: read at most one byte past the limit."""
    if info.file_size > MAX_BUNDLE_BYTES:
        raise InvalidExport(f"{shown(info.filename)}: {info.file_size:,} bytes, larger than "
                            f"the {MAX_BUNDLE_BYTES:,} bytes a file may hold")
    try:
        with archive.open(info) as member:
            content = member.read(MAX_BUNDLE_BYTES + 1)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError,
            ValueError, zlib.error) as e:
        raise InvalidExport(f"{shown(info.filename)}: cannot be read from the zip ({e})") from None
    if len(content) > MAX_BUNDLE_BYTES:
        raise InvalidExport(f"{shown(info.filename)}: larger than the {MAX_BUNDLE_BYTES:,} "
                            "bytes a file may hold (the zip's sizes are false)")
    return content

