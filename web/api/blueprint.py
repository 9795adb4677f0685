"""The API's Blueprint, in a module of its own: the handler and route modules register on it by
importing it from here, and web/api/__init__.py imports them, so no route module imports the
package that imports it."""

from __future__ import annotations

from flask import Blueprint

__all__ = ["bp"]

#: named after the package, as before the move (its import name and root path)
bp = Blueprint("api", __name__.rpartition(".")[0], url_prefix="/api/v1")
