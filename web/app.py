"""The Flask app factory: the JSON API (``/api/v1``) and the HTML viewer over one Ledger.

    gunicorn -w 4 --threads 40 -b 0.0.0.0:8000 'fairdeal.web.app:create_app()'

(a thread per open live stream: docs/ledger.md, "Live streams")

Configuration (``create_app(config)`` keys, or the environment):

- ``FAIRDEAL_DATA_DIR`` — the data folder (SQLite file, server key); env of the same name.
- ``FAIRDEAL_DATABASE_URL`` — a database URL overriding the SQLite file; env of the same name.
- ``FAIRDEAL_LEDGER`` — a ready ``Ledger`` (tests).
- ``FAIRDEAL_SWEEPER`` — run the timeout sweeper thread in this process (default True).
- ``FAIRDEAL_SWEEP_INTERVAL`` — seconds between sweeps (default 0.25).
- ``FAIRDEAL_RATE_LIMITS`` — ``off``, or ``create=60/60,upload=30/60,import=30/60`` (count per
  seconds, per client address; these are the defaults); env of the same name
  (see ``fairdeal.web.security``).
- ``FAIRDEAL_STREAMS_MAX``, ``FAIRDEAL_STREAMS_PER_CLIENT``, ``FAIRDEAL_STREAM_HEARTBEAT_S``,
  ``FAIRDEAL_STREAM_IDLE_S``, ``FAIRDEAL_STREAM_POLL_S`` — the live streams' bounds and timings
  (``fairdeal.web.api.stream``); env of the same names.
- env ``FAIRDEAL_LOG_ORIGIN`` — the transparency log's origin (default
  ``fairdeal.log/<server key id>``); env ``FAIRDEAL_LOG_WITNESSES`` — the witnesses' cosigner
  keys whose cosignatures the log keeps (docs/ledger.md, "The transparency log").

The ledger is ``app.extensions["fairdeal.ledger"]``; the viewer calls its methods
(see ``fairdeal.ledger.service.Ledger``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from inspect import iscoroutinefunction
from types import FunctionType
from typing import Any

import click
from flask import Flask

from fairdeal.ledger.service import Ledger

from .api.body import MAX_BUNDLE_BYTES
from .jsonanswers import FastJSONProvider

log = logging.getLogger("fairdeal.web")


#: how many functions FairdealFlask remembers as synchronous at most
_SYNC_REMEMBERED = 1_000


class FairdealFlask(Flask):
    """Flask, which asks of every hook and view it calls whether it is a coroutine function,
    three times a request (inspect's flags, a few microseconds each): the answer for a plain
    function is remembered here, as the function itself. Any other callable (a bound method,
    a partial, an ``async def`` one) is asked each time, as Flask does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synchronous: dict[FunctionType, bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if type(func) is FunctionType:
            known = self._synchronous.get(func)
            if known is None:
                known = not iscoroutinefunction(func)
                # the app's hooks and views, a few dozen; a closure made per request
                # (after_this_request) must not grow it without end
                if len(self._synchronous) < _SYNC_REMEMBERED:
                    self._synchronous[func] = known
            if known:
                return func
        return super().ensure_sync(func)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A configured app with the API and the viewer registered."""
    app = FairdealFlask(__name__)
    app.config.update(
        FAIRDEAL_DATA_DIR=os.environ.get("FAIRDEAL_DATA_DIR") or click.get_app_dir("fairdeal"),
        FAIRDEAL_DATABASE_URL=os.environ.get("FAIRDEAL_DATABASE_URL") or None,
        FAIRDEAL_SWEEPER=True,
        FAIRDEAL_SWEEP_INTERVAL=0.25,
        MAX_CONTENT_LENGTH=MAX_BUNDLE_BYTES + 1024,
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.update(config)
    ledger = app.config.get("FAIRDEAL_LEDGER")
    if ledger is None:
        ledger = Ledger.open(app.config["FAIRDEAL_DATA_DIR"], app.config["FAIRDEAL_DATABASE_URL"])
    # Flask 2.3 dropped the JSON_SORT_KEYS setting above: the provider's flag is what counts;
    # sorting every answer's keys is work no client needs (hashes use canonical JSON, not this).
    # The provider writes Flask's own bytes, by orjson where they are provably the same
    app.json = FastJSONProvider(app)
    app.json.sort_keys = False
    app.extensions["fairdeal.ledger"] = ledger
    if app.config["FAIRDEAL_SWEEPER"]:
        ledger.start_sweeper(float(app.config["FAIRDEAL_SWEEP_INTERVAL"]))
    # a worker forked from a preloaded app (gunicorn --preload) must not share the parent's
    # connections, and needs its own sweeper thread: threads do not survive fork
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=ledger.after_fork)

    from . import faults, security
    from .api import bp as api_bp
    from .api import stream

    security.init_app(app)
    stream.init_app(app)
    faults.init_app(app)
    app.register_blueprint(api_bp)
    try:
        from .viewer import bp as viewer_bp
    except ImportError as e:  # the viewer is optional for the API; say why it is missing
        log.warning("the HTML viewer is not available: %s", e)
    else:
        app.register_blueprint(viewer_bp)
    # last, so that it sees every hook and route it must not bypass
    from .api import fastpath

    fastpath.install(app)
    return app
