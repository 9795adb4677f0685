"""Players by the key they sign with, on every backend: the seat-key index is written with each
``seat_key`` event (live and imported), a store made before the index gets it from its events
when it opens, and a key's matches are listed newest first, page by page, with its names and
record; key ids are taken whole, by unambiguous prefix or as a public key, and anything else is
refused with a clear error."""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy import Engine, inspect, text

from fairdeal.ledger.database import create_schema
from fairdeal.ledger.errors import BadRequest, KeyNotFound
from fairdeal.ledger.seatkeys import page_query
from fairdeal.ledger.service import Ledger
from fairdeal.ledger.store import EventStore
from fairdeal.verifier.keys import SigningKey

from ..keyed import ANN, BOB, EVE, keyed_match


@pytest.fixture
def ledger(engine: Engine) -> Ledger:
    clock = itertools.count(1_800_000_000_000, 1000)
    return Ledger(EventStore(engine), SigningKey.from_seed(b"\x05" * 32),
                  clock=lambda: next(clock))


def _three(ledger: Ledger) -> list[str]:
    """ann's key: a win (as "ann"), a loss (as "annie"), one in play; bob's key in the first."""
    return [keyed_match(ledger, ("ann", "bob"), (ANN, BOB), loser=1),
            keyed_match(ledger, ("annie", "bob"), (ANN, None), loser=0),
            keyed_match(ledger, ("ann", "carol"), (ANN, None), loser=None)]


def test_a_keys_matches_newest_first_with_names_and_record(ledger: Ledger) -> None:
    won, lost, playing = _three(ledger)
    page = ledger.key_matches(ANN.key_id)
    assert page["key_id"] == ANN.key_id and page["public_keys"] == [ANN.public_text]
    assert [m["id"] for m in page["matches"]] == [playing, lost, won]
    assert [m["key_result"] for m in page["matches"]] == [None, "loss", "win"]
    assert all(m["key_seats"] == [0] for m in page["matches"])
    assert page["names"] == [{"name": "ann", "seats": 2}, {"name": "annie", "seats": 1}]
    assert page["record"] == {"arcomage": {"wins": 1, "losses": 1, "draws": 0,
                                           "unfinished": 1}}
    assert page["total"] == 3 and page["next_cursor"] is None
    bob = ledger.key_matches(BOB.key_id)
    assert [m["id"] for m in bob["matches"]] == [won]
    assert bob["record"]["arcomage"]["losses"] == 1 and bob["matches"][0]["key_seats"] == [1]


