"""The bundle file: parse, then validate at construction, so every Bundle in memory is
well-formed. A malformed file gets an InvalidBundle that names the field, never a traceback.

    {"format": "fairdeal.bundle/1",
     "events": [genesis, ..., reveal],
     "signature": {"key": "ed25519:<hex>", "sig": "<128 hex>"}}
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from . import jsonfast
from .errors import FairdealError
from .protocol import BUNDLE_FORMAT, PROTOCOL_V1, PROTOCOL_V2, PROTOCOLS

__all__ = ["MAX_BUNDLE_BYTES", "MAX_EVENTS", "MAX_INT", "Bundle", "InvalidBundle", "parse_json",
           "shown", "validate_event"]

#: a bundle larger than this is refused before parsing (a long match is well under 1 MiB)
MAX_BUNDLE_BYTES = 64 * 1024 * 1024
#: how deeply an action or the params may nest
MAX_DEPTH: Final = 16
#: a bundle with more events is refused before any is checked: replaying each costs time, and a
#: long match holds a few hundred (the longest fixture: under 300)
MAX_EVENTS: Final = 20_000
#: integers are 64-bit signed: every field that holds one (a seq, a ts, a card index) fits, and
#: so does every database column and any other language's integer type
MAX_INT: Final = 2**63 - 1
#: a longer number is refused before it is converted (Python's own guard stops at 4,300)
_MAX_INT_DIGITS: Final = 19
#: error messages quote at most this much of an offending value
_SHOWN: Final = 80

_HEX64: Final = re.compile(r"[0-9a-f]{64}\Z")
_HEX128: Final = re.compile(r"[0-9a-f]{128}\Z")
_HEX16: Final = re.compile(r"[0-9a-f]{16}\Z")
_MATCH_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_KEY: Final = re.compile(r"ed25519:[0-9a-f]{64}\Z")


class InvalidBundle(FairdealError):
    """The file is not a well-formed bundle; the message names the field and the problem."""


def shown(value: Any) -> str:
    """``repr(value)``, cut short: a hostile file's 16 MiB string must not fill the message."""
    text = repr(value)
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text)} characters)"


def _reject_float(text: str) -> Any:
    raise InvalidBundle(f"numbers must be integers in canonical JSON, found {shown(text)}")


def _reject_constant(text: str) -> Any:
    raise InvalidBundle(f"{text} is not allowed in canonical JSON")


def _bounded_int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > _MAX_INT_DIGITS:
        raise InvalidBundle(f"an integer of {digits} digits is out of range: integers must lie "
                            f"within +-{MAX_INT} (64-bit)")
    value = int(text)
    if not -MAX_INT <= value <= MAX_INT:
        raise InvalidBundle(f"integer {value} is out of range: integers must lie within "
                            f"+-{MAX_INT} (64-bit)")
    return value


#: a lone surrogate can only enter through a \uD800-\uDFFF escape (UTF-8 bytes cannot hold
#: one): look for the escape first, and walk the parsed value only when there is one
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
#: (the escapes spelled for the regular expression engine, not as string literals: a lone
#: surrogate in a literal is refused by the compiled build, docs/compiled.md)
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")


def _surrogates(value: Any) -> None:
    """Refuse a string (or key) holding a lone surrogate: it has no UTF-8 form to hash."""
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                raise InvalidBundle(f"{where}: a string holds the lone surrogate "
                                    f"\\u{ord(found.group()):04x}, which has no UTF-8 form")
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((key, f"{where} (a key)"))
                stack.append((child, f"{where}.{shown(key)[1:-1]}"))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{index}]") for index, child in enumerate(item))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise InvalidBundle(f"duplicate key {shown(key)} in an object")
            seen.add(key)
    return result


def _out_of_range(where: str, value: int) -> InvalidBundle:
    return InvalidBundle(f"{where}: integer {shown(value)} is out of range: integers must lie "
                         f"within +-{MAX_INT} (64-bit)")


def _free_form(value: Any, limit: int, where: str) -> None:
    """The free-form parts of an event (an action, the params) are bounded in depth, and their
    integers in range (a bundle's are not checked as they are parsed: see Bundle.from_bytes)."""
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(value, 1, ())]
    while stack:
        item, depth, path = stack.pop()
        if depth > limit:
            raise InvalidBundle(f"{where}: nested deeper than {limit} levels")
        if isinstance(item, dict):
            stack.extend((child, depth + 1, (*path, key)) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, depth + 1, (*path, index)) for index, child in enumerate(item))
        elif type(item) is int and not -MAX_INT <= item <= MAX_INT:
            at = "".join(f"[{step}]" if type(step) is int else f".{step}" for step in path)
            raise _out_of_range(where + at, item)


