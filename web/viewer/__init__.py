"""The HTML viewer: step through any match, see it verified, share a link to any moment.

The blueprint carries its routes once the modules that declare them are imported: ``routed()``
imports them and returns it, and ``bp`` here is that (``from fairdeal.web.viewer import bp``,
as web/app.py does). Importing one of the viewer's drawing modules on its own — the command
line's ``fairdeal gif`` reads ``animation`` — does not pull in the pages, the ledger and the
database layer behind them (about half a second of a command's start-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Blueprint

__all__ = ["bp", "routed"]


def routed() -> Blueprint:
    """The viewer's blueprint with every page's route on it."""
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

    return bp


def __getattr__(name: str) -> Any:
    if name == "bp":
        return routed()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
