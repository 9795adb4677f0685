"""The server's own export verifies (what the ledger writes is what the verifier reads): a
round-robin run through the real ledger on a real SQLite file — players registering and playing
with their keys, a dispute ruled result-changed, another ruled replay-ordered and replayed —
exported, and verified offline with every key pinned, its log proofs included. A dishonest
server's edit of that export, re-sealed with its real key, fails at its check."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[2]))

import tournament_play as tp  # noqa: E402

from fairdeal.ledger.service import Ledger  # noqa: E402
from fairdeal.verifier.tournament import verify_tournament_zip  # noqa: E402
from fairdeal.verifier.tournament.disputes import dispute_report_hash  # noqa: E402
from fairdeal.verifier.tournament.primitives import event_hash, head_message  # noqa: E402


def _dispute(ledger: Ledger, tid: str, player: tp.Player, match_id: str,
             seats: list[tp.Player]) -> int:
    number = len(ledger.tournament(tid)["disputes"]) + 1
    report = dispute_report_hash(ledger.bundle(match_id), 1,
                                 [seat.key.public_text for seat in seats])
    fields = {"dispute": number, "player": player.player, "match_id": match_id, "step": 1,
              "text": "the second play was not mine", "receipts": None, "report": report}
    body = tp.signed(ledger, tid, player.key, "dispute", fields)
    del body["dispute"], body["player"]
    ledger.file_dispute(tid, player.token, body)
    return number


def _rule(ledger: Ledger, tid: str, number: int, decision: dict[str, Any]) -> None:
    fields = {"dispute": number, "decision": decision, "text": "heard both"}
    ledger.rule_dispute(tid, tp.signed(ledger, tid, tp.ARBITER, "ruling", fields))


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, Ledger, list[tp.Player]]:
    ledger = Ledger.open(tmp_path_factory.mktemp("ledger"))
    created, players = tp.registered(ledger, 4)
    tid, token = created["id"], created["organiser_token"]
    by_id = {player.player: player for player in players}
    ledger.start_tournament(tid, token)
    for number in range(1, 4):
        ledger.pair_next_round(tid, token)
        pairings = tp.play_round(ledger, tid, players)
        ledger.sync_tournaments()
        first = pairings[0]
        seats = [by_id[seat] for seat in first["seats"]]
        if number == 1:
            filed = _dispute(ledger, tid, seats[1], first["match_id"], seats)
            _rule(ledger, tid, filed, {"kind": "result-changed", "winner": seats[1].player})
        elif number == 2:
            filed = _dispute(ledger, tid, seats[1], first["match_id"], seats)
            replay = ledger.order_replay(tid, token, filed)["match_id"]
            _rule(ledger, tid, filed, {"kind": "replay-ordered", "match_id": replay})
            tp.play_match(ledger, replay, seats, loser=0)
            ledger.sync_tournaments()
    ledger.finish_tournament(tid, token)
    return ledger.tournament_export(tid), ledger, players


def test_the_servers_export_verifies_with_every_key_pinned(
        export: tuple[bytes, Ledger, list[tp.Player]]) -> None:
    data, ledger, players = export
    report = verify_tournament_zip(data, trusted_key=ledger.server_key.public_text,
                                   arbiter_key=tp.ARBITER.public_text,
                                   player_keys=[p.key.public_text for p in players])
    assert report.ok, report.failure
    details = {c.name: c.detail for c in report.checks}
    assert details["matches"].startswith("7 matches verified")  # six tables and a replay
    assert details["disputes"].startswith("2 disputes") and details["rulings"].startswith(
        "2 rulings")
    assert [c.status for c in report.checks if c.name == "log"] == ["pass"]


def test_an_edit_of_the_servers_export_resealed_with_its_key_fails(
        export: tuple[bytes, Ledger, list[tp.Player]]) -> None:
    data, ledger, _ = export
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    bundle = json.loads(files["tournament.json"])
    # the server rewrites the arbiter's last ruling (an earlier one would break the chain under
    # a later signed event first: a player's signature covers the link to what came before)
    ruling = [e for e in bundle["events"] if e["type"] == "ruling"][-1]
    ruling["text"] = "the server's words, not the arbiter's"
    prev = "0" * 64
    for event in bundle["events"]:
        event["prev"] = prev
        prev = event_hash(event)
    last = bundle["events"][-1]
    bundle["signature"]["sig"] = ledger.server_key.sign(head_message(
        bundle["events"][0]["tournament_id"], last["seq"], prev)).hex()
    del bundle["log"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, json.dumps(bundle) if name == "tournament.json" else content)
    report = verify_tournament_zip(buffer.getvalue(),
                                   trusted_key=ledger.server_key.public_text)
    assert report.failure is not None and report.failure.check == "rulings", report.failure
    assert "not signed by the tournament's arbiter" in report.failure.reason
    assert report.failure.seq == ruling["seq"]
