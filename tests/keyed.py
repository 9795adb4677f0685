"""Matches played on the real ledger by seats that sign with keys: what the key pages, the key
API, ``fairdeal matches --seat-key`` and the audit by key are tested on.

    kid = keyed_match(ledger, ("ann", "bob"), (ANN, None), loser=1)   # ann's key wins
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fairdeal.ledger.service import Ledger
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import seat_message

#: fixed keys, so a test names them
ANN = SigningKey.from_seed(b"\x11" * 32)
BOB = SigningKey.from_seed(b"\x22" * 32)
EVE = SigningKey.from_seed(b"\x33" * 32)


def _signed(ledger: Ledger, match_id: str, token: str, seat: int, key: SigningKey | None,
            kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    if key is None:
        return {}
    view = ledger.seat_view(match_id, token)
    draft = {"seq": view["next_seq"], "prev": view["head"], "type": kind, "seat": seat,
             **fields}
    return {"expected_seq": view["next_seq"], "sig": key.sign(seat_message(draft)).hex()}


def keyed_match(ledger: Ledger, names: Sequence[str], keys: Sequence[SigningKey | None],
                loser: int | None = 1, game: str = "arcomage") -> str:
    """A match with seats ``names``, each seat with a key registering it; both seeds
    declined; then seat ``loser`` resigns (signed when it has a key) and the match is sealed.
    ``loser=None`` leaves the match in play. Returns the match id."""
    created = ledger.create_match(game, {}, turn_limit_ms=None, seats=list(names))
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for seat, key in enumerate(keys):
        if key is not None:
            ledger.register_key(match_id, tokens[seat], key.public_text)
    for seat, key in enumerate(keys):
        extra = _signed(ledger, match_id, tokens[seat], seat, key, "client_seed",
                        {"client_seed": None})
        ledger.add_seed(match_id, tokens[seat], None, **extra)
    if loser is not None:
        key = keys[loser]
        fields: dict[str, Any] = {} if key is None else {"client_ts": ledger.clock()}
        extra = _signed(ledger, match_id, tokens[loser], loser, key, "resign", fields)
        ledger.resign(match_id, tokens[loser], client_ts=fields.get("client_ts"), **extra)
    return match_id
