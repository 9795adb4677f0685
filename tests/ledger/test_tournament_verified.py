"""What the ledger exports is what the verifier accepts (docs/tournaments.md §6): a round-robin
with a dispute of every kind of ruling (and a replay), a forfeit by withdrawal, and a Swiss of
an odd field (a bye each round) — each played through the Ledger with the players' keys,
exported, and verified by ``verify_tournament_zip`` with the server's, the arbiter's and every
player's key pinned. One tampering of the stored log is refused at its check. SQLite file and
PostgreSQL."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.tournament import verify_tournament_zip
from fairdeal.verifier.tournament.disputes import dispute_report_hash

from ..tournament_play import ARBITER, Player, play_match, registered, signed


@pytest.fixture
def ledger(engine: Engine, tmp_path) -> Ledger:
    return Ledger(EventStore(engine), load_or_create_server_key(tmp_path))


def _dispute(ledger: Ledger, tid: str, player: Player, match_id: str, seats: list[Player],
             step: int) -> int:
    bundle = ledger.bundle_bytes(match_id)
    assert bundle is not None
    number = len(ledger.tournament(tid)["disputes"]) + 1
    fields = {"match_id": match_id, "step": step, "text": "look at this step",
              "receipts": None,
              "report": dispute_report_hash(bundle, step, [s.key.public_text for s in seats])}
    body = signed(ledger, tid, player.key, "dispute", {**fields, "dispute": number},
                  player.player)
    body.pop("dispute")
    ledger.file_dispute(tid, player.token, body)
    return number


def _rule(ledger: Ledger, tid: str, number: int, decision: dict) -> None:
    ledger.rule_dispute(tid, signed(ledger, tid, ARBITER, "ruling",
                                    {"dispute": number, "decision": decision, "text": "so"}))


def _verified(ledger: Ledger, tid: str, players: list[Player]) -> dict:
    data = ledger.tournament_export(tid)
    report = verify_tournament_zip(data, trusted_key=ledger.server_key.public_text,
                                   arbiter_key=ARBITER.public_text,
                                   player_keys=[p.key.public_text for p in players])
    assert report.ok, report.to_json()
    return report.to_json()


def _round(ledger: Ledger, tid: str, by_id: dict[str, Player]) -> list[dict]:
    """Pair the next round and play all its matches (seat 1 resigns each)."""
    event = ledger.pair_next_round(tid, _ORGANISER[tid])["event"]
    for pairing in event["pairings"]:
        play_match(ledger, pairing["match_id"], [by_id[s] for s in pairing["seats"]])
    return list(event["pairings"])


#: the organiser token of each tournament a test created
_ORGANISER: dict[str, str] = {}


def test_a_round_robin_with_every_ruling_and_a_forfeit_verifies(ledger: Ledger) -> None:
    created, players = registered(ledger, 4)
    tid = created["id"]
    _ORGANISER[tid] = created["organiser_token"]
    ledger.start_tournament(tid, created["organiser_token"])
    by_id = {p.player: p for p in players}
    first = _round(ledger, tid, by_id)[0]
    seats = [by_id[s] for s in first["seats"]]
    _rule(ledger, tid, _dispute(ledger, tid, seats[1], first["match_id"], seats, 1),
          {"kind": "result-changed", "winner": seats[1].player})
    _rule(ledger, tid, _dispute(ledger, tid, seats[0], first["match_id"], seats, 0),
          {"kind": "result-stands"})
    second = _round(ledger, tid, by_id)[1]
    seats = [by_id[s] for s in second["seats"]]
    number = _dispute(ledger, tid, seats[1], second["match_id"], seats, 2)
    replay = ledger.order_replay(tid, created["organiser_token"], number)["match_id"]
    _rule(ledger, tid, number, {"kind": "replay-ordered", "match_id": replay})
    play_match(ledger, replay, seats, loser=0)
    _rule(ledger, tid, _dispute(ledger, tid, seats[0], replay, seats, 1),
          {"kind": "penalty", "player": seats[1].player, "points": 1})
    # round 3: a player withdraws (from round 4 on) before its game's first move: a forfeit
    event = ledger.pair_next_round(tid, created["organiser_token"])["event"]
    quitter = by_id[event["pairings"][0]["seats"][0]]
    ledger.withdraw_player(tid, quitter.token, signed(ledger, tid, quitter.key, "withdraw",
                                                      {"from_round": 4}, quitter.player))
    for pairing in event["pairings"][1:]:
        play_match(ledger, pairing["match_id"], [by_id[s] for s in pairing["seats"]])
    assert ledger.tournament(tid)["rounds"][2]["pairings"][0]["result"]["outcome"] == "forfeit"
    ledger.finish_tournament(tid, created["organiser_token"])
    report = _verified(ledger, tid, players)
    assert {check["name"]: check["status"] for check in report["checks"]}["log"] == "pass"


def test_a_swiss_of_an_odd_field_verifies(ledger: Ledger) -> None:
    created, players = registered(ledger, 5, system="swiss", rounds=3,
                                  tiebreaks=["buchholz", "median-buchholz", "wins"])
    tid = created["id"]
    _ORGANISER[tid] = created["organiser_token"]
    ledger.start_tournament(tid, created["organiser_token"])
    by_id = {p.player: p for p in players}
    byes = []
    for _ in range(3):
        _round(ledger, tid, by_id)
        byes += ledger.tournament(tid)["rounds"][-1]["byes"]
    assert len(byes) == 3 and len(set(byes)) == 3  # one bye each round, never twice
    ledger.finish_tournament(tid, created["organiser_token"])
    _verified(ledger, tid, players)


def test_a_result_edited_in_the_export_fails_at_its_check(ledger: Ledger) -> None:
    created, players = registered(ledger, 2)
    tid = created["id"]
    _ORGANISER[tid] = created["organiser_token"]
    ledger.start_tournament(tid, created["organiser_token"])
    pairing = _round(ledger, tid, {p.player: p for p in players})[0]
    ledger.finish_tournament(tid, created["organiser_token"])
    _verified(ledger, tid, players)
    with zipfile.ZipFile(io.BytesIO(ledger.tournament_export(tid))) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    bundle = json.loads(files["tournament.json"])
    result = next(e for e in bundle["events"] if e["type"] == "result")
    result["winner"] = pairing["seats"][1]  # the loser typed in as the winner
    files["tournament.json"] = json.dumps(bundle).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    report = verify_tournament_zip(buffer.getvalue(),
                                   trusted_key=ledger.server_key.public_text)
    assert not report.ok
    assert report.to_json()["failure"]["check"] == "chain"
