"""Every API error is JSON: ``{"error": {"code": <stable code>, "message": <for people>}}``."""

from __future__ import annotations

import logging
from typing import Any

from flask import Response, jsonify
from werkzeug.exceptions import HTTPException

from fairdeal.ledger.errors import ConflictError, LedgerError

from .. import faults
from .blueprint import bp

log = logging.getLogger("fairdeal.web.api")

# a database that is away is a 503 with Retry-After, not the catch-all's 500
faults.init_blueprint(bp)


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
    return error_response(error.status, error.code, error.message, **extra)


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