def parse_json(data: bytes | str, max_bytes: int = MAX_BUNDLE_BYTES) -> Any:
    """Strict JSON: UTF-8, no floats, no NaN, no duplicate keys, bounded size and depth, every
    integer within +-MAX_INT."""
    return _parse(data, max_bytes, bounded=True)


def _parse(data: bytes | str, max_bytes: int, bounded: bool) -> Any:
    """``parse_json``; unless ``bounded``, integers are converted by json itself, whose only
    guard is Python's 4,300 digits (a ValueError past them). orjson parses first where it can
    prove it gives the same value (jsonfast); the pure parser decides everything else."""
    if len(data) > max_bytes:
        # (a reader may stop one byte past the limit: say "larger", not a size it never saw)
        raise InvalidBundle(f"file is larger than the {max_bytes} bytes "
                            f"({max_bytes / 2**20:g} MiB) allowed")
    if jsonfast.ENABLED:
        value = jsonfast.loads(data, bounded)
        if value is not jsonfast.UNPROVEN:
            return value
    return _parse_pure(data, _bounded_int if bounded else None)


def _parse_pure(data: bytes | str, parse_int: Callable[[str], int] | None) -> Any:
    """The parser that decides: json with hooks that refuse, and messages that name why."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as bad_text:
            raise InvalidBundle(f"file is not UTF-8 text (byte {bad_text.start})") from None
    else:
        text = data
    if not text.strip():
        raise InvalidBundle("file is empty")
    try:
        value = json.loads(
            text,
            parse_float=_reject_float,
            parse_int=parse_int,
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_keys,
        )
    except json.JSONDecodeError as e:
        hint = " (the file looks truncated)" if e.pos >= len(text.rstrip()) else ""
        raise InvalidBundle(
            f"not valid JSON at line {e.lineno} column {e.colno}: {e.msg}{hint}"
        ) from None
    except RecursionError:
        raise InvalidBundle("JSON nested too deeply to be a bundle") from None
    if _SURROGATE_ESCAPE.search(text) or (isinstance(data, str) and _SURROGATE.search(text)):
        _surrogates(value)
    return value


# --- field checks: each returns nothing and raises InvalidBundle naming the field -----------

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _need(event: Mapping[str, Any], where: str, key: str) -> Any:
    if key not in event:
        raise InvalidBundle(f"{where}: missing field {key!r}")
    return event[key]


def _int(where: str, value: Any, minimum: int = 0) -> None:
    if _is_int(value) and value > MAX_INT:
        raise _out_of_range(where, value)
    if not _is_int(value) or value < minimum:
        raise InvalidBundle(f"{where}: expected an integer >= {minimum}, got {shown(value)}")


def _pattern(where: str, value: Any, pattern: re.Pattern[str], what: str) -> None:
    if not isinstance(value, str) or not pattern.match(value):
        raise InvalidBundle(f"{where}: expected {what}, got {shown(value)}")


def _text(where: str, value: Any, longest: int = 200) -> None:
    if not isinstance(value, str) or not value or len(value) > longest:
        raise InvalidBundle(f"{where}: expected a non-empty string of at most {longest} "
                            f"characters, got {shown(value)}")


def _genesis(event: Mapping[str, Any], where: str) -> None:
    protocol = _need(event, where, "protocol")
    if not isinstance(protocol, str) or protocol not in PROTOCOLS:
        raise InvalidBundle(f"{where}.protocol: this verifier speaks "
                            f"{' and '.join(map(repr, PROTOCOLS))}, the file says "
                            f"{shown(protocol)}")
    if protocol == PROTOCOL_V2:
        _int(f"{where}.seating_ms", _need(event, where, "seating_ms"), 1)
    _pattern(f"{where}.match_id", _need(event, where, "match_id"), _MATCH_ID,
             "1-64 letters, digits, '_' or '-'")
    _text(f"{where}.game", _need(event, where, "game"), 40)
    _text(f"{where}.rules_version", _need(event, where, "rules_version"), 40)
    _pattern(f"{where}.rules_hash", _need(event, where, "rules_hash"), _HEX64, "64 hex digits")
    if not isinstance(_need(event, where, "params"), dict):
        raise InvalidBundle(f"{where}.params: expected an object, got {shown(event['params'])}")
    _free_form(event["params"], MAX_DEPTH, f"{where}.params")
    limit = _need(event, where, "turn_limit_ms")
    if limit is not None:
        _int(f"{where}.turn_limit_ms", limit, 1)
    seats = _need(event, where, "seats")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 8:
        raise InvalidBundle(f"{where}.seats: expected a list of 2 to 8 seats, got {shown(seats)}")
    for index, seat in enumerate(seats):
        if not isinstance(seat, dict) or set(seat) != {"name"}:
            raise InvalidBundle(f"{where}.seats[{index}]: expected {{\"name\": ...}}, "
                                f"got {shown(seat)}")
        _text(f"{where}.seats[{index}].name", seat["name"], 80)
    _pattern(f"{where}.server_key_id", _need(event, where, "server_key_id"), _HEX16,
             "16 hex digits")
    _pattern(f"{where}.commitment", _need(event, where, "commitment"), _HEX64, "64 hex digits")


def _seat(event: Mapping[str, Any], where: str) -> None:
    _int(f"{where}.seat", _need(event, where, "seat"))


def _seat_key(event: Mapping[str, Any], where: str) -> None:
    _seat(event, where)
    _pattern(f"{where}.public_key", _need(event, where, "public_key"), _KEY,
             "'ed25519:' and 64 hex digits")


def _signed(event: Mapping[str, Any], where: str) -> None:
    if "sig" in event:
        _pattern(f"{where}.sig", event["sig"], _HEX128, "128 hex digits")
    if "client_ts" in event:
        _int(f"{where}.client_ts", event["client_ts"])


def _client_seed(event: Mapping[str, Any], where: str) -> None:
    _seat(event, where)
    seed = _need(event, where, "client_seed")
    if seed is not None:
        _pattern(f"{where}.client_seed", seed, _HEX64, "64 hex digits or null")
    _signed(event, where)


def _seed_commit(event: Mapping[str, Any], where: str) -> None:
    _seat(event, where)
    _pattern(f"{where}.commitment", _need(event, where, "commitment"), _HEX64,
             "64 hex digits")
    _signed(event, where)


def _seed_reveal(event: Mapping[str, Any], where: str) -> None:
    _seat(event, where)
    _pattern(f"{where}.client_seed", _need(event, where, "client_seed"), _HEX64,
             "64 hex digits")
    _signed(event, where)


def _move(event: Mapping[str, Any], where: str) -> None:
    _seat(event, where)
    _free_form(_need(event, where, "action"), MAX_DEPTH, f"{where}.action")
    if "action_id" in event:
        _text(f"{where}.action_id", event["action_id"], 100)
    _signed(event, where)


def _resign(event: Mapping[str, Any], where: str) -> None:
    _seat(event, where)
    _signed(event, where)


def _reveal(event: Mapping[str, Any], where: str) -> None:
    _pattern(f"{where}.server_seed", _need(event, where, "server_seed"), _HEX64,
             "64 hex digits")
    result = _need(event, where, "result")
    if not isinstance(result, dict) or set(result) != {"winner", "reason"}:
        raise InvalidBundle(f"{where}.result: expected {{\"winner\", \"reason\"}}, "
                            f"got {shown(result)}")
    if result["winner"] is not None:
        _int(f"{where}.result.winner", result["winner"])
    _text(f"{where}.result.reason", result["reason"], 40)


_COMMON: Final = {"seq", "prev", "type", "ts"}
_Fields = dict[str, tuple[set[str], Callable[[Mapping[str, Any], str], None]]]
_GENESIS_V1: Final = {"protocol", "match_id", "game", "rules_version", "rules_hash", "params",
               "turn_limit_ms", "seats", "server_key_id", "commitment"}
#: each protocol's event types: the fields each may carry, and their check
_FIELDS: Final[dict[str, _Fields]] = {
    PROTOCOL_V1: {
        "genesis": (_GENESIS_V1, _genesis),
        "seat_key": ({"seat", "public_key"}, _seat_key),
        "client_seed": ({"seat", "client_seed"}, _client_seed),
        "move": ({"seat", "action", "action_id", "sig"}, _move),
        "timeout": ({"seat"}, _seat),
        "resign": ({"seat", "sig"}, _resign),
        "reveal": ({"server_seed", "result"}, _reveal),
    },
    PROTOCOL_V2: {
        "genesis": (_GENESIS_V1 | {"seating_ms"}, _genesis),
        "seat_key": ({"seat", "public_key"}, _seat_key),
        "seed_commit": ({"seat", "commitment", "sig"}, _seed_commit),
        "client_seed": ({"seat", "client_seed", "sig"}, _client_seed),
        "seed_expired": ({"seat"}, _seat),
        "seed_reveal": ({"seat", "client_seed", "sig"}, _seed_reveal),
        "seed_forfeit": ({"seat"}, _seat),
        "move": ({"seat", "action", "action_id", "client_ts", "sig"}, _move),
        "timeout": ({"seat"}, _seat),
        "resign": ({"seat", "client_ts", "sig"}, _resign),
        "reveal": ({"server_seed", "result"}, _reveal),
    },
}
assert all(set(_FIELDS[version]) == set(PROTOCOLS[version]) for version in PROTOCOLS)


_MOVE_KEYS: Final = frozenset({"seq", "prev", "type", "ts", "seat", "action"})
#: the optional fields of a move: fairdeal/2 adds the player's own clock
_MOVE_OPTIONAL: Final = {PROTOCOL_V1: _MOVE_KEYS | {"action_id", "sig"},
                         PROTOCOL_V2: _MOVE_KEYS | {"action_id", "client_ts", "sig"}}


def _plainly_valid(event: Any, protocol: str) -> bool:
    """True for a move or timeout that is certainly well formed (most of every bundle), checked
    inline; anything else, or anything unusual, goes through the full checks, which also word
    the error. ``type(x) is int`` admits no bool, as ``_is_int`` does not.

    Written for the compiled build, which runs it for nearly every event: each value is
    narrowed to its type (``type(x) is dict``, ``isinstance(kind, str)``) before it is used,
    so the C code works on a dict or a str rather than through Python's generic operations,
    and a key set is compared as its size and its members (the same test as ``keys() ==``)."""
    if type(event) is not dict:
        return False
    kind = event.get("type")
    if not isinstance(kind, str):
        return False
    if kind == "move":
        if len(event) == 6:
            if not ("seq" in event and "prev" in event and "type" in event and "ts" in event
                    and "seat" in event and "action" in event):
                return False
        else:
            keys = event.keys()
            if not _MOVE_KEYS <= keys <= _MOVE_OPTIONAL[protocol]:
                return False
            if "client_ts" in event:
                client_ts = event["client_ts"]
                if type(client_ts) is not int or not 0 <= client_ts <= MAX_INT:
                    return False
            sig = event.get("sig")
            if sig is not None and not (type(sig) is str and _HEX128.match(sig)):
                return False
            if "sig" in event and sig is None:
                return False
            if "action_id" in event:
                action_id = event["action_id"]
                if type(action_id) is not str or not 0 < len(action_id) <= 100:
                    return False
        action = event["action"]
        if type(action) is dict:
            for value in action.values():
                kind_of_value = type(value)
                if kind_of_value is dict or kind_of_value is list or (
                        kind_of_value is int and not -MAX_INT <= value <= MAX_INT):
                    return False
        elif type(action) is list or (type(action) is int
                                      and not -MAX_INT <= action <= MAX_INT):
            return False
    elif kind == "timeout":
        if not (len(event) == 5 and "seq" in event and "prev" in event and "type" in event
                and "ts" in event and "seat" in event):
            return False
    else:
        return False
    seq, ts, seat, prev = event["seq"], event["ts"], event["seat"], event["prev"]
    return (type(seq) is int and 0 <= seq <= MAX_INT and type(ts) is int and 0 <= ts <= MAX_INT
            and type(seat) is int and 0 <= seat <= MAX_INT
            and type(prev) is str and _HEX64.match(prev) is not None)


def validate_event(event: Any, where: str, protocol: str | None = None) -> None:
    """Check one event's shape (not its meaning); raise InvalidBundle naming the field.

    ``protocol`` is the match's (its genesis's ``protocol``); a genesis names its own."""
    if protocol is not None and protocol in _MOVE_OPTIONAL and _plainly_valid(event, protocol):
        return
    if not isinstance(event, dict):
        raise InvalidBundle(f"{where}: expected an event object, got {type(event).__name__}")
    _int(f"{where}.seq", _need(event, where, "seq"))
    _pattern(f"{where}.prev", _need(event, where, "prev"), _HEX64, "64 hex digits")
    _int(f"{where}.ts", _need(event, where, "ts"))
    kind = _need(event, where, "type")
    if kind == "genesis" and protocol is None:
        stated = event.get("protocol")
        protocol = stated if isinstance(stated, str) and stated in PROTOCOLS else PROTOCOL_V2
    if protocol is None:
        raise ValueError("validate_event needs the match's protocol for a non-genesis event")
    fields = _FIELDS[protocol]
    if not isinstance(kind, str) or kind not in fields:
        raise InvalidBundle(f"{where}.type: unknown event type {shown(kind)} in a {protocol} "
                            f"match (known: {', '.join(PROTOCOLS[protocol])})")
    allowed, check = fields[kind]
    extra = set(event) - _COMMON - allowed
    if extra:
        raise InvalidBundle(f"{where}: unexpected field {shown(sorted(extra)[0])} in a {kind} "
                            "event")
    check(event, where)


@dataclass(frozen=True)
class Bundle:
    """A parsed, well-formed bundle. Its meaning is checked by verifier.verify."""

    events: list[dict[str, Any]]
    server_key: str
    signature: str
    #: the transparency log's inclusion proofs, {"genesis"|"seal": tlog-proof text}; optional
    log: dict[str, str] | None = None

    @property
    def genesis(self) -> dict[str, Any]:
        return self.events[0]

    @property
    def match_id(self) -> str:
        match_id: str = self.events[0]["match_id"]
        return match_id

    @classmethod
    def from_bytes(cls, data: bytes | str) -> Bundle:
        """Parse and validate. The integers are range-checked where validation meets them (each
        sits in a field it checks, or in an action or the params, which it walks), not one
        call each as json converts them: that check was a third of a bundle's parsing time."""
        try:
            value = _parse(data, MAX_BUNDLE_BYTES, bounded=False)
        except InvalidBundle:
            raise
        except ValueError:  # past Python's 4,300 digits: parse_json names the integer
            value = parse_json(data)
        return cls.from_json(value)

    @classmethod
    def from_json(cls, data: Any) -> Bundle:
        if not isinstance(data, dict):
            raise InvalidBundle(f"a bundle is a JSON object, got {type(data).__name__}")
        fmt = data.get("format")
        if fmt != BUNDLE_FORMAT:
            raise InvalidBundle(f"format: expected {BUNDLE_FORMAT!r}, got {shown(fmt)}")
        extra = set(data) - {"format", "events", "signature", "log"}
        if extra:
            raise InvalidBundle(f"unexpected top-level field {shown(sorted(extra)[0])}")
        events = data.get("events")
        if not isinstance(events, list) or not events:
            raise InvalidBundle("events: expected a non-empty list of events")
        if len(events) > MAX_EVENTS:
            raise InvalidBundle(f"events: {len(events)} events, more than the {MAX_EVENTS} a "
                                "bundle may hold")
        first = events[0]
        if not isinstance(first, dict) or first.get("type") != "genesis":
            kind = first.get("type") if isinstance(first, dict) else type(first).__name__
            raise InvalidBundle(f"events[0].type: the first event must be the genesis, "
                                f"got {shown(kind)}")
        validate_event(first, "events[0]")
        protocol = first["protocol"]
        quick = protocol in _MOVE_OPTIONAL
        for index, event in enumerate(events[1:], start=1):
            if not (quick and _plainly_valid(event, protocol)):  # only a check names its place
                validate_event(event, f"events[{index}]", protocol)
        if events[-1]["type"] != "reveal":
            raise InvalidBundle(f"events[{len(events) - 1}].type: the last event of a sealed "
                                f"match must be the reveal, got {shown(events[-1]['type'])} "
                                "(the log is truncated or the match is not over)")
        signature = data.get("signature")
        if not isinstance(signature, dict) or set(signature) != {"key", "sig"}:
            raise InvalidBundle('signature: expected {"key": ..., "sig": ...}')
        _pattern("signature.key", signature["key"], _KEY, "'ed25519:' and 64 hex digits")
        _pattern("signature.sig", signature["sig"], _HEX128, "128 hex digits")
        log = data.get("log")
        if log is not None and (not isinstance(log, dict) or not log
                                or not set(log) <= {"genesis", "seal"}
                                or not all(isinstance(v, str) and len(v) < 65536
                                           for v in log.values())):
            raise InvalidBundle('log: expected {"genesis": <tlog proof>, "seal": <tlog proof>}')
        return cls(events=events, server_key=signature["key"], signature=signature["sig"],
                   log=log)

    def to_json(self) -> dict[str, Any]:
        value: dict[str, Any] = {
            "format": BUNDLE_FORMAT,
            "events": self.events,
            "signature": {"key": self.server_key, "sig": self.signature},
        }
        if self.log is not None:
            value["log"] = self.log
        return value
