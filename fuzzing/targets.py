"""What the fuzzer attacks, each behind ``Target.run(data) -> problem or None``: the verifier
in-process, ``fairdeal verify`` (click's runner in-process, and now and then a real
subprocess), POST /api/v1/bundles, the upload page, and every API request body (and query
string) over a real SQLite ledger. A problem is a traceback, an exception escaping, a 5xx
answer or an exit status other than 0/1; a refusal with a clear message is the right answer.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.games import GAME_NAMES
from fairdeal.ledger.errors import BadRequest
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.verify import verify_bytes
from fairdeal.web.app import create_app

from .mutate import encode, mutate_bytes, mutate_json

__all__ = ["TARGETS", "ApiBodies", "ApiBundles", "Cli", "Target", "Upload", "Verifier"]

ROOT = Path(__file__).parents[1]


class Target:
    """One thing under attack. ``run`` returns None for a clean answer, else the problem."""

    name = "target"

    def run(self, data: bytes) -> str | None:
        raise NotImplementedError

    def close(self) -> None:
        """Free what ``__init__`` opened."""


class Verifier(Target):
    name = "verifier"

    def run(self, data: bytes) -> str | None:
        try:
            report = verify_bytes(data)
            report.to_json()
            str(report.failure)
        except Exception:  # noqa: BLE001  the verifier must never raise for bad input
            return traceback.format_exc()
        return None


class Cli(Target):
    """``fairdeal verify -`` in-process; every ``subprocess_every``-th input also as a real
    process (the shell a person uses), reading a file."""

    name = "cli"

    def __init__(self, subprocess_every: int = 500) -> None:
        self.runner = CliRunner()
        self.count = 0
        self.subprocess_every = subprocess_every
        self.folder = tempfile.TemporaryDirectory(prefix="fairdeal-fuzz-cli-")

    def run(self, data: bytes) -> str | None:
        self.count += 1
        args = ["verify", "-"] + (["--json"] if self.count % 3 == 0 else []) + (
            ["-v"] if self.count % 5 == 0 else [])
        result = self.runner.invoke(cli, args, input=data)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            return "".join(traceback.format_exception(result.exception))
        if result.exit_code not in (0, 1):
            return f"exit status {result.exit_code}: {result.output[-2000:]}"
        if self.count % self.subprocess_every == 0:
            path = Path(self.folder.name) / "input.json"
            path.write_bytes(data)
            done = subprocess.run([sys.executable, "-m", "fairdeal.cli", "verify", str(path),
                                   str(ROOT / "fixtures/bundles/honest/arcomage-untimed.json")],
                                  capture_output=True, timeout=60)
            if done.returncode not in (0, 1) or b"Traceback" in done.stderr:
                return f"subprocess exit {done.returncode}: {done.stderr[-2000:]!r}"
        return None

    def close(self) -> None:
        self.folder.cleanup()


class _App(Target):
    """An app over a fresh SQLite ledger; answers of 500 and up are problems."""

    def __init__(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="fairdeal-fuzz-app-")
        self.engine = open_engine(f"sqlite:///{self.folder.name}/ledger.db")
        self.ledger = Ledger(EventStore(self.engine), load_or_create_server_key(self.folder.name))
        self.app = create_app({"FAIRDEAL_LEDGER": self.ledger, "FAIRDEAL_SWEEPER": False,
                               "FAIRDEAL_RATE_LIMITS": "off", "PROPAGATE_EXCEPTIONS": False})
        self.client = self.app.test_client()

    def check(self, response: Any, what: str) -> str | None:
        if response.status_code >= 500:
            return f"{what}: {response.status_code} {response.get_data()[:2000]!r}"
        return None

    def close(self) -> None:
        self.ledger.stop_sweeper()
        self.engine.dispose()
        self.folder.cleanup()


class ApiBundles(_App):
    name = "api-bundles"

    def run(self, data: bytes) -> str | None:
        return self.check(self.client.post("/api/v1/bundles", data=data), "POST /api/v1/bundles")


class Upload(_App):
    """The upload page: pasted, or as a file; sometimes asking to store it."""

    name = "upload"

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def run(self, data: bytes) -> str | None:
        self.count += 1
        form: dict[str, Any]
        if self.count % 2:
            form = {"pasted": data.decode("utf-8", "replace")}
        else:
            import io

            form = {"bundle": (io.BytesIO(data), "match.json")}
        if self.count % 7 == 0:
            form["store"] = "1"
        response = self.client.post("/upload", data=form, content_type="multipart/form-data")
        problem = self.check(response, "POST /upload")
        if problem is None and response.status_code == 303:
            target = response.headers["Location"]
            problem = self.check(self.client.get(target), f"GET {target}")
        return problem


class ApiBodies(_App):
    """Every API request body, mutated from a valid one, against a match in the right phase;
    now and then a mutated query string or Authorization header instead."""

    name = "api-bodies"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)
        self.count = 0
        self.seating: dict[str, Any] = {}
        self.playing: dict[str, Any] = {}
        self._new_seating()
        self._new_playing()

    def _create(self, game: str) -> dict[str, Any]:
        try:
            created = self.ledger.create_match(game, {}, turn_limit_ms=None)
        except BadRequest:  # a game whose rules fix the turn limit (wyrdstone/2: 60 s)
            created = self.ledger.create_match(game, {})
        return {"id": created.id, "tokens": [seat.token for seat in created.seats]}

    def _new_seating(self) -> None:
        self.seating = self._create(self.rng.choice(GAME_NAMES))

    def _new_playing(self) -> None:
        self.playing = self._create(self.rng.choice(GAME_NAMES))
        for token in self.playing["tokens"]:
            self.ledger.add_seed(self.playing["id"], token, None)

    def _template(self, rng: random.Random) -> tuple[str, str, str | None, dict[str, Any]]:
        """(method, path, token, body) of a valid request."""
        kind = rng.randrange(6)
        if kind == 0:
            game = rng.choice(GAME_NAMES)
            return "POST", "/api/v1/matches", None, {
                "game": game, "params": {}, "turn_limit_ms": 60_000, "seed_deadline_ms": 10_000,
                "seats": [{"name": "north"}, {"name": "south"}]}
        if kind == 1:
            return ("POST", f"/api/v1/matches/{self.seating['id']}/seed",
                    rng.choice(self.seating["tokens"]), {"client_seed": rng.randbytes(32).hex()})
        if kind == 2:
            key = SigningKey.from_seed(rng.randbytes(32))
            return ("POST", f"/api/v1/matches/{self.seating['id']}/seat-key",
                    rng.choice(self.seating["tokens"]), {"public_key": key.public_text})
        match_id = self.playing["id"]
        view = self.ledger.spectator_view(match_id)
        if view["status"] != "playing":
            self._new_playing()
            return self._template(rng)
        seat = view["current_seat"]
        token = self.playing["tokens"][seat]
        if kind == 5 and rng.random() < 0.1:
            return ("POST", f"/api/v1/matches/{match_id}/resign", token,
                    {"expected_seq": view["next_seq"]})
        mine = self.ledger.view(match_id, token)
        return ("POST", f"/api/v1/matches/{match_id}/actions", token, {
            "action": rng.choice(mine["legal_actions"]), "expected_seq": mine["next_seq"],
            "action_id": f"a{self.count}"})

    def _query(self, data: bytes, rng: random.Random) -> str:
        """A GET with a mutated query value: listing, events, pages, steps."""
        value = data[:200].decode("latin-1").replace("&", "%26").replace("#", "%23")
        match_id = self.playing["id"]
        return rng.choice([
            f"/api/v1/matches?limit={value}", f"/api/v1/matches?offset={value}&game={value}",
            f"/api/v1/matches/{match_id}/events?after={value}",
            f"/api/v1/matches/{match_id}/events?limit={value}", f"/?page={value}",
            f"/?q={value}&game={value}", f"/m/{match_id}?step={value}&view={value}",
            f"/api/v1/matches/{value}", f"/m/{value}", f"/embed/{match_id}?step={value}",
            f"/api/v1/matches/{match_id}/board.svg",
        ])

    def run(self, data: bytes) -> str | None:
        self.count += 1
        rng = random.Random(data)
        if self.count % 300 == 0:
            self._new_seating()
        if rng.random() < 0.1:
            path = self._query(data, rng)
            return self.check(self.client.get(path), f"GET {path}")
        method, path, token, body = self._template(rng)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if rng.random() < 0.05:
            # a header cannot hold a line break (the test client refuses it, as would HTTP)
            headers["Authorization"] = data[:100].decode("latin-1").translate(
                {10: None, 13: None, 0: None})
        choice = rng.random()
        if choice < 0.6:
            raw = encode(mutate_json(body, rng), rng)
        elif choice < 0.9:
            raw = mutate_bytes(json.dumps(body).encode(), rng)
        else:
            raw = data
        return self.check(self.client.open(path, method=method, data=raw, headers=headers),
                          f"{method} {path}")


TARGETS: dict[str, Callable[[], Target]] = {
    "verifier": Verifier, "cli": Cli, "api-bundles": ApiBundles, "upload": Upload,
    "api-bodies": ApiBodies,
}
