"""The shape of every tournament event (docs/tournaments.md §2, normative): fields exact, types,
bounds, ids, keys and hex. Meaning (who signed, what was paired, what counts) is verify.py's.

A malformed event raises :class:`InvalidTournament` naming the event's seq, its type and the
field, so an organiser reads "event 7 (result).winner: …", never a traceback:

>>> try:
...     validate_event({"seq": 3, "prev": "0" * 64, "type": "reveal", "ts": 1, "seed": "xy"}, 3)
... except InvalidTournament as e:
...     print(e)
event 3 (reveal).seed: expected 64 hex digits, got 'xy'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..bundle import MAX_DEPTH, MAX_INT, shown
from ..errors import FairdealError
from .model import OUTCOME_KINDS, SYSTEMS, TIEBREAKS
from .primitives import FORMAT

__all__ = ["EVENT_TYPES", "MAX_PLAYERS", "MAX_TEXT", "InvalidTournament", "validate_event"]

#: every event type, in the order a tournament's log may hold them
EVENT_TYPES: Final = ("header", "register", "start", "round", "result", "withdraw",
                      "dispute", "ruling", "reveal", "final")
MAX_PLAYERS: Final = 4096
#: a dispute's and a ruling's text
MAX_TEXT: Final = 2000
DECISIONS: Final = ("result-stands", "result-changed", "replay-ordered", "penalty")
_POINTS: Final = ("win", "draw", "loss", "bye", "forfeit-win")

HEX16: Final = re.compile(r"[0-9a-f]{16}\Z")
HEX64: Final = re.compile(r"[0-9a-f]{64}\Z")
_HEX128: Final = re.compile(r"[0-9a-f]{128}\Z")
IDENT: Final = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_KEY: Final = re.compile(r"ed25519:[0-9a-f]{64}\Z")


class InvalidTournament(FairdealError):
    """A tournament file or event that is not well formed; the message names the event (its
    seq and type) and the field."""


class _Event:
    """One event under check: its place, for every message, and typed field readers."""

    def __init__(self, event: Mapping[str, Any], seq: int) -> None:
        self.event = event
        kind = event.get("type")
        known = isinstance(kind, str) and kind in _FIELDS
        self.where = f"event {seq} ({kind})" if known else f"event {seq}"

    def fail(self, field: str, what: str, value: Any) -> InvalidTournament:
        return InvalidTournament(f"{self.where}.{field}: expected {what}, got {shown(value)}")

    def need(self, field: str) -> Any:
        if field not in self.event:
            raise InvalidTournament(f"{self.where}: missing field {field!r}")
        return self.event[field]

    def integer(self, field: str, low: int = 0, high: int = MAX_INT, value: Any = None) -> int:
        value = self.need(field) if value is None else value
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(field, f"an integer from {low} to {high}", value)
        return value

    def match(self, field: str, pattern: re.Pattern[str], what: str, value: Any = None) -> str:
        value = self.need(field) if value is None else value
        if not isinstance(value, str) or not pattern.match(value):
            raise self.fail(field, what, value)
        return value

    def player(self, field: str, value: Any = None) -> str:
        return self.match(field, HEX16, "a player's key id (16 hex digits)", value)

    def text(self, field: str, shortest: int, longest: int) -> str:
        value = self.need(field)
        if not isinstance(value, str) or not shortest <= len(value) <= longest:
            raise self.fail(field, f"a string of {shortest} to {longest} characters", value)
        return value

    def items(self, field: str, longest: int) -> list[Any]:
        value = self.need(field)
        if not isinstance(value, list) or len(value) > longest:
            raise self.fail(field, f"a list of at most {longest} items", value)
        return value


def _header(e: _Event) -> None:
    if e.need("format") != FORMAT or not isinstance(e.event["format"], str):
        raise e.fail("format", repr(FORMAT), e.event["format"])
    e.match("tournament_id", IDENT, "1-64 letters, digits, '_' or '-'")
    e.text("name", 1, 200)
    e.text("game", 1, 40)
    e.text("rules_version", 1, 40)
    e.match("rules_hash", HEX64, "64 hex digits")
    params = e.need("params")
    if not isinstance(params, dict):
        raise e.fail("params", "an object", params)
    _depth(e, "params", params)
    if not isinstance(e.need("system"), str) or e.event["system"] not in SYSTEMS:
        raise e.fail("system", " or ".join(map(repr, SYSTEMS)), e.event["system"])
    e.integer("rounds", 1, 2 if e.event["system"] == "round-robin" else 64)
    tiebreaks = e.items("tiebreaks", len(TIEBREAKS))
    if (any(not isinstance(t, str) or t not in TIEBREAKS for t in tiebreaks)
            or len(set(tiebreaks)) != len(tiebreaks)):
        raise e.fail("tiebreaks", f"distinct tie-breaks among {', '.join(TIEBREAKS)}",
                     tiebreaks)
    points = e.need("points")
    if not isinstance(points, dict) or set(points) != set(_POINTS):
        raise e.fail("points", f"an object of {', '.join(_POINTS)}", points)
    for name in _POINTS:
        e.integer(f"points.{name}", 0, 1000, points[name])
    if e.need("turn_limit_ms") is not None:
        e.integer("turn_limit_ms", 1)
    e.integer("seating_ms", 10_000)
    e.integer("max_players", 2, MAX_PLAYERS)
    e.match("arbiter_key", _KEY, "'ed25519:' and 64 hex digits")
    e.match("server_key_id", HEX16, "16 hex digits")
    e.match("commitment", HEX64, "64 hex digits")


def _depth(e: _Event, field: str, value: Any) -> None:
    """The params are free-form: bounded in depth as a match's are (bundle.MAX_DEPTH); their
    integers were bounded by parse_json."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidTournament(f"{e.where}.{field}: nested deeper than {MAX_DEPTH} levels")
        children = item.values() if isinstance(item, dict) else item if isinstance(
            item, list) else ()
        stack.extend((child, depth + 1) for child in children)


