"""Protocol 2's seat events in the viewer's event list, from matches the real ledger wrote:
a commitment, its reveal, a seed the server declined at the seating deadline, and a forfeit
for a seed committed and never revealed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore, open_engine
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import client_commitment
from fairdeal.web.app import create_app


@pytest.fixture()
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    ledger = Ledger(EventStore(engine), SigningKey.from_seed(b"\x0b" * 32))
    now = [1_800_000_000_000]
    ledger.clock = lambda: now[0]
    ledger.now = now  # type: ignore[attr-defined]  # the test moves the clock
    yield ledger
    engine.dispose()


def _page(ledger: Ledger, match_id: str) -> str:
    app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False, "TESTING": True})
    return str(app.test_client().get(f"/m/{match_id}").get_data(as_text=True))


def test_commit_reveal_and_a_forfeit(ledger: Any) -> None:
    created = ledger.create_match("arcomage", {}, turn_limit_ms=5_000, seed_deadline_ms=10_000,
                                 seats=["ann", "bob"])
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    seeds = ["aa" * 32, "bb" * 32]
    for seat, token in enumerate(tokens):
        ledger.add_seed(match_id, token,
                        commitment=client_commitment(match_id, seat, seeds[seat]))
        ledger.now[0] += 100
    ledger.add_seed(match_id, tokens[0], seeds[0])
    ledger.now[0] += 10_000  # past the reveal deadline: seat B forfeits
    assert ledger.spectator_view(match_id)["status"] == "ended"
    page = _page(ledger, match_id)
    commitment = client_commitment(match_id, 0, seeds[0])
    assert f"Seat A (ann) committed to a seed {commitment[:12]}…" in page
    assert f"Seat A (ann) revealed its seed {seeds[0][:12]}…" in page
    assert "Seat B (bob) committed but never revealed its seed: it forfeits" in page
    assert ">seed_forfeit<" not in page and ">seed_commit<" not in page


def test_a_seed_declined_at_the_seating_deadline(ledger: Any) -> None:
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None, seats=["ann", "bob"])
    match_id = created["id"]
    ledger.now[0] += 24 * 3_600_000  # long past the seating deadline
    assert ledger.spectator_view(match_id)["status"] == "playing"
    page = _page(ledger, match_id)
    for seat in ("A (ann)", "B (bob)"):
        assert (f"Seat {seat} sent no seed before the seating deadline: "
                "declined by the server") in page