def test_pages_follow_the_cursor_to_the_end(ledger: Ledger) -> None:
    ids = _three(ledger)[::-1]
    seen, cursor = [], None
    for _ in range(4):
        page = ledger.key_matches(ANN.key_id, limit=1, cursor=cursor)
        seen += [m["id"] for m in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids
    # a match created after the first page was read does not shift the later pages
    first = ledger.key_matches(ANN.key_id, limit=2)
    keyed_match(ledger, ("ann", "dan"), (ANN, None), loser=1)
    rest = ledger.key_matches(ANN.key_id, limit=2, cursor=first["next_cursor"])
    assert [m["id"] for m in rest["matches"]] == ids[2:]


def test_a_key_at_both_seats_is_one_match_and_a_draw(ledger: Ledger) -> None:
    match_id = keyed_match(ledger, ("eve", "eve2"), (EVE, EVE), loser=1)
    page = ledger.key_matches(EVE.key_id)
    assert [m["id"] for m in page["matches"]] == [match_id]
    assert page["matches"][0]["key_seats"] == [0, 1]
    assert page["matches"][0]["key_result"] == "draw" and page["total"] == 1


def test_key_ids_by_prefix_by_public_key_and_refusals(ledger: Ledger) -> None:
    _three(ledger)
    assert ledger.resolve_key(ANN.key_id[:4].upper()) == ANN.key_id
    assert ledger.resolve_key(f"  {ANN.public_text}  ") == ANN.key_id
    for bad in ("abc", "xyz12", ANN.key_id + "0", "ed25519:1234", 42, ""):
        with pytest.raises(BadRequest, match="key id|public key|hex") as caught:
            ledger.key_matches(bad)
        assert caught.value.code == "invalid-key-id"
    unknown = "0000" if not ANN.key_id.startswith("0000") else "ffff"
    with pytest.raises(KeyNotFound, match=f"starts with '{unknown}'"):
        ledger.key_matches(unknown)
    with pytest.raises(BadRequest, match="cursor") as caught:
        ledger.key_matches(ANN.key_id, cursor="yesterday")
    assert caught.value.code == "invalid-cursor"
    with pytest.raises(BadRequest, match="limit"):
        ledger.key_matches(ANN.key_id, limit=0)


def _twins() -> tuple[SigningKey, SigningKey]:
    """Two keys whose ids share their first 4 hex digits (a birthday search, deterministic)."""
    seen: dict[str, SigningKey] = {}
    for n in itertools.count():
        key = SigningKey.from_seed(n.to_bytes(32, "big"))
        twin = seen.setdefault(key.key_id[:4], key)
        if twin is not key:
            return twin, key


def test_an_ambiguous_prefix_names_the_keys(ledger: Ledger) -> None:
    one, two = _twins()
    keyed_match(ledger, ("p", "q"), (one, two), loser=1)
    with pytest.raises(BadRequest, match="2 seat keys") as caught:
        ledger.resolve_key(one.key_id[:4])
    assert caught.value.code == "ambiguous-key-id"
    assert one.key_id in caught.value.message and two.key_id in caught.value.message
    assert ledger.resolve_key(one.key_id) == one.key_id


def test_imported_matches_are_indexed_too(ledger: Ledger, tmp_path) -> None:
    other = Ledger.open(tmp_path / "other")
    match_id = keyed_match(other, ("ann", "bob"), (ANN, BOB), loser=0)
    imported, report = ledger.import_bundle(other.bundle(match_id))
    assert imported == match_id, report.failure
    page = ledger.key_matches(BOB.key_id)
    assert [m["id"] for m in page["matches"]] == [match_id]
    assert page["matches"][0]["imported"] and page["matches"][0]["key_result"] == "win"


def _as_before_the_index(engine: Engine) -> None:
    """The schema of a store made before the seat-key index: no table seat_keys."""
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE seat_keys"))
    assert "seat_keys" not in inspect(engine).get_table_names()


def test_a_store_made_before_the_index_is_filled_when_it_opens(engine: Engine,
                                                                ledger: Ledger) -> None:
    ids = _three(ledger)
    _as_before_the_index(engine)
    create_schema(engine, None)  # what opening the store does
    again = Ledger(EventStore(engine), ledger.server_key)
    assert [m["id"] for m in again.key_matches(ANN.key_id)["matches"]] == ids[::-1]
    assert again.search("annie")["matches"][0]["seat_key_ids"] == [ANN.key_id, None]
    # a fill cut short (the table there, the index not yet) is done again, rows not doubled
    with engine.begin() as conn:
        conn.execute(text("DROP INDEX seat_keys_by_key"))
        conn.execute(text("DELETE FROM seat_keys WHERE seat = 1"))
    create_schema(engine, None)
    assert again.key_matches(BOB.key_id)["total"] == 1
    assert again.key_matches(ANN.key_id)["total"] == 3


def test_the_listing_reads_the_key_index(engine: Engine, ledger: Ledger) -> None:
    _three(ledger)
    assert any(index["name"] == "seat_keys_by_key"
               for index in inspect(engine).get_indexes("seat_keys"))
    if engine.dialect.name != "sqlite":
        return
    for before in (None, (1_900_000_000_000, "ffff")):  # the first page, and a later one
        statement = page_query(ANN.key_id, 51, before).compile(
            dialect=engine.dialect, compile_kwargs={"literal_binds": True})
        with engine.connect() as conn:
            plan = " ".join(str(row[-1]) for row in conn.execute(
                text(f"EXPLAIN QUERY PLAN {statement}")))
        assert "seat_keys_by_key" in plan and "TEMP B-TREE" not in plan, plan


def test_search_by_name_by_match_id_prefix_and_by_key_id(ledger: Ledger) -> None:
    won, lost, _ = _three(ledger)
    by_name = ledger.search("bob")
    assert by_name["kind"] == "name" and [m["id"] for m in by_name["matches"]] == [lost, won]
    assert by_name["matches"][1]["seat_key_ids"] == [ANN.key_id, BOB.key_id]
    by_id = ledger.search(won[:6])
    assert by_id["kind"] == "prefix" and won in [m["id"] for m in by_id["matches"]]
    by_key = ledger.search(ANN.key_id[:6])
    assert by_key["kind"] == "prefix"
    assert [k["key_id"] for k in by_key["keys"]] == [ANN.key_id]
    assert by_key["keys"][0]["names"][0] == {"name": "ann", "seats": 2}
    assert ledger.search("an")["matches"] == []  # names match exactly, not by part
    assert ledger.search("annie")["matches"][0]["id"] == lost
    with pytest.raises(BadRequest, match="type a match id"):
        ledger.search("   ")


def test_a_key_registered_but_never_signed_with_is_not_the_keys(engine: Engine) -> None:
    """Anyone can register anyone's public key: a seat that then signs nothing (the server
    declines its seed at the deadline) must not put a match on that key's page."""
    from fairdeal.verifier.protocol import MIN_SEATING_MS

    now = [1_800_000_000_000]
    ledger = Ledger(EventStore(engine), SigningKey.from_seed(b"\x06" * 32),
                    clock=lambda: now[0])
    created = ledger.create_match("arcomage", {}, turn_limit_ms=None,
                                  seats=["mallory", "eve"], seed_deadline_ms=MIN_SEATING_MS)
    tokens = [seat["token"] for seat in created["seats"]]
    ledger.register_key(created["id"], tokens[1], EVE.public_text)  # eve's key, not eve
    ledger.add_seed(created["id"], tokens[0], None)
    now[0] += MIN_SEATING_MS
    assert ledger.spectator_view(created["id"])["status"] == "playing"  # seat 1 declined
    ledger.resign(created["id"], tokens[0])  # "eve" wins without ever signing
    with pytest.raises(KeyNotFound):
        ledger.key_matches(EVE.key_id)
    assert ledger.search(created["id"])["matches"][0]["seat_key_ids"] == [None, None]
    played = keyed_match(ledger, ("eve", "bob"), (EVE, None), loser=1)
    page = ledger.key_matches(EVE.key_id)
    assert [m["id"] for m in page["matches"]] == [played] and page["total"] == 1
    # the same holds for a store filled from its events
    _as_before_the_index(engine)
    create_schema(engine, None)
    assert [m["id"] for m in ledger.key_matches(EVE.key_id)["matches"]] == [played]
