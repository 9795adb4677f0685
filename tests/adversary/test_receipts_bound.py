"""Issue 18, breaks 2 and 3: receipts bound to their match, and a client that never trusts the
server's ids.

The cheating server is the real one — the real ledger on a real SQLite file, the real Flask app
on a real HTTP server — with its own code in front of it (``Front``): it holds the server key,
so it can answer any request its way, and sign what it likes. The honest side is the real
client (``play_match``, ``fairdeal play``) and the real ``fairdeal verify``.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cheats import Clock, Match, forge_match
from click.testing import CliRunner, Result

from fairdeal.cli.main import cli
from fairdeal.client import MATCH_ID, ApiClient, TamperDetected, play_match
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.receipts import RECEIPTS_FORMAT, receipt_json

Edit = Callable[[str, str, Any], Any]


class Front:
    """The cheating server's own code in front of the real app.

    ``forge(method, path)`` may answer a request itself (bytes, or None to let the app answer);
    ``edit(method, path, answer)`` may change any JSON answer; ``routes`` sends a fake match
    id's paths to the real match, so that a server naming its match "../x" still plays it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.routes: dict[str, str] = {}
        self.forge: Callable[[str, str], bytes | None] | None = None
        self.edit: Edit | None = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        path = environ.get("PATH_INFO", "")
        for fake, real in self.routes.items():
            path = path.replace(f"/matches/{fake}", f"/matches/{real}")
        environ["PATH_INFO"] = path
        method = environ["REQUEST_METHOD"]
        forged = self.forge(method, path) if self.forge is not None else None
        if forged is not None:
            start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(forged)))])
            return [forged]
        kept: dict[str, Any] = {}

        def keep(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            kept["status"], kept["headers"] = status, headers
            return lambda data: None

        answer = self.app(environ, keep)
        try:
            body = b"".join(answer)
        finally:
            getattr(answer, "close", lambda: None)()
        headers = kept["headers"]
        content_type = dict((k.lower(), v) for k, v in headers).get("content-type", "")
        if self.edit is not None and body and content_type.startswith("application/json"):
            body = json.dumps(self.edit(method, path, json.loads(body))).encode()
            headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
            headers.append(("Content-Length", str(len(body))))
        start_response(kept["status"], headers)
        return [body]


@dataclass
class Site:
    url: str
    ledger: Ledger
    front: Front

    @property
    def key(self) -> SigningKey:
        return self.ledger.server_key

    def decoy(self) -> str:
        """Another match on this server, played honestly to its end and sealed with the real
        key: what the cheater hands out instead of the one being checked."""
        played = play_match(ApiClient(self.url), "arcomage", rng=random.Random(99))
        return str(played["id"])


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    from werkzeug.serving import make_server

    from fairdeal.web.app import create_app

    data_dir = tmp_path / "server"
    app = create_app({"FAIRDEAL_DATA_DIR": str(data_dir), "FAIRDEAL_SWEEPER": False})
    front = Front(app.wsgi_app)
    app.wsgi_app = front  # type: ignore[method-assign]
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{httpd.server_port}", app.extensions["fairdeal.ledger"],
                   front)
    finally:
        httpd.shutdown()
        thread.join(5)


