"""A tournament's parties talking to a server they do not trust (docs/tournaments.md, the
/api/v1/tournaments routes): the organiser with its token, each player with its Ed25519 key and
player token, the arbiter with its key.

What a party signs is ``primitives.signed_message`` of the event it asks for — ``{seq, prev,
type, …fields}``, with ``seq`` and ``prev`` the tournament's ``next_seq`` and ``head`` as just
read — so the server can neither re-place it elsewhere in the log nor change a field of it. A
write that loses the race for its position (409 ``stale-seq``) is read and signed again.

    >>> from fairdeal.client import ApiClient
    >>> from fairdeal.client.tournaments import TournamentClient
    >>> tournaments = TournamentClient(ApiClient("http://127.0.0.1:5000"))  # doctest: +SKIP
    >>> tournaments.get("cup")["status"]  # doctest: +SKIP
    'registering'
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fairdeal.verifier.keys import InvalidKey, SigningKey
from fairdeal.verifier.tournament.disputes import dispute_report_hash
from fairdeal.verifier.tournament.primitives import signed_message

from .api import ApiClient, ApiError

__all__ = ["TOURNAMENT_ID", "KeyFileError", "TournamentClient", "checked_tournament_id",
           "create_key_file", "load_key_file", "read_token",
           "write_secret"]

#: docs/tournaments.md §2: what a tournament id may be; it goes into URL paths, so it is
#: checked before any request is made with it
TOURNAMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: how often a signed write is drafted again after losing the race for its position
SIGN_TRIES = 20


class KeyFileError(ValueError):
    """A key or token file that cannot be read, created or used; the message names it."""


def checked_tournament_id(text: str) -> str:
    """``text`` when it is a tournament id (docs/tournaments.md §2), else ValueError."""
    if not isinstance(text, str) or not TOURNAMENT_ID.fullmatch(text):
        raise ValueError(f"{text!r} is not a tournament id (1-64 of A-Z a-z 0-9 _ -)")
    return text


def write_secret(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write a key or token only its owner may read (mode 0600); ``exclusive``: never over an
    existing file (a key file is not replaced by accident)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise KeyFileError(f"{path} exists already: a key file is never overwritten") from None
    except OSError as e:
        raise KeyFileError(f"cannot write {path}: {e.strerror or e}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def create_key_file(path: Path) -> SigningKey:
    """A new Ed25519 key, written to ``path`` as PEM (mode 0600); never over an existing file."""
    key = SigningKey.generate()
    write_secret(path, key.to_pem(), exclusive=True)
    return key


def load_key_file(path: Path) -> SigningKey:
    """The Ed25519 private key in the PEM file ``path``; KeyFileError naming the file and why."""
    try:
        return SigningKey.from_pem(path.read_bytes())
    except OSError as e:
        raise KeyFileError(f"cannot read the key file {path}: {e.strerror or e}") from None
    except (ValueError, TypeError, InvalidKey) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise KeyFileError(f"{path} is not an Ed25519 private key in PEM ({reason})") from None


def read_token(path: Path) -> str:
    """A token saved by ``create`` or ``register`` (one line); KeyFileError naming the file."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise KeyFileError(f"cannot read the token file {path}: {e}") from None
    if not token or len(token) > 512 or any(ch.isspace() for ch in token):
        raise KeyFileError(f"{path} does not hold a token (one line, no spaces)")
    return token


