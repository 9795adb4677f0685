"""The other side of the API: what a player, a bot or an observer runs against a fairdeal
server it does not trust — the HTTP client, the bots' driver, the receipt book, the log's
monitor and witness — and the offline simulator that records bot matches without one.

    >>> import random
    >>> from fairdeal.client import ApiClient, play_match
    >>> from fairdeal.games import game_names
    >>> result = play_match(ApiClient("http://127.0.0.1:5000"), game_names()[0],
    ...                     rng=random.Random(7), signed=True)  # doctest: +SKIP
    >>> sorted(result)  # doctest: +SKIP
    ['id', 'moves', 'receipts', 'result', 'seat_keys', 'seats']

Every answer is checked against what was sent and the server's own signed receipts
(``TamperDetected`` when it contradicts them); the sealed bundle is verified at the end with
the seats' keys pinned. The package imports the verifier and the games, never the server
(ledger/) nor the web layer.
"""

from __future__ import annotations

from .api import ApiClient, ApiError
from .bots import BOT_NAME, BotMatch, PlayStats, play_match, play_matches
from .logwatch import LogOptionError, LogServer, LogUsageError, LogWatchError
from .monitor import run_monitor
from .receipts import MATCH_ID, ReceiptBook, TamperDetected, checked_match_id
from .simulate import SimulationSettings, simulate_match, simulate_matches
from .stream import MatchStream, StreamItem
from .tournament_bots import TournamentBot, enter_bots, play_tournament
from .tournaments import KeyFileError, TournamentClient
from .witness import compare_files, load_witness_key, run_witness, witness_verifier_key

__all__ = [
    "BOT_NAME",
    "MATCH_ID",
    "ApiClient",
    "ApiError",
    "BotMatch",
    "KeyFileError",
    "LogOptionError",
    "LogServer",
    "LogUsageError",
    "LogWatchError",
    "MatchStream",
    "PlayStats",
    "ReceiptBook",
    "SimulationSettings",
    "StreamItem",
    "TamperDetected",
    "TournamentBot",
    "TournamentClient",
    "checked_match_id",
    "compare_files",
    "enter_bots",
    "load_witness_key",
    "play_match",
    "play_matches",
    "play_tournament",
    "run_monitor",
    "run_witness",
    "simulate_match",
    "simulate_matches",
    "witness_verifier_key",
]