def fairdeal(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def play(site: Site, receipts: Path, *extra: str, seed: int = 5) -> Result:
    return fairdeal("play", "--server", site.url, "--game", "arcomage", "-n", "1", "--seed",
                    str(seed), "--no-progress", "--receipts", str(receipts), *extra)


def everything_under(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())


# --- the honest case beside the attacks --------------------------------------------------------

def test_an_honest_signed_match_plays_and_verifies_with_its_receipts_file(site: Site,
                                                                          tmp_path: Path) -> None:
    receipts = tmp_path / "receipts"
    played = play(site, receipts, "--signed")
    assert played.exit_code == 0, played.output
    (record,) = receipts.glob("*.receipts.json")
    kept = json.loads(record.read_text())
    assert MATCH_ID.match(kept["match_id"]) and record.name == f"{kept['match_id']}.receipts.json"
    bundle = tmp_path / "match.json"
    bundle.write_bytes(site.ledger.bundle_bytes(kept["match_id"]) or b"")
    checked = fairdeal("verify", "--trusted-key", site.key.public_text, "--receipts",
                       str(record), str(bundle))
    assert checked.exit_code == 0, checked.output
    assert "seat keys A, B pinned from the receipts file" in checked.output
    assert f"{len(kept['receipts'])} receipts match" in checked.output
    as_json = json.loads(fairdeal("verify", "--json", "--receipts", str(record),
                                  str(bundle)).output)
    assert as_json["pin_sources"] == {"A": "pinned from the receipts file",
                                      "B": "pinned from the receipts file"}
    assert as_json["receipts"] == {"checked": len(kept["receipts"]),
                                   "match_id": kept["match_id"]}


# --- break 2: the bundle of another match ------------------------------------------------------

@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
def test_play_refuses_a_bundle_forged_under_another_match_id(site: Site, tmp_path: Path,
                                                             signed: bool) -> None:
    """The server answers GET …/bundle with another match's bundle, sealed with its real key:
    before the fix `play --receipts DIR` printed "won" and exited 0 (unsigned seats: no pin
    to break, and the receipts of "another match" were skipped)."""
    decoy = site.decoy()
    forged = site.ledger.bundle_bytes(decoy)
    site.front.forge = lambda method, path: forged if path.endswith("/bundle") else None
    receipts = tmp_path / "receipts"
    played = play(site, receipts, *(["--signed"] if signed else []))
    assert played.exit_code == 1, played.output
    assert "the server cheated" in played.output
    assert f"the server handed out the bundle of match {decoy} as the sealed bundle of " \
           "match " in played.output
    assert everything_under(receipts) == []


def test_verify_fails_a_receipts_file_of_another_match_naming_both_ids(site: Site,
                                                                      tmp_path: Path) -> None:
    """`verify --trusted-key K --receipts FILE forged.json` answered "[skip] receipts: none of
    the 79 receipts is for this match", exit 0."""
    decoy = site.decoy()
    receipts = tmp_path / "receipts"
    assert play(site, receipts, "--signed").exit_code == 0
    (record,) = receipts.glob("*.receipts.json")
    mine = json.loads(record.read_text())["match_id"]
    forged = tmp_path / "forged.json"
    forged.write_bytes(site.ledger.bundle_bytes(decoy) or b"")
    result = fairdeal("verify", "--trusted-key", site.key.public_text, "--receipts",
                      str(record), str(forged))
    assert result.exit_code == 1, result.output
    assert "FAIL:" in result.output and "receipts check failed" in result.output
    assert f"the receipts are for match {mine}, but this bundle is match {decoy}" \
        in result.output
    # the same file passes its own match's bundle (`receipts` is not simply always failing)
    own = tmp_path / "own.json"
    own.write_bytes(site.ledger.bundle_bytes(mine) or b"")
    assert fairdeal("verify", "--receipts", str(record), str(own)).exit_code == 0


# --- break 3: the client writes where the server tells it -------------------------------------

@pytest.mark.parametrize("fake", ["ABSOLUTE", "/some/absolute/path", "../x"])
def test_play_refuses_a_match_id_that_is_a_path(site: Site, tmp_path: Path, fake: str) -> None:
    """A create answer whose id is a path: before the fix `play --receipts DIR` played the
    match under it (the server routing it back) and wrote <id>.receipts.json outside DIR."""
    if fake == "ABSOLUTE":  # an absolute path the test can look at (and the old code wrote)
        fake = str(tmp_path / "outside" / "evil")
        (tmp_path / "outside").mkdir()

    def rename(method: str, path: str, answer: Any) -> Any:
        if method == "POST" and path.endswith("/matches") and isinstance(answer, dict):
            site.front.routes[fake] = answer["id"]
            answer["id"] = fake
        return answer

    site.front.edit = rename
    receipts = tmp_path / "play" / "receipts"
    # --seed 35: both bots decline a seed, so no commitment binds the id the client was told
    # (a two-step seed commits to the match id, which the real ledger would refuse): under the
    # old code the match then played to its end and its receipts went to FAKE.receipts.json
    played = play(site, receipts, seed=35)
    assert played.exit_code == 1, played.output
    assert "the server cheated: the server named the match" in played.output
    # a long name is shortened in the message (the temporary folder's length varies by run)
    assert f"the server named the match {fake!r}"[:70] in played.output
    assert ", which is not a match id (16 hex digits)" in played.output
    # nothing written anywhere: not outside DIR (where the old code wrote), not in it
    assert not Path(fake + ".receipts.json").exists()
    assert not (receipts / (fake + ".receipts.json")).exists()
    assert everything_under(tmp_path / "play") == []
    if (tmp_path / "outside").exists():
        assert everything_under(tmp_path / "outside") == []


# --- every answer must name the match being played --------------------------------------------

@pytest.mark.parametrize("endpoint", ["/seat-key", "/seed", "/actions"],
                         ids=["join", "seed", "move"])
@pytest.mark.parametrize("where", ["receipt", "view"])
def test_play_refuses_an_answer_naming_another_match(site: Site, endpoint: str,
                                                     where: str) -> None:
    """A write's answer (the seat's key registration, a seed, a move) naming another match:
    in its receipt (re-signed with the real key, so the signature holds) or in its view.
    Before the fix both were accepted and the match ended "verified"."""
    decoy = site.decoy()

    def elsewhere(method: str, path: str, answer: Any) -> Any:
        if method == "POST" and path.endswith(endpoint) and isinstance(answer, dict):
            if where == "view":
                answer["view"]["id"] = decoy
            else:
                receipt = answer["receipt"]
                answer["receipt"] = receipt_json(decoy, receipt["seq"], receipt["event"],
                                                 receipt["ts"], site.key)
        return answer

    site.front.edit = elsewhere
    expected = (f"is for match {decoy}, not for match" if where == "receipt"
                else f"with match '{decoy}'")
    with pytest.raises(TamperDetected, match=expected):
        play_match(ApiClient(site.url), "arcomage", rng=random.Random(3), signed=True)


def test_play_refuses_a_view_of_another_match(site: Site) -> None:
    """A seat's plain read (GET /matches/ID) answered with another match's view."""
    decoy = site.decoy()

    def elsewhere(method: str, path: str, answer: Any) -> Any:
        if method == "GET" and "/matches/" in path and path.count("/") == 4:
            answer = {**answer, "id": decoy}
        return answer

    site.front.edit = elsewhere
    with pytest.raises(TamperDetected, match=f"with match '{decoy}'"):
        play_match(ApiClient(site.url), "arcomage", rng=random.Random(4))


def test_the_receipt_book_refuses_a_receipt_for_another_match(site: Site) -> None:
    from fairdeal.client import ReceiptBook

    book = ReceiptBook(site.key.public_text, "0123456789abcdef")
    event = {"seq": 1, "ts": 5, "type": "client_seed", "seat": 0, "client_seed": None,
             "prev": "0" * 64}
    from fairdeal.verifier.protocol import event_hash

    receipt = receipt_json("fedcba9876543210", 1, event_hash(event), 5, site.key)
    with pytest.raises(TamperDetected, match="is for match fedcba9876543210, not for match "
                                             "0123456789abcdef"):
        book.check({"event": event, "receipt": receipt}, {"type": "client_seed"})
    assert book.receipts == []
    # a book told no match is the first receipt's: a second match's receipt is refused too
    unbound = ReceiptBook(site.key.public_text)
    unbound.check({"event": event, "receipt": receipt_json("0123456789abcdef", 1,
                                                           event_hash(event), 5, site.key)},
                  {"type": "client_seed"})
    with pytest.raises(TamperDetected, match="is for match fedcba9876543210"):
        unbound.check({"event": event, "receipt": receipt}, {"type": "client_seed"})
    assert len(unbound.receipts) == 1


# --- the receipts file's seat keys are pinned -------------------------------------------------

def _receipts_file(path: Path, match_id: str, seat_keys: list[str | None]) -> Path:
    path.write_text(json.dumps({"format": RECEIPTS_FORMAT, "match_id": match_id,
                                "server_key": None, "seat_keys": seat_keys, "receipts": []}))
    return path


def test_the_receipts_files_seat_key_is_pinned_so_a_rekeyed_seat_fails(
        tmp_path: Path, clock: Clock, ledger: Ledger, server_key: SigningKey) -> None:
    """Seat B signs; the server re-keys it to an impostor key of its own and re-plays the match.
    The receipts file records B's real key: before the fix verify ignored it and answered OK."""
    match = Match(ledger, clock, signed=(False, True))
    match.seat_both_in_two_steps()
    match.play_to_the_end()
    honest = match.bundle()
    impostor = SigningKey.from_seed(b"\x66" * 32)
    forged = forge_match(honest, server_key, keys={1: impostor}, signers={1: impostor})
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    real_b = match.players[1].key
    assert real_b is not None
    record = _receipts_file(tmp_path / "r.json", match.id, [None, real_b.public_text])
    result = fairdeal("verify", "--trusted-key", server_key.public_text, "--receipts",
                      str(record), str(path))
    assert result.exit_code == 1, result.output
    assert "seat-signatures check failed" in result.output
    assert "  pins: seat B pinned from the receipts file" in result.output
    # --seat-key overrides the file for its seat, and the report says so
    overridden = fairdeal("verify", "-v", "--receipts", str(record), "--seat-key",
                          f"B={impostor.public_text}", str(path))
    assert overridden.exit_code == 0, overridden.output
    assert "seat key B pinned by --seat-key" in overridden.output
    assert "  pins: seat B pinned by --seat-key" in overridden.output
    data = json.loads(fairdeal("verify", "--json", "--receipts", str(record), "--seat-key",
                               f"1={impostor.public_text}", str(path)).output)
    assert data["pin_sources"] == {"B": "pinned by --seat-key"}
    # the honest bundle with the file: OK, B pinned from the file
    good = tmp_path / "honest.json"
    good.write_text(json.dumps(honest))
    ok = fairdeal("verify", "--receipts", str(record), str(good))
    assert ok.exit_code == 0, ok.output
    assert "seat key B pinned from the receipts file" in ok.output


def test_a_seat_key_override_and_a_file_pin_are_reported_each_as_itself(
        tmp_path: Path, clock: Clock, ledger: Ledger, server_key: SigningKey) -> None:
    match = Match(ledger, clock)
    match.seat_both_in_two_steps()
    match.play_to_the_end()
    keys = [player.key.public_text for player in match.players if player.key is not None]
    record = _receipts_file(tmp_path / "r.json", match.id, keys)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(match.bundle()))
    both = fairdeal("verify", "--receipts", str(record), "--seat-key", f"a={keys[0]}",
                    str(path))
    assert both.exit_code == 0, both.output
    assert "seat key A pinned by --seat-key, B pinned from the receipts file" in both.output
    wrong = SigningKey.from_seed(b"\x77" * 32).public_text
    refused = fairdeal("verify", "--receipts", str(record), "--seat-key", f"A={wrong}",
                       str(path))
    assert refused.exit_code == 1, refused.output
    assert "  pins: seat A pinned by --seat-key; seat B pinned from the receipts file" \
        in refused.output