def _sig(e: _Event) -> None:
    e.match("sig", _HEX128, "128 hex digits (an Ed25519 signature)")


def _register(e: _Event) -> None:
    e.player("player")
    e.match("public_key", _KEY, "'ed25519:' and 64 hex digits")
    e.text("name", 1, 80)
    e.match("entropy", HEX64, "64 hex digits")
    _sig(e)


def _start(e: _Event) -> None:
    players = e.items("players", MAX_PLAYERS)
    for index, player in enumerate(players):
        e.player(f"players[{index}]", player)
    e.match("field", HEX64, "64 hex digits")


def _round(e: _Event) -> None:
    e.integer("round", 1, 10_000)
    pairings = e.items("pairings", MAX_PLAYERS // 2)
    for index, pairing in enumerate(pairings):
        at = f"pairings[{index}]"
        if not isinstance(pairing, dict) or set(pairing) != {"table", "seats", "match_id"}:
            raise e.fail(at, '{"table", "seats", "match_id"}', pairing)
        e.integer(f"{at}.table", 1, MAX_PLAYERS, pairing["table"])
        seats = pairing["seats"]
        if not isinstance(seats, list) or len(seats) != 2:
            raise e.fail(f"{at}.seats", "two key ids", seats)
        for seat, player in enumerate(seats):
            e.player(f"{at}.seats[{seat}]", player)
        e.match(f"{at}.match_id", IDENT, "a match id (1-64 letters, digits, '_' or '-')",
                pairing["match_id"])
    byes = e.items("byes", 1)
    for index, player in enumerate(byes):
        e.player(f"byes[{index}]", player)


#: the fields of a result beside round, table, match_id and outcome, by its outcome
_RESULT_FIELDS: Final = {"match": {"head", "match_seq", "winner"}, "forfeit": {"winner"},
                         "double-forfeit": set()}


def _result(e: _Event) -> None:
    e.integer("round", 1, 10_000)
    e.integer("table", 1, MAX_PLAYERS)
    e.match("match_id", IDENT, "a match id")
    outcome = e.need("outcome")
    if not isinstance(outcome, str) or outcome not in OUTCOME_KINDS:
        raise e.fail("outcome", " or ".join(map(repr, OUTCOME_KINDS)), outcome)
    extra = set(e.event) - _COMMON - {"round", "table", "match_id", "outcome"}
    if extra != _RESULT_FIELDS[outcome]:
        wrong = sorted(extra ^ _RESULT_FIELDS[outcome])[0]
        raise InvalidTournament(f"{e.where}: field {wrong!r} "
                                f"{'is not allowed' if wrong in extra else 'is missing'} "
                                f"in a {outcome!r} result")
    if outcome == "match":
        e.match("head", HEX64, "64 hex digits (the match's head hash)")
        e.integer("match_seq", 1)
        if e.event["winner"] is not None:
            e.player("winner")
    elif outcome == "forfeit":
        e.player("winner")


def _withdraw(e: _Event) -> None:
    e.player("player")
    e.integer("from_round", 1, 10_000)
    _sig(e)


def _dispute(e: _Event) -> None:
    e.integer("dispute", 1, 100_000)
    e.player("player")
    e.match("match_id", IDENT, "a match id")
    e.integer("step", 0)
    e.text("text", 0, MAX_TEXT)
    receipts = e.need("receipts")
    if receipts is not None and not isinstance(receipts, dict):
        raise e.fail("receipts", "the player's receipts file (an object) or null", receipts)
    e.match("report", HEX64, "64 hex digits (the dispute report's hash)")
    _sig(e)


def _ruling(e: _Event) -> None:
    e.integer("dispute", 1, 100_000)
    decision = e.need("decision")
    kind = decision.get("kind") if isinstance(decision, dict) else None
    shapes = {"result-stands": {"kind"}, "result-changed": {"kind", "winner"},
              "replay-ordered": {"kind", "match_id"}, "penalty": {"kind", "player", "points"}}
    if not isinstance(kind, str) or kind not in shapes or set(decision) != shapes[kind]:
        raise e.fail("decision", f"one of the decisions {', '.join(DECISIONS)} with its "
                     "fields", decision)
    if kind == "result-changed" and decision["winner"] is not None:
        e.player("decision.winner", decision["winner"])
    elif kind == "replay-ordered":
        e.match("decision.match_id", IDENT, "a match id", decision["match_id"])
    elif kind == "penalty":
        e.player("decision.player", decision["player"])
        e.integer("decision.points", 1, 10_000, decision["points"])
    e.text("text", 0, MAX_TEXT)
    _sig(e)


def _reveal(e: _Event) -> None:
    e.match("seed", HEX64, "64 hex digits")


def _final(e: _Event) -> None:
    standings = e.items("standings", MAX_PLAYERS)
    for index, line in enumerate(standings):
        at = f"standings[{index}]"
        if not isinstance(line, dict) or set(line) != {"rank", "player", "score", "tiebreaks"}:
            raise e.fail(at, '{"rank", "player", "score", "tiebreaks"}', line)
        e.integer(f"{at}.rank", 1, MAX_PLAYERS, line["rank"])
        e.player(f"{at}.player", line["player"])
        e.integer(f"{at}.score", -MAX_INT, MAX_INT, line["score"])
        breaks = line["tiebreaks"]
        if not isinstance(breaks, list) or len(breaks) > len(TIEBREAKS):
            raise e.fail(f"{at}.tiebreaks", "a list of integers", breaks)
        for slot, value in enumerate(breaks):
            e.integer(f"{at}.tiebreaks[{slot}]", -MAX_INT, MAX_INT, value)


_COMMON: Final = frozenset({"seq", "prev", "type", "ts"})
#: each type's own fields (a result's depend on its outcome: checked by _result) and check
_FIELDS: Final[dict[str, tuple[frozenset[str] | None, Callable[[_Event], None]]]] = {
    "header": (frozenset({"format", "tournament_id", "name", "game", "rules_version",
                          "rules_hash", "params", "system", "rounds", "tiebreaks", "points",
                          "turn_limit_ms", "seating_ms", "max_players", "arbiter_key",
                          "server_key_id", "commitment"}), _header),
    "register": (frozenset({"player", "public_key", "name", "entropy", "sig"}), _register),
    "start": (frozenset({"players", "field"}), _start),
    "round": (frozenset({"round", "pairings", "byes"}), _round),
    "result": (None, _result),
    "withdraw": (frozenset({"player", "from_round", "sig"}), _withdraw),
    "dispute": (frozenset({"dispute", "player", "match_id", "step", "text", "receipts",
                           "report", "sig"}), _dispute),
    "ruling": (frozenset({"dispute", "decision", "text", "sig"}), _ruling),
    "reveal": (frozenset({"seed"}), _reveal),
    "final": (frozenset({"standings"}), _final),
}
assert tuple(_FIELDS) == EVENT_TYPES


def validate_event(event: Any, index: int) -> None:
    """Check the shape of the event at position ``index`` of the log; raise InvalidTournament
    naming its seq, its type and the field. The seq named is the position: an event whose own
    ``seq`` is wrong is the chain check's to word."""
    if not isinstance(event, dict):
        raise InvalidTournament(f"event {index}: expected an event object, got "
                                f"{type(event).__name__}")
    e = _Event(event, index)
    kind = e.need("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidTournament(f"event {index}.type: unknown event type {shown(kind)} "
                                f"(known: {', '.join(EVENT_TYPES)})")
    e.integer("seq")
    e.match("prev", HEX64, "64 hex digits")
    e.integer("ts")
    allowed, check = _FIELDS[kind]
    if allowed is not None:
        extra = set(event) - _COMMON - allowed
        if extra:
            raise InvalidTournament(f"{e.where}: unexpected field {shown(sorted(extra)[0])} "
                                    f"in a {kind} event")
    check(e)
