"""The viewer's Blueprint, in a module of its own: the route modules register on it by importing
it from here, and web/viewer/__init__.py imports them, so no route module imports the package
that imports it (the layout click's and Flask's own CLIs use)."""

from __future__ import annotations

from flask import Blueprint

__all__ = ["bp"]

#: named after the package, as before the move: Flask finds templates/ and static/ from it
bp = Blueprint("viewer", __name__.rpartition(".")[0], template_folder="templates",
               static_folder="static", static_url_path="/static/viewer")