def test_a_folder_is_checked_file_by_file_against_its_own_matchs_receipts(
        tmp_path: Path, clock: Clock, ledger: Ledger) -> None:
    """Several bundles and several receipts files: each bundle is checked against the files of
    its own match; a bundle no file is for fails `receipts`, naming both ids."""
    folder = tmp_path / "bundles"
    folder.mkdir()
    records = []
    for number in range(3):
        match = Match(ledger, clock)
        match.seat_both_in_two_steps()
        match.play_to_the_end()
        (folder / f"m{number}.json").write_text(json.dumps(match.bundle()))
        book = match.players[0].book
        keys = [player.key.public_text for player in match.players if player.key is not None]
        record = tmp_path / f"{match.id}.receipts.json"
        record.write_text(json.dumps(book.to_json(match.id, keys)))
        records.append((match.id, record))
    given = [arg for _, record in records[:2] for arg in ("--receipts", str(record))]
    result = fairdeal("verify", *given, str(folder))
    assert result.exit_code == 1, result.output
    assert result.output.count("OK: ") == 2
    assert f"FAIL: {folder / 'm2.json'}" in result.output
    assert f"the receipts are for match {records[0][0]}, but this bundle is match " \
           f"{records[2][0]}" in result.output
    every = [arg for _, record in records for arg in ("--receipts", str(record))]
    assert fairdeal("verify", *every, str(folder)).exit_code == 0
