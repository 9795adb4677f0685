"""The end of a tournament on the ledger and what it exports (docs/tournaments.md §2–3): the
seed revealed (opening the header's commitment), the final standings, the head signed by the
server, the ``tournament-final`` leaf, and the bundle's log proofs and the zip's match bundles
each checked with the verifier's own primitives. SQLite file and PostgreSQL."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from sqlalchemy import Engine

from fairdeal.ledger.errors import ConflictError, NotEnded
from fairdeal.ledger.keys import load_or_create_server_key
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.checkpoint import Checkpoint, TlogProof
from fairdeal.verifier.keys import parse_public_key, verify_signature
from fairdeal.verifier.logleaf import tournament_leaf
from fairdeal.verifier.merkle import leaf_hash, verify_inclusion
from fairdeal.verifier.note import Note
from fairdeal.verifier.tournament.primitives import (
    ZERO_HASH,
    commitment,
    event_hash,
    head_message,
)
from fairdeal.verifier.verify import verify_bytes

from ..tournament_play import play_round, registered


@pytest.fixture
def ledger(engine: Engine, tmp_path) -> Ledger:
    return Ledger(EventStore(engine), load_or_create_server_key(tmp_path))


def _included(proof_text: str, leaf: bytes) -> None:
    proof = TlogProof.from_text(proof_text)
    checkpoint = Checkpoint.from_text(Note.parse(proof.note).text)
    verify_inclusion(leaf_hash(leaf), proof.index, checkpoint.size, list(proof.hashes),
                     checkpoint.root)


def _finished(ledger: Ledger) -> tuple[dict, list]:
    created, players = registered(ledger, 4)
    tid, organiser = created["id"], created["organiser_token"]
    ledger.start_tournament(tid, organiser)
    with pytest.raises(ConflictError) as early:
        ledger.finish_tournament(tid, organiser)
    assert early.value.code == "round-not-complete"
    for _ in range(3):
        ledger.pair_next_round(tid, organiser)
        play_round(ledger, tid, players)
    with pytest.raises(NotEnded):
        ledger.tournament_bundle(tid)
    reveal, final = ledger.finish_tournament(tid, organiser)["events"]
    assert reveal["type"] == "reveal" and final["type"] == "final"
    return created, players


def test_a_finished_tournament_is_revealed_ranked_signed_and_logged(ledger: Ledger) -> None:
    created, players = _finished(ledger)
    tid = created["id"]
    answer = ledger.tournament(tid)
    assert answer["status"] == "finished"
    assert [line["rank"] for line in answer["standings"]] == [1, 2, 3, 4]
    bundle = json.loads(ledger.tournament_bundle(tid))
    events = bundle["events"]
    prev = ZERO_HASH
    for index, event in enumerate(events):
        assert event["seq"] == index and event["prev"] == prev
        prev = event_hash(event)
    assert commitment(bytes.fromhex(events[-2]["seed"]), events[0]) == events[0]["commitment"]
    assert answer["seed"] == events[-2]["seed"]
    assert events[-1]["standings"] == [{k: line[k] for k in ("rank", "player", "score",
                                                             "tiebreaks")}
                                       for line in answer["standings"]]
    signature = bundle["signature"]
    assert signature["key"] == ledger.server_key.public_text
    assert verify_signature(parse_public_key(signature["key"]), bytes.fromhex(signature["sig"]),
                            head_message(tid, events[-1]["seq"], prev))
    rounds = [e for e in events if e["type"] == "round"]
    _included(bundle["log"]["created"], tournament_leaf(
        "tournament-created", tid, event_hash(events[0]), events[0]["ts"]))
    for proof, event in zip(bundle["log"]["rounds"], rounds, strict=True):
        _included(proof, tournament_leaf("tournament-round", tid, event_hash(event),
                                         event["round"]))
    _included(bundle["log"]["final"], tournament_leaf(
        "tournament-final", tid, prev, events[-1]["seq"]))
    with pytest.raises(ConflictError) as twice:
        ledger.finish_tournament(tid, created["organiser_token"])
    assert twice.value.code == "tournament-over"


def test_the_export_holds_the_bundle_and_every_match_verified_with_its_keys(
        ledger: Ledger) -> None:
    created, players = _finished(ledger)
    tid = created["id"]
    keys = {p.player: p.key.public_text for p in players}
    with zipfile.ZipFile(io.BytesIO(ledger.tournament_export(tid))) as archive:
        names = set(archive.namelist())
        bundle = json.loads(archive.read("tournament.json"))
        pairings = [p for e in bundle["events"] if e["type"] == "round"
                    for p in e["pairings"]]
        assert names == {"tournament.json"} | {f"matches/{p['match_id']}.json"
                                               for p in pairings}
        for pairing in pairings:
            data = archive.read(f"matches/{pairing['match_id']}.json")
            pinned = {str(seat): keys[player] for seat, player in enumerate(pairing["seats"])}
            report = verify_bytes(data, ledger.server_key.public_text, seat_keys=pinned)
            assert report.ok, report.to_json()
