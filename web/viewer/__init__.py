"""The HTML viewer: step through any match, see it verified, share a link to any moment."""

from __future__ import annotations

from . import (  # noqa: F401  (they register the routes)
    audit,
    browser,
    players,
    replay_gif,
    tournaments,
    upload,
    views,
)
from .blueprint import bp

__all__ = ["bp"]
