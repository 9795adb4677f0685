"""The JSON API, versioned under /api/v1: live matches, their events and bundles, imports and
the server's keys. Thin views over ``fairdeal.ledger.service.Ledger``; documented by the
OpenAPI document it serves at /api/v1/openapi.json."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")

from . import errors, log, routes  # noqa: E402,F401  (registers the handlers and routes on bp)
