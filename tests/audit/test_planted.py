"""Planted biases: the relevant test fails and the report names it; honest parts still pass.

Each cheat beside the honest case: a skewed shuffle (a subtly biased random stream), and honest
matches filtered so that one seat or one player name keeps the better opening hands (every kept
match verifies), and a bundle that fails verification (listed, left out)."""

from __future__ import annotations

import json

from fairdeal.audit import audit_bundles, run_tests
from fairdeal.audit.planted import deals
from fairdeal.audit.report import build_report
from fairdeal.audit.strength import standardise
from fairdeal.audit.tally import Tally
from fairdeal.games.arcomage.cards import CARD_BY_ID
from fairdeal.verifier.logleaf import LogLeaf, seal_leaf, seat_counts

from .conftest import deal_state, resigned_bundle, resigned_bundles


def _verdicts(tally: Tally) -> dict[str, str]:
    return {result.name: result.verdict for result in run_tests(tally)}


def _tally(scenario: str, strength: float, n: int = 1500) -> Tally:
    tally = Tally()
    for facts in deals(scenario, n, seed=11, game="arcomage", strength=strength):
        tally.add(facts, 0)
    return tally


def test_fair_deals_pass_and_a_skewed_shuffle_fails_the_deal_test() -> None:
    assert "FAIL" not in _verdicts(_tally("fair", 0)).values()
    skewed = _tally("skewed", 8)
    verdicts = _verdicts(skewed)
    assert verdicts["deal-position arcomage/normal deck"] == "FAIL"
    assert verdicts["seed-bits"] == "PASS"  # the seeds are honest, only the shuffle is skewed
    report = build_report(skewed)
    assert report.exit_code == 1
    assert any("FAIL  deal-position arcomage/normal deck" in line for line in report.text_lines())


def _hand_z(bundle_json: dict, seat: int) -> float:
    state = deal_state(bundle_json)
    total = sum(CARD_BY_ID[card].cost for card in state.hands[seat])
    return standardise(total, 6, "arcomage", False)


def test_a_seat_that_keeps_the_better_hands_fails_the_seat_test() -> None:
    def seat_a_better(bundle: dict) -> bool:
        return _hand_z(bundle, 0) > _hand_z(bundle, 1)

    kept = list(resigned_bundles("arcomage", 60, seed=21, keep=seat_a_better))
    tally = audit_bundles(kept)
    assert tally.failures == [] and tally.matches == 60  # every kept match verifies
    results = {r.name: r for r in run_tests(tally)}
    seat = results["seat-hands arcomage/normal"]
    assert seat.verdict == "FAIL"
    assert "seat A's opening hands are stronger" in seat.detail
    assert results["seed-bits"].verdict == "PASS"


def test_a_player_who_keeps_the_better_hands_fails_the_player_test() -> None:
    players = ("mallory", "ann", "bob")

    def mallory_better(bundle: dict) -> bool:
        names = [seat["name"] for seat in bundle["events"][0]["seats"]]
        if "mallory" not in names:
            return True
        me = names.index("mallory")
        return _hand_z(bundle, me) > _hand_z(bundle, 1 - me)

    kept = list(resigned_bundles("arcomage", 300, seed=22, players=players, keep=mallory_better))
    tally = audit_bundles(kept)
    assert tally.failures == []
    results = {r.name: r for r in run_tests(tally)}
    player = results["player-hands"]
    assert player.verdict == "FAIL"
    assert "most extreme: mallory (z = +" in player.detail
    assert "mallory" in player.detail.split("beyond chance:")[1]
    # seats are drawn at random, so no seat is favoured: the seat test still passes
    assert results["seat-hands arcomage/normal"].verdict == "PASS"


def test_failing_bundles_are_listed_with_their_reason_and_left_out() -> None:
    honest = list(resigned_bundles("arcomage", 30, seed=23))
    bundle = json.loads(honest[0][1])
    bundle["events"][0]["seats"][0]["name"] = "someone else"  # breaks the chain and commitment
    broken = [("edited.json", json.dumps(bundle).encode()), ("empty.json", b"")]
    tally = audit_bundles([*broken, *honest[1:]])
    assert tally.matches == 29
    assert [where for where, _ in tally.failures] == ["edited.json", "empty.json"]
    assert "chain check failed" in tally.failures[0][1]
    assert "file is empty" in tally.failures[1][1]
    lines = build_report(tally).text_lines()
    assert any(line.startswith("  FAIL: edited.json: chain check failed") for line in lines)


