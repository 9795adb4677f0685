"""Finding a match for a request: the ledger (or the viewer's own in-memory store), the LRU of
loaded matches, the uploads held for a while, and the verdicts shown on the home list."""

from __future__ import annotations

import re
from typing import Any, NoReturn

from flask import abort, current_app
from werkzeug.exceptions import NotFound

from fairdeal.games import RulesError, get_game
from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.keys import key_id, parse_public_key
from fairdeal.verifier.verify import verify_bytes

from .matches import LoadedMatch, MatchCache, load_bundle, load_live
from .sources import LedgerReader, MemoryLedger

__all__ = ["MATCH_ID", "PageNotFound", "game_or_none", "judgement", "ledger", "load_stored",
           "load_upload", "match_cache", "missing", "preview_cache", "signer_verdict", "uploads"]

MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_UPLOAD_KEY = re.compile(r"u-[0-9a-f]{32}\Z")


class PageNotFound(NotFound):
    """A 404 whose page says what is missing (``heading``: "Match not found", "Step not found")
    and may link back to the page that is there (``back``)."""

    def __init__(self, description: str, heading: str = "Not found",
                 back: str | None = None) -> None:
        super().__init__(description)
        self.heading = heading
        self.back = back


def missing(description: str, heading: str = "Not found", back: str | None = None) -> NoReturn:
    """Answer 404 with a page (or JSON) headed ``heading`` that says ``description``."""
    raise PageNotFound(description, heading, back)


def ledger() -> LedgerReader:
    """The ledger if the app has one, else this viewer's own in-memory store."""
    source = current_app.extensions.get("fairdeal.ledger")
    if source is None:
        source = current_app.extensions.setdefault("fairdeal.viewer.store", MemoryLedger())
    return LedgerReader(source)


def match_cache() -> MatchCache:
    """The app's LRU of loaded matches (snapshots included), by match key."""
    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.cache",
                                                          MatchCache(64))
    return cache


def uploads() -> MatchCache:
    """Uploaded bundles the user did not ask to store: held in memory for a while only."""
    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.uploads",
                                                          MatchCache(32))
    return cache


def preview_cache() -> MatchCache:
    """The app's LRU of link-preview PNGs, by match key and step (see preview.py)."""
    from .preview import PREVIEW_CACHE_SIZE

    cache: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.previews",
                                                          MatchCache(PREVIEW_CACHE_SIZE))
    return cache


def game_or_none(name: str) -> Any:
    """The registered game called ``name``, or None for a name no game has."""
    try:
        return get_game(name)
    except RulesError:
        return None


# --- loading matches ----------------------------------------------------------------------

def load_stored(match_id: str) -> LoadedMatch:
    """A match from the ledger: sealed ones from their bundle, live ones from public events."""
    if not MATCH_ID.match(match_id):
        missing(f"{match_id!r} is not a match id", "Match not found")
    cache = match_cache()
    sealed = cache.peek(f"m-{match_id}")
    if sealed is not None:
        return sealed  # type: ignore[no-any-return]
    reader = ledger()
    if reader.get(match_id) is None:
        missing(f"no match with id {match_id!r}", "Match not found")
    data = reader.bundle(match_id)
    loaded: LoadedMatch
    if data is not None:
        loaded = cache.get(f"m-{match_id}", lambda: load_bundle(data, f"m-{match_id}"))
        return loaded
    events = reader.events(match_id) or []
    key = f"live-{match_id}-{len(events)}"
    loaded = cache.get(key, lambda: load_live(match_id, events, key,
                                              reader.captions(match_id)))
    return loaded


def load_upload(key: str) -> LoadedMatch:
    """An upload held in memory; 404 for a malformed key, 410 once it has been dropped."""
    if not _UPLOAD_KEY.match(key):
        missing("no such upload", "Upload not found")
    match = uploads().peek(key)
    if match is None:
        abort(410, description="This upload is no longer held by the server (uploads that are "
                               "not stored are kept in memory for a while only). Upload the "
                               "file again.")
    return match  # type: ignore[no-any-return]


def judgement(match_id: str) -> tuple[str, str | None]:
    """``(verdict, signer)`` for the home list: only what this server checked itself.

    The verdict is "verified", "other-signer", "failed", "live" or "missing". "verified"
    means every check passed AND the bundle is signed by this server's own key;
    "other-signer" that every check passed under a key this server does not hold (``signer``
    is that key's id): anyone can seal a history under a key of their own and import it.
    A sealed bundle never changes, so its verdict is kept by match id (without the
    snapshots, which only a match page needs)."""
    loaded = match_cache().peek(f"m-{match_id}")
    if loaded is not None:
        return signer_verdict(loaded.report.ok, loaded.server_key)
    verdicts: MatchCache = current_app.extensions.setdefault("fairdeal.viewer.verdicts",
                                                             MatchCache(4096))
    found = verdicts.peek(match_id)
    if found is None:
        data = ledger().bundle(match_id)
        if data is None:
            return ("live" if ledger().get(match_id) is not None else "missing"), None
        ok = verify_bytes(data).ok
        found = signer_verdict(ok, Bundle.from_bytes(data).server_key if ok else None)
        verdicts.put(match_id, found)
    return found  # type: ignore[no-any-return]


def signer_verdict(ok: bool, server_key: str | None) -> tuple[str, str | None]:
    """The verdict of a sealed bundle whose checks passed (``ok``) under ``server_key``."""
    if not ok or server_key is None:
        return "failed", None
    if server_key in ledger().server_keys():
        return "verified", None
    return "other-signer", key_id(parse_public_key(server_key))
