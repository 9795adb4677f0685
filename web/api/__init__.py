"""The JSON API, versioned under /api/v1: live matches, their events and bundles, imports and
the server's keys. Thin views over ``fairdeal.ledger.service.Ledger``; documented by the
OpenAPI document it serves at /api/v1/openapi.json."""

from __future__ import annotations

from . import errors, log, players, routes, stream, tournaments  # noqa: F401  (they register the handlers and routes on bp)
from .blueprint import bp

__all__ = ["bp"]
