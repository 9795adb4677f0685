"""Every API error is JSON: ``{"error": {"code": <stable code>, "message": <for people>}}``."""

from __future__ import annotations

import logging
from typing import Any

from flask import Response, jsonify
from werkzeug.exceptions import HTTPException

from fairdeal.ledger.errors import (
    BadRequest,
    ConflictError,
    Forbidden,
    KeyNotFound,
    LedgerError,
    MatchNotFound,
    NotEnded,
    Refused,
    Unauthorized,
)

from .. import faults
from .blueprint import bp
from .body import BodyTooLarge

log = logging.getLogger("fairdeal.web.api")

# a database that is away is a 503 with Retry-After, not the catch-all's 500
faults.init_blueprint(bp)


#: the HTTP status of each kind of ledger error, the one place web/ decides it; an error is
#: answered with the status of the first of its classes (most specific first) found here, and
#: a LedgerError of no kind listed (the log refusing to sign, say) is the server's fault
STATUSES: dict[type[LedgerError], int] = {
    BadRequest: 400,
    Unauthorized: 401,
    Forbidden: 403,
    MatchNotFound: 404,
    KeyNotFound: 404,
    ConflictError: 409,
    NotEnded: 409,
    BodyTooLarge: 413,
    Refused: 422,
}


def status_for(error: LedgerError) -> int:
    """The HTTP status that answers ``error`` (``STATUSES``; 500 for any other kind)."""
    for kind in type(error).__mro__:
        status = STATUSES.get(kind)
        if status is not None:
            return status
    return 500


def error_response(status: int, code: str, message: str, **extra: Any) -> Response:
    """A JSON error with a stable ``code`` and a human ``message``."""
    response = jsonify({"error": {"code": code, "message": message, **extra}})
    response.status_code = status
    return response


@bp.errorhandler(LedgerError)
def _ledger_error(error: LedgerError) -> Response:
    extra: dict[str, Any] = {}
    if isinstance(error, ConflictError) and error.next_seq is not None:
        extra["next_seq"] = error.next_seq
    return error_response(status_for(error), error.code, error.message, **extra)


# by code too: an app-wide 404 handler (the viewer's, for paths no route answers) would
# otherwise come first, as Flask looks handlers up by code before it looks them up by class
@bp.errorhandler(404)
@bp.errorhandler(HTTPException)
def _http_error(error: HTTPException) -> Response:
    code = {400: "bad-request", 404: "not-found", 405: "method-not-allowed",
            413: "body-too-large", 415: "unsupported-media-type"}.get(error.code or 500,
                                                                       "http-error")
    return error_response(error.code or 500, code, error.description or code)


@bp.errorhandler(Exception)
def _unexpected(error: Exception) -> Response:
    # the message and traceback may hold anything: log the type only, answer generically
    log.error("unexpected %s in an API request", type(error).__name__)
    return error_response(500, "internal-error", "the server failed to handle this request")
