"""Players by the key they sign with: a seat key's matches, its record, and the search.

A seat name is free text — anyone can sit down as "ann" — so a page or an audit by name proves
little. A seat key is an identity nobody else can use: a key id (``verifier.keys.key_id``, 16
hex digits) names it everywhere — the pages ``/k/<key id>``, the API, the CLI. Where a person
types it a prefix of at least 4 digits is enough when only one key here starts with it; a full
public key (``ed25519:<64 hex>``) is accepted too. Names are shown beside the key, never
instead of it.

    pages = KeyPages(store, summary)
    pages.key_matches("3f2a9c")    # {"key_id", "public_key", "names", "record", "matches", …}
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from fairdeal.verifier.keys import InvalidKey, key_id, parse_public_key

from .errors import BadRequest, KeyNotFound
from .seatkeys import KEY_ID_DIGITS
from .store import EventStore

__all__ = ["MIN_PREFIX", "KeyPages", "decode_cursor", "encode_cursor", "key_outcome",
           "normal_key_id"]

#: the shortest key-id (or match-id) prefix a search accepts: 4 hex digits, 65,536 values
MIN_PREFIX = 4
_HEX = re.compile(r"[0-9a-f]+\Z")
_INT64_MAX = 2**63 - 1
_CURSOR = re.compile(r"(\d{1,19})\.([A-Za-z0-9_-]{1,64})\Z")
#: one page of a key's matches at most
MAX_LIMIT = 500
#: a search pages this far at most
MAX_SEARCH_OFFSET = 10**6
_COLUMN = {"win": "wins", "loss": "losses", "draw": "draws"}


def normal_key_id(text: Any) -> str:
    """The lowercase key id (or prefix of one) a person typed, or the id of a full public key
    (``ed25519:<64 hex>``); BadRequest (``invalid-key-id``) for anything else."""
    if not isinstance(text, str):
        raise BadRequest("a key id must be text", code="invalid-key-id")
    value = text.strip()
    if value.lower().startswith("ed25519:"):
        try:
            return key_id(parse_public_key(value[:8].lower() + value[8:].lower()))
        except InvalidKey as e:
            raise BadRequest(str(e), code="invalid-key-id") from None
    value = value.lower()
    if not (MIN_PREFIX <= len(value) <= KEY_ID_DIGITS and _HEX.match(value)):
        raise BadRequest(f"a key id is {MIN_PREFIX} to {KEY_ID_DIGITS} hex digits (the start of "
                         f"one will do), or a public key 'ed25519:<64 hex digits>'; got "
                         f"{text[:80]!r}", code="invalid-key-id")
    return value


def encode_cursor(row: Mapping[str, Any]) -> str:
    """The cursor that continues a listing after ``row``: ``<created_ms>.<match id>``."""
    return f"{row['created_ms']}.{row['id']}"


def decode_cursor(text: str | None) -> tuple[int, str] | None:
    """``(created_ms, match id)`` of a cursor; BadRequest (``invalid-cursor``) if malformed."""
    if text is None or text == "":
        return None
    found = _CURSOR.match(text) if isinstance(text, str) else None
    if found is None or int(found.group(1)) > _INT64_MAX:
        raise BadRequest("cursor must be the next_cursor of an earlier page "
                         "('<created_ms>.<match id>')", code="invalid-cursor")
    return int(found.group(1)), found.group(2)


def key_outcome(result: Mapping[str, Any] | None, seats: list[int]) -> str | None:
    """``"win"``, ``"loss"`` or ``"draw"`` for the seats a key held; None while in play. A key
    at both seats of one match (a player against itself) has a ``"draw"`` whatever the result:
    it neither won nor lost against anyone."""
    if not result:
        return None
    winner = result.get("winner")
    if winner is None or len(set(seats)) > 1:
        return "draw"
    return "win" if winner in seats else "loss"


def _result(text: str | None) -> dict[str, Any] | None:
    value: dict[str, Any] | None = json.loads(text) if text else None
    return value


def _bump(record: dict[str, dict[str, int]], game: str, column: str, n: int) -> None:
    counts = record.setdefault(game, {"wins": 0, "losses": 0, "draws": 0, "unfinished": 0})
    counts[column] += n


class KeyPages:
    """What the key pages, the key API and ``fairdeal matches --seat-key`` read.

    ``summary`` turns a match row into the listing's summary (``ReadSide._summary``)."""

    def __init__(self, store: EventStore,
                 summary: Callable[[Mapping[str, Any]], dict[str, Any]]) -> None:
        self.store = store
        self.summary = summary

    def resolve(self, text: Any) -> str:
        """The one key id here that ``text`` names (a key id, a prefix, a public key):
        BadRequest when malformed or when several keys start with it (``ambiguous-key-id``,
        naming them), KeyNotFound when no seat key here does."""
        wanted = normal_key_id(text)
        found = self.store.key_ids(wanted, limit=6)
        if not found:
            raise KeyNotFound(f"no match on this server was signed by a seat key whose id "
                              f"starts with {wanted!r}")
        if len(found) > 1:
            listed = ", ".join(found[:5]) + (", …" if len(found) > 5 else "")
            raise BadRequest(f"{len(found) if len(found) <= 5 else 'more than 5'} seat keys "
                             f"here have ids starting with {wanted!r} ({listed}): type more "
                             "of the key id", code="ambiguous-key-id")
        return found[0]

    def key_matches(self, text: Any, limit: int = 50, cursor: str | None = None,
                    with_record: bool = True) -> dict[str, Any]:
        """A seat key's matches here, newest first, a page of ``limit`` from ``cursor``; with
        its public key, the names it sat under and (``with_record``) its record by game."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise BadRequest(f"limit must be 1 to {MAX_LIMIT}", code="invalid-query")
        before = decode_cursor(cursor)
        kid = self.resolve(text)
        rows = self.store.key_matches(kid, limit + 1, before)
        more = len(rows) > limit
        rows = rows[:limit]
        matches = []
        for row in rows:
            summary = self.summary(row)
            summary["key_seats"] = row["key_seats"]
            summary["key_result"] = key_outcome(summary["result"], row["key_seats"])
            matches.append(summary)
        answer: dict[str, Any] = {
            "key_id": kid, "public_keys": self.store.key_public_keys(kid),
            "matches": matches, "limit": limit, "cursor": cursor or None,
            "next_cursor": encode_cursor(rows[-1]) if more else None,
        }
        if with_record:
            answer.update(self.record(kid))
        return answer

    def record(self, kid: str) -> dict[str, Any]:
        """``{"total", "names", "record"}``: how many matches the key signed, the names it sat
        under (with how many matches each, most used first), and wins, losses, draws and
        unfinished matches by game (ended or imported matches count; the others are in play
        or were abandoned)."""
        counts = self.store.key_record_counts(kid)
        record: dict[str, dict[str, int]] = {}
        total = 0
        names: dict[str, int] = {}
        for game, seat, result, seat_names, n in counts["by_result"]:
            column = _COLUMN.get(key_outcome(_result(result), [seat]) or "", "unfinished")
            _bump(record, game, column, n)
            total += n
            listed = json.loads(seat_names)
            if 0 <= seat < len(listed):
                names[listed[seat]] = names.get(listed[seat], 0) + n
        # a match the key held both seats of was counted once per seat: it is one draw
        for game, result in counts["both_seats"]:
            for seat in (0, 1):
                column = _COLUMN.get(key_outcome(_result(result), [seat]) or "", "unfinished")
                _bump(record, game, column, -1)
            _bump(record, game, "draws" if result else "unfinished", 1)
            total -= 1
        return {"total": total,
                "names": [{"name": name, "seats": count} for name, count in
                          sorted(names.items(), key=lambda item: (-item[1], item[0]))],
                "record": dict(sorted(record.items()))}

    # --- the search ---------------------------------------------------------------------------

    def with_seat_keys(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Summaries of ``rows``, each with ``seat_key_ids``: the key id at each seat, None
        where the seat registered none."""
        keys = self.store.keys_of([row["id"] for row in rows])
        out = []
        for row in rows:
            summary = self.summary(row)
            found = keys.get(row["id"], {})
            summary["seat_key_ids"] = [found.get(seat) for seat in range(len(summary["seats"]))]
            out.append(summary)
        return out

    def search(self, text: str, limit: int = 20, offset: int = 0) -> dict[str, Any]:
        """One box, the server decides: ``text`` of at least 4 hex digits is the start of a
        match id or of a key id (both are looked up); anything else is a player's name,
        exactly (the matches with that name at a seat, newest first, each seat's key beside
        its name). A hex text that starts no id is looked up as a name too.

        ``{"query", "kind": "prefix"|"name", "keys", "matches", "has_more"}``; ``keys`` lists
        the seat keys found (their id, the names they sat under, how many matches);
        ``tried_prefix`` is there when a hex text started no id and was looked up as a name."""
        query = text.strip()
        if not query:
            raise BadRequest("type a match id, a key id or a player's name", code="invalid-query")
        if len(query) > 200:
            raise BadRequest("a search is at most 200 characters", code="invalid-query")
        answer: dict[str, Any] = {"query": query, "kind": "name", "keys": [], "matches": [],
                                  "has_more": False}
        if offset > MAX_SEARCH_OFFSET:  # past any result a person pages to
            return answer
        if len(query) >= MIN_PREFIX and _HEX.match(query.lower()):
            answer["kind"] = "prefix"
            if len(query) <= KEY_ID_DIGITS:
                for kid in self.store.key_ids(query.lower(), limit=limit):
                    found = self.record(kid)
                    answer["keys"].append({"key_id": kid, "names": found["names"],
                                           "total": found["total"]})
            rows = self.store.matches_with_id_prefix(query, offset + limit + 1)[offset:]
            answer["has_more"] = len(rows) > limit
            answer["matches"] = self.with_seat_keys(rows[:limit])
            if answer["keys"] or answer["matches"] or offset:
                return answer
            answer["kind"] = "name"
            answer["tried_prefix"] = True
        rows = self.store.matches_with_player(query, limit + 1, offset)
        answer["has_more"] = len(rows) > limit
        answer["matches"] = self.with_seat_keys(rows[:limit])
        return answer
