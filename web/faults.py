"""When the database is away — a PostgreSQL restart, a full disk under the SQLite file, a
lock held too long — every request that needs it answers 503 with ``Retry-After`` instead of
a 500, and the server recovers by itself when the database is back: the ledger drops the
cached match of a failed write (it reloads from the database), and the pool replaces the
broken connections.

An acknowledged move is never lost: the move is acknowledged only after its transaction
committed. A 503 says the write may or may not have been stored (the commit's answer may be
what was lost); a retry with the same ``action_id`` is safe either way (idempotent).
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from fairdeal.ledger.storeerrors import StoreBusy, StoreFull, StoreUnavailable

__all__ = ["RETRY_AFTER_S", "UNAVAILABLE", "init_app", "init_blueprint", "unavailable"]

log = logging.getLogger("fairdeal.web")

#: what a client should wait before retrying
RETRY_AFTER_S = 1

#: the errors that mean "the database is not there now", not "this request is wrong": the
#: store's own (ledger.storeerrors), whichever driver it runs on
UNAVAILABLE: tuple[type[StoreUnavailable], ...] = (StoreUnavailable,)
#: why, in the answer's words (the store's finer kinds, most specific first)
_REASONS: tuple[tuple[type[StoreUnavailable], str], ...] = (
    (StoreFull, "its disk is full"), (StoreBusy, "it is busy"))


def _reason(error: StoreUnavailable) -> str:
    for kind, reason in _REASONS:
        if isinstance(error, kind):
            return reason
    return "it cannot be reached"


def unavailable(error: StoreUnavailable) -> Any:
    """The 503 answer: JSON for the API, a page for the viewer."""
    # the driver's message may quote a statement: log the types only (never parameters)
    log.error("database unavailable (%s, %s) during %s %s", error.error_type,
              error.driver_error_type, request.method, request.path)
    message = (f"the database is unavailable ({_reason(error)}); retry in {RETRY_AFTER_S} s. "
               "A write may or may not have been stored: retrying it with the same action_id "
               "is safe")
    if request.path.startswith("/api/"):
        response = jsonify({"error": {"code": "database-unavailable", "message": message,
                                      "retry_after": RETRY_AFTER_S}})
        response.status_code = 503
    else:
        response = Response(render_template("viewer/error.html", status=503,
                                            heading="Try again in a moment", message=message),
                            status=503)
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


def init_app(app: Flask) -> None:
    """The 503 handler, app-wide and on the API (whose catch-all would otherwise answer 500)."""
    for error in UNAVAILABLE:
        app.register_error_handler(error, unavailable)


def init_blueprint(bp: Any) -> None:
    """A blueprint's own handlers come first: register the 503 on it too."""
    for error in UNAVAILABLE:
        bp.register_error_handler(error, unavailable)
