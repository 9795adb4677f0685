"""What a player keeps of a match and how it checks the server's answers: the signed receipt
for every write (``ReceiptBook``), and the match ids and views a server names.

A server is not trusted: every answer is compared with what this client sent, every receipt's
signature checked on arrival, and every match id checked for its shape before it goes into a
URL path or a file name. A contradiction raises ``TamperDetected``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fairdeal.verifier.protocol import event_hash
from fairdeal.verifier.receipts import RECEIPTS_FORMAT, InvalidReceipts, Receipt, parse_receipts

__all__ = ["MATCH_ID", "ReceiptBook", "TamperDetected", "checked_match_id", "same_match"]

#: the match ids a fairdeal server hands out (``Ledger.create_match``: ``secrets.token_hex(8)``,
#: sixteen lowercase hex digits). The client checks every id a server names against it before
#: it puts the id in a URL path or a file name: a server is not trusted to say where a client
#: writes ("../x", "/some/absolute/path")
MATCH_ID = re.compile(r"[0-9a-f]{16}\Z")


class TamperDetected(Exception):
    """The server's answer contradicts what this client sent, or its own signed receipts."""


def checked_match_id(value: Any) -> str:
    """``value`` if it is a well-formed match id (MATCH_ID); TamperDetected otherwise."""
    if not isinstance(value, str) or not MATCH_ID.match(value):
        raise TamperDetected(f"the server named the match {_shown(value)}, which is not a match id "
                             "(16 hex digits): refused before using it in a request or a file "
                             "name")
    return value


def same_match(value: Any, match_id: str, what: str) -> None:
    """TamperDetected unless the answer ``value`` (a view: ``{"id", …}``) names ``match_id``."""
    named = value.get("id") if isinstance(value, dict) else None
    if named != match_id:
        raise TamperDetected(f"the server answered the {what} of match {match_id} with "
                             f"match {_shown(named)}")


def _shown(value: Any) -> str:
    """A server's value as an error message quotes it: its repr, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class ReceiptBook:
    """What one client keeps of a match: the server's signed receipt for every write it made,
    each checked on arrival against the event the client sent.

    ``check(answer, sent)`` refuses (TamperDetected) an answer whose stored event differs from
    what was sent in any field the client chose, whose receipt is not the server's signature
    over that very event, or whose receipt (or view) is for another match than this book's
    ``match_id`` (without one, the match of the first receipt: a book is one match's)."""

    def __init__(self, server_key: str | None, match_id: str | None = None) -> None:
        self.server_key = server_key
        self.match_id = match_id
        self.receipts: list[dict[str, Any]] = []
        #: the same receipts parsed, their signatures checked (the end-of-match verification
        #: takes these, and does not check a signature twice)
        self.parsed: list[Receipt] = []

    def check(self, answer: dict[str, Any], sent: dict[str, Any]) -> None:
        event = answer.get("event")
        receipt = answer.get("receipt")
        if not isinstance(event, dict) or not isinstance(receipt, dict):
            raise TamperDetected("the server's answer carries no event or no receipt")
        for name, value in sent.items():
            if event.get(name) != value:
                raise TamperDetected(
                    f"the server stored {name}={event.get(name)!r} in event "
                    f"{event.get('seq')}, but this client sent {value!r}")
        try:
            # compact, as orjson would write it: the parser's fast path then proves its value
            # (with json's spacing every receipt went to the pure parser)
            parsed = parse_receipts(json.dumps([receipt], separators=(",", ":")))[0]
        except InvalidReceipts as e:
            raise TamperDetected(f"the server's receipt is malformed: {e}") from None
        if self.server_key is not None and parsed.key != self.server_key:
            raise TamperDetected(f"the receipt is signed by {parsed.key}, not by the server "
                                 f"key {self.server_key}")
        if not parsed.signature_valid():
            raise TamperDetected("the server's receipt does not carry a valid signature")
        if self.match_id is None:
            self.match_id = parsed.match_id
        if parsed.match_id != self.match_id:
            raise TamperDetected(f"the server's receipt for event {parsed.seq} is for match "
                                 f"{parsed.match_id}, not for match {self.match_id}, the one "
                                 "this client is playing")
        if "view" in answer:
            same_match(answer["view"], self.match_id, f"write of event {parsed.seq}")
        if parsed.seq != event.get("seq") or parsed.event != event_hash(event):
            raise TamperDetected(f"the receipt names event {parsed.seq} with hash "
                                 f"{parsed.event[:16]}…, not the event the server answered")
        self.receipts.append(receipt)
        self.parsed.append(parsed)

    def to_json(self, match_id: str, seat_keys: list[str]) -> dict[str, Any]:
        """What ``fairdeal play --receipts`` writes, and ``fairdeal verify --receipts`` reads."""
        return {"format": RECEIPTS_FORMAT, "match_id": match_id,
                "server_key": self.server_key, "seat_keys": seat_keys,
                "receipts": self.receipts}
