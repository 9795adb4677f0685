"""The server's Ed25519 key: created on first use in the data folder, readable by its owner
only, never printed except as its public half."""

from __future__ import annotations

import os
from pathlib import Path

from fairdeal.verifier.keys import SigningKey

__all__ = ["KEY_FILE", "load_or_create_server_key"]

KEY_FILE = "server-key.pem"


def load_or_create_server_key(data_dir: Path | str) -> SigningKey:
    """The data folder's server key, created (mode 0600) if there is none yet."""
    folder = Path(data_dir)
    path = folder / KEY_FILE
    if path.exists():
        return SigningKey.from_pem(path.read_bytes())
    folder.mkdir(parents=True, exist_ok=True)
    key = SigningKey.generate()
    # O_EXCL: two processes starting at once must not each write a different key
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return SigningKey.from_pem(path.read_bytes())
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.to_pem())
    return key
