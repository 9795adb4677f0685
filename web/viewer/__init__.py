"""The HTML viewer: step through any match, see it verified, share a link to any moment."""

from __future__ import annotations

from . import audit, browser, players, replay_gif, upload, views  # noqa: F401  (they register the routes)
from .blueprint import bp

__all__ = ["bp"]
