"""The HTML viewer: step through any match, see it verified, share a link to any moment."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("viewer", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static/viewer")

from . import audit, browser, replay_gif, upload, views  # noqa: E402,F401  (they register the routes)