class TournamentClient:
    """The tournament routes of one server, each a method named for what it does.

    Errors are the API client's: ``ApiError`` (with the server's code and message) for an
    error answer, ``OSError`` when the server cannot be reached.
    """

    def __init__(self, api: ApiClient) -> None:
        self.api = api

    # reads ------------------------------------------------------------------------------

    def get(self, tournament_id: str) -> dict[str, Any]:
        """The tournament as the server shows it: header, players, rounds, disputes and the
        standings it computes."""
        answer: dict[str, Any] = self.api.call("GET", f"/tournaments/{_path(tournament_id)}")
        return answer

    def listing(self, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        """One page of the server's tournaments, newest first."""
        query = f"?limit={limit}" + (f"&cursor={_query(cursor)}" if cursor else "")
        answer: dict[str, Any] = self.api.call("GET", f"/tournaments{query}")
        return answer

    def events(self, tournament_id: str, after: int = -1) -> list[dict[str, Any]]:
        """The tournament's events after seq ``after``."""
        answer = self.api.call("GET", f"/tournaments/{_path(tournament_id)}/events"
                                      f"?after={after}")
        events: list[dict[str, Any]] = answer["events"]
        return events

    def me(self, tournament_id: str, player_token: str) -> dict[str, Any]:
        """What the player holding ``player_token`` plays now (its pairing, or its bye)."""
        answer: dict[str, Any] = self.api.call("GET", f"/tournaments/{_path(tournament_id)}/me",
                                               token=player_token)
        return answer

    def export(self, tournament_id: str) -> bytes:
        """The finished tournament's export: a zip of its bundle and every match bundle."""
        status, body = self.api.raw("GET", f"/tournaments/{_path(tournament_id)}/export")
        if status != 200:
            raise _error(status, body)
        if not body.startswith(b"PK"):
            raise ApiError(status, "not-a-zip", "the server's export is not a zip file")
        return body

    def seat_keys(self, tournament_id: str, match_id: str) -> list[str]:
        """The registered keys of the two players paired in ``match_id``, seat 0 first; a
        ValueError when the tournament pairs no such match."""
        shown = self.get(tournament_id)
        keys = {player["player"]: player["public_key"] for player in shown["players"]}
        for round_ in shown["rounds"]:
            for pairing in round_["pairings"]:
                # a table whose replay was ordered lists every match it played
                if match_id in (pairing.get("matches") or [pairing.get("match_id")]):
                    return [keys[seat] for seat in pairing["seats"]]
        raise ValueError(f"tournament {tournament_id} pairs no match {match_id}")

    def match_bundle(self, match_id: str) -> bytes:
        """A sealed match's bundle (what a dispute's report is computed from)."""
        status, body = self.api.raw("GET", f"/matches/{_path(match_id)}/bundle")
        if status != 200:
            raise _error(status, body)
        return body

    # the organiser ----------------------------------------------------------------------

    def create(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Create a tournament; the answer holds its id and the organiser token (only once)."""
        answer: dict[str, Any] = self.api.call("POST", "/tournaments", dict(fields))
        return answer

    def start(self, tournament_id: str, organiser_token: str) -> dict[str, Any]:
        """Close registration and start (with ``auto``, the first round is paired too)."""
        return self._organiser(tournament_id, "start", organiser_token)

    def pair(self, tournament_id: str, organiser_token: str) -> dict[str, Any]:
        """Pair the next round and create its matches."""
        return self._organiser(tournament_id, "rounds", organiser_token)

    def finish(self, tournament_id: str, organiser_token: str) -> dict[str, Any]:
        """Reveal the tournament seed and write the final standings."""
        return self._organiser(tournament_id, "finish", organiser_token)

    def order_replay(self, tournament_id: str, organiser_token: str,
                     dispute: int) -> dict[str, Any]:
        """A new match for a dispute whose ruling orders a replay (the arbiter names it)."""
        answer: dict[str, Any] = self.api.call(
            "POST", f"/tournaments/{_path(tournament_id)}/replays", {"dispute": dispute},
            organiser_token)
        return answer

    def _organiser(self, tournament_id: str, route: str, token: str) -> dict[str, Any]:
        answer: dict[str, Any] = self.api.call(
            "POST", f"/tournaments/{_path(tournament_id)}/{route}", {}, token)
        return answer

    # the players and the arbiter: signed events -----------------------------------------

    def register(self, tournament_id: str, key: SigningKey, name: str,
                 entropy: str | None = None) -> dict[str, Any]:
        """Register ``key`` as a player named ``name``, with entropy of its own (32 random
        bytes unless given) mixed into the tournament's lots; the answer holds the player's
        key id and its player token."""
        entropy = entropy if entropy is not None else secrets.token_hex(32)
        fields = {"player": key.key_id, "public_key": key.public_text, "name": name,
                  "entropy": entropy}
        sent = {"public_key": key.public_text, "name": name, "entropy": entropy}
        return self.signed_write(tournament_id, "register", "registrations", key, fields,
                                 sent)

    def withdraw(self, tournament_id: str, key: SigningKey, player_token: str,
                 from_round: int) -> dict[str, Any]:
        """Withdraw the player from round ``from_round`` on."""
        fields = {"player": key.key_id, "from_round": from_round}
        return self.signed_write(tournament_id, "withdraw", "withdrawals", key, fields,
                                 {"from_round": from_round}, player_token)

    def dispute(self, tournament_id: str, key: SigningKey, player_token: str, *,
                match_id: str, step: int, text: str,
                receipts: Any = None) -> dict[str, Any]:
        """File a dispute on step ``step`` of the player's sealed match ``match_id``, with the
        player's receipts of it as evidence; the report hash is computed here, as the server
        and the verifier compute it (``verifier.tournament.disputes``): from the match's sealed
        bundle with both players' registered keys pinned as its seats' keys, and signed with
        the rest. DisputeError for a step the match does not have."""
        report = dispute_report_hash(self.match_bundle(match_id), step,
                                     self.seat_keys(tournament_id, match_id))

        def fields_at(tournament: dict[str, Any]) -> dict[str, Any]:
            # the dispute's number is its place among those filed so far, as just read
            return {"dispute": len(tournament.get("disputes") or []) + 1,
                    "player": key.key_id, "match_id": match_id, "step": step, "text": text,
                    "receipts": receipts, "report": report}

        sent = {"match_id": match_id, "step": step, "text": text, "receipts": receipts,
                "report": report}
        return self.signed_write(tournament_id, "dispute", "disputes", key, fields_at, sent,
                                 player_token)

    def rule(self, tournament_id: str, arbiter_key: SigningKey, dispute: int,
             decision: Mapping[str, Any], text: str) -> dict[str, Any]:
        """The arbiter's ruling on dispute number ``dispute``, signed with its key."""
        fields = {"dispute": dispute, "decision": dict(decision), "text": text}
        return self.signed_write(tournament_id, "ruling", "rulings", arbiter_key, fields,
                                 dict(fields))

    def signed_write(self, tournament_id: str, kind: str, route: str, key: SigningKey,
                     fields: Mapping[str, Any] | Callable[[dict[str, Any]], dict[str, Any]],
                     sent: Mapping[str, Any], token: str | None = None) -> dict[str, Any]:
        """Sign the event ``{seq, prev, type: kind, …fields}`` at the tournament's head and
        post ``sent`` with ``expected_seq`` and ``sig``; a write that lost the race for its
        position (409 ``stale-seq``) is signed again at the new head. ``fields`` may be a
        function of the tournament as just read, for fields that depend on the log so far."""
        path = f"/tournaments/{_path(tournament_id)}/{route}"
        for _ in range(SIGN_TRIES):
            now = self.get(tournament_id)
            event_fields = fields(now) if callable(fields) else fields
            event = {"seq": now["next_seq"], "prev": now["head"], "type": kind,
                     **event_fields}
            body = {**sent, "expected_seq": now["next_seq"],
                    "sig": key.sign(signed_message(event)).hex()}
            try:
                answer: dict[str, Any] = self.api.call("POST", path, body, token)
            except ApiError as e:
                if e.code == "stale-seq":
                    continue
                raise
            return answer
        raise ApiError(409, "stale-seq", f"the tournament moved on {SIGN_TRIES} times while "
                                         f"the {kind} was signed: try again")


def _path(segment: str) -> str:
    """An id as one URL path segment: refused (ValueError) when it is no id at all."""
    return checked_tournament_id(segment)


def _query(value: str) -> str:
    import urllib.parse

    return urllib.parse.quote(value, safe="")


def _error(status: int, body: bytes) -> ApiError:
    """The API's error of a non-JSON route (a zip, a bundle), as ``ApiClient.call`` reads it."""
    import json

    try:
        error = json.loads(body).get("error") or {}
    except (ValueError, AttributeError, RecursionError):
        error = {}
    code = error.get("code") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return ApiError(status, code if isinstance(code, str) else "http-error",
                    message if isinstance(message, str)
                    else body[:200].decode("utf-8", "replace"))

