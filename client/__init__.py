"""The other side of the API: the HTTP client, the bots' driver and the receipt book, and the
offline simulator. The package imports the verifier and the games, never the server."""

from __future__ import annotations

from .bots import (
    BOT_NAME,
    MATCH_ID,
    ApiClient,
    ApiError,
    PlayStats,
    ReceiptBook,
    TamperDetected,
    checked_match_id,
    play_match,
    play_matches,
)

__all__ = ["BOT_NAME", "MATCH_ID", "ApiClient", "ApiError", "PlayStats", "ReceiptBook",
           "TamperDetected", "checked_match_id", "play_match", "play_matches"]