def test_a_resigned_match_is_an_honest_verifiable_match() -> None:
    import random

    from fairdeal.verifier.verify import verify_bytes

    bundle = resigned_bundle("toybattle", {}, ("ann", "bob"), random.Random(1), 0)
    assert verify_bytes(json.dumps(bundle)).ok


def test_a_forfeited_match_is_counted_as_ended_without_a_deal(tmp_path) -> None:
    from fairdeal.ledger.service import Ledger
    from fairdeal.verifier.protocol import client_commitment

    ledger = Ledger.open(tmp_path)
    now = [1_800_000_000_000]
    ledger.clock = lambda: now[0]
    created = ledger.create_match("arcomage", {}, turn_limit_ms=5_000, seed_deadline_ms=10_000)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    for seat, token in enumerate(tokens):
        ledger.add_seed(match_id, token,
                        commitment=client_commitment(match_id, seat, f"{seat}a" * 32))
    ledger.add_seed(match_id, tokens[0], "0a" * 32)
    now[0] += 20_000  # seat B never reveals: the server forfeits it
    assert ledger.spectator_view(match_id)["status"] == "ended"
    honest = list(resigned_bundles("arcomage", 3, seed=24))
    tally = audit_bundles([("forfeit", ledger.bundle(match_id)), *honest])
    assert tally.failures == [] and tally.matches == 3 and tally.undealt == 1
    assert "1 verified match ended before any deal" in build_report(tally).summary()


def test_a_server_that_abandons_a_players_weak_deals_fails_the_unsealed_test() -> None:
    from fairdeal.audit.planted import abandoned_matches

    tally = _tally("player", 0.0, n=600)
    abandoned = abandoned_matches(600, seed=12, q=1.0, game="arcomage")
    for name, (created, unsealed) in abandoned.items():
        tally.count_unsealed(name, created, unsealed)
    unsealed = {r.name: r for r in run_tests(tally)}["unsealed"]
    assert unsealed.verdict == "FAIL" and "highest: mallory" in unsealed.detail
    honest = _tally("player", 0.0, n=600)
    kept = abandoned_matches(600, seed=12, q=0.0, game="arcomage")
    for name, (created, unsealed_count) in kept.items():
        honest.count_unsealed(name, created, unsealed_count)
    assert {r.name: r.verdict for r in run_tests(honest)}["unsealed"] == "PASS"


def _redealt_log(n: int, seed: int, q: float) -> list[tuple[int, LogLeaf]]:
    """The log of a server that, whenever mallory's hand came out the weaker, deletes the match
    from its tables with probability ``q`` and deals again under the same match id (issue 18,
    break 4): one genesis leaf per deal, one seal per id. ``n`` sealed matches in all."""
    import random

    from fairdeal.audit.planted import PLAYERS, _unfavourable, facts_of_deal

    source, leaves, number = random.Random(seed), [], 0
    for sealed in range(n):
        match_id = f"m{sealed}"
        while True:
            players = tuple(source.sample(PLAYERS, 2))
            facts = facts_of_deal("arcomage", {}, source.randbytes(32), players,  # type: ignore[arg-type]
                                  source.randbytes(32))
            leaves.append((number, LogLeaf("genesis", match_id, "0" * 64, b"", players)))
            number += 1
            if not (_unfavourable("player", facts) and source.random() < q):
                break
        leaves.append((number, LogLeaf.parse(seal_leaf(match_id, 9, "ab" * 32, number - 1))))
        number += 1
    return leaves


def test_a_server_that_redeals_under_the_same_match_id_fails_the_unsealed_test() -> None:
    """Counted per genesis leaf, the deals the server threw away under a reused match id are
    unsealed matches like any other, and the abandoned-matches test names mallory; counted by
    match id (as before), every id was sealed and the test saw nothing."""
    tally = _tally("player", 0.0, n=600)
    for name, (created, unsealed) in seat_counts(_redealt_log(600, seed=12, q=1.0)).items():
        tally.count_unsealed(name, created, unsealed)
    unsealed = {r.name: r for r in run_tests(tally)}["unsealed"]
    assert unsealed.verdict == "FAIL" and "highest: mallory" in unsealed.detail
    honest = _tally("player", 0.0, n=600)
    for name, (created, unsealed_count) in seat_counts(_redealt_log(600, 12, 0.0)).items():
        honest.count_unsealed(name, created, unsealed_count)
    assert {r.name: r.verdict for r in run_tests(honest)}["unsealed"] == "PASS"


def test_correlated_seed_bits_fail_the_runs_test() -> None:
    verdicts = _verdicts(_tally("seed-runs", 0.05, n=300))
    assert verdicts["seed-runs"] == "FAIL"
