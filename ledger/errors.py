"""The ledger's own errors. Each says what went wrong: its type (a bad request, a refusal by the
rules, a conflict with another writer...), a stable ``code`` the JSON API returns as is, and a
message a person can act on. None says which HTTP status to answer: web/api/errors.py maps each
type to its status in one table. None of them ever carries a secret (the server seed, a hand, the
deck order): messages name matches, seats, sequence numbers and the rules' reasons only.
"""

from __future__ import annotations

__all__ = [
    "BadRequest",
    "ConflictError",
    "Forbidden",
    "KeyNotFound",
    "LedgerError",
    "MatchNotFound",
    "NotEnded",
    "Refused",
    "Unauthorized",
]


class LedgerError(Exception):
    """Base of every error the ledger raises on purpose."""

    code = "ledger-error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class BadRequest(LedgerError, ValueError):
    """The request is malformed: a missing or mistyped field, bad hex, an unknown game."""

    code = "bad-request"


class Unauthorized(LedgerError):
    """No seat token was given where one is needed."""

    code = "unauthorized"


class Forbidden(LedgerError):
    """A token was given but it is not a seat of this match (or not the acting seat)."""

    code = "forbidden"


class MatchNotFound(LedgerError, LookupError):
    """No match under that id."""

    code = "not-found"


class KeyNotFound(LedgerError, LookupError):
    """No match here was signed by a seat key with that id (or id prefix)."""

    code = "key-not-found"


class ConflictError(LedgerError):
    """Another writer appended first: the expected position is no longer the head.

    The store raises it (translated from the driver's integrity error) when the (match, seq)
    slot is already taken; the service raises it when ``expected_seq`` is stale.
    """

    code = "conflict"

    def __init__(self, message: str, code: str | None = None,
                 next_seq: int | None = None) -> None:
        super().__init__(message, code)
        self.next_seq = next_seq


class NotEnded(LedgerError):
    """The match is not over yet, so there is no sealed bundle."""

    code = "not-ended"


class Refused(LedgerError):
    """The rules or the protocol refuse the event: an illegal move, a seed after the deal,
    a move out of turn. Nothing was stored."""

    code = "refused"
