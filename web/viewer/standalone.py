"""A Flask app with only the viewer, over bundles held in memory.

For tests, the benchmark and a quick look at a folder of bundles without a database::

    python -m fairdeal.web.viewer.standalone BUNDLE_DIR [--port 5000] [--key ed25519:HEX]

It holds no key of its own: a bundle is "verified" only when it is signed by a ``--key``
given; any other is labelled "signed by another server".

The project's real app (``fairdeal.web.app.create_app``) registers the same blueprint over the
ledger.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flask import Flask

from ..security import init_headers
from . import routed
from .sources import MemoryLedger

__all__ = ["create_viewer_app"]


def create_viewer_app(store: Any = None, config: dict[str, Any] | None = None) -> Flask:
    """A Flask app serving the viewer over ``store`` (a MemoryLedger by default)."""
    app = Flask("fairdeal.web.viewer.standalone")
    app.config.update(config or {})
    app.extensions["fairdeal.viewer.store"] = store if store is not None else MemoryLedger()
    app.register_blueprint(routed())
    init_headers(app)  # the viewer's pages get the same headers as under the full app
    return app


def load_folder(store: MemoryLedger, folder: Path) -> int:
    """Import every bundle in ``folder`` that verifies; return how many."""
    count = 0
    for path in sorted(folder.glob("*.json")):
        match_id, report = store.import_bundle(path.read_bytes())
        if match_id is None:
            print(f"skipped {path}: {report.failure}")
        else:
            count += 1
    return count


def main() -> None:  # pragma: no cover - a developer's entry point
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--key", action="append", default=[],
                        help="a public key (ed25519:<hex>) to count as this viewer's own")
    args = parser.parse_args()
    store = MemoryLedger(server_keys=args.key)
    if args.folder:
        print(f"{load_folder(store, args.folder)} bundles loaded")
    create_viewer_app(store).run(host="127.0.0.1", port=args.port)


if __name__ == "__main__":  # pragma: no cover
    main()
