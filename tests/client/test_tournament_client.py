"""fairdeal.client.tournaments against a real `fairdeal serve` process: what a player signs is
the event the server stores (the signature checks out over the stored event with the player's
own key), registrations racing for the same position are each signed again and all land, bots
play a paired match (both seats, or each its own seat for two parties) and it counts — on a
SQLite file and on PostgreSQL."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairdeal.client import ApiClient, ApiError
from fairdeal.client.tournament_bots import (
    TournamentBot,
    enter_bots,
    play_paired_match,
    play_tournament,
)
from fairdeal.client.tournaments import (
    TournamentClient,
    create_key_file,
    load_key_file,
    read_token,
    write_secret,
)
from fairdeal.verifier.keys import SigningKey, parse_public_key, verify_signature
from fairdeal.verifier.tournament.primitives import event_hash, signed_message

from ..processes import ServeProcess, fresh_database

ARBITER = SigningKey.from_seed(b"\x07" * 32)


@pytest.fixture(scope="module",
                params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """A `fairdeal serve` process on a SQLite file, or on PostgreSQL (a fresh schema)."""
    with fresh_database(request.param) as url:
        process = ServeProcess(tmp_path_factory.mktemp("data"), url)
        process.start()
        yield process
        process.stop()


def _create(client: TournamentClient, **fields: object) -> dict[str, object]:
    return client.create({"name": "club night", "game": "toybattle", "system": "round-robin",
                          "rounds": 1, "arbiter_key": ARBITER.public_text,
                          "turn_limit_ms": 60_000, **fields})


def test_what_a_player_signs_is_the_event_the_server_stores(server: ServeProcess) -> None:
    client = TournamentClient(ApiClient(server.url))
    created = _create(client)
    key = SigningKey.from_seed(b"\x11" * 32)
    answer = client.register(str(created["id"]), key, "ann", "ab" * 32)
    assert answer["player"] == key.key_id and answer["player_token"]
    events = client.events(str(created["id"]))
    stored = events[-1]
    assert stored["type"] == "register" and stored["name"] == "ann"
    assert stored["prev"] == event_hash(events[-2])
    assert verify_signature(parse_public_key(key.public_text), bytes.fromhex(stored["sig"]),
                            signed_message(stored))


def test_registrations_racing_for_one_position_are_signed_again_and_all_land(
        server: ServeProcess) -> None:
    client = TournamentClient(ApiClient(server.url))
    tournament_id = str(_create(client)["id"])
    keys = [SigningKey.from_seed(bytes([0x20 + n]) * 32) for n in range(6)]
    failures: list[BaseException] = []

    def register(key: SigningKey) -> None:
        try:
            client.register(tournament_id, key, f"p{key.key_id[:4]}")
        except BaseException as e:  # noqa: BLE001  asserted below
            failures.append(e)

    threads = [threading.Thread(target=register, args=(key,)) for key in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    players = {p["player"] for p in client.get(tournament_id)["players"]}
    assert players == {key.key_id for key in keys}


def test_a_second_registration_of_a_key_is_the_servers_refusal(server: ServeProcess) -> None:
    client = TournamentClient(ApiClient(server.url))
    tournament_id = str(_create(client)["id"])
    key = SigningKey.from_seed(b"\x31" * 32)
    client.register(tournament_id, key, "ann")
    with pytest.raises(ApiError) as refused:
        client.register(tournament_id, key, "ann again")
    assert refused.value.code == "already-registered"


def test_bots_play_a_paired_match_with_their_tournament_keys_and_it_counts(
        server: ServeProcess) -> None:
    """The match the server created for a pairing is played by the bots from its seeds on,
    their registered keys as its seat keys, verified sealed with them pinned; the tournament
    then shows its result, read off the match."""
    api = ApiClient(server.url)
    client = TournamentClient(api)
    organiser = _create(client)
    tournament_id = str(organiser["id"])
    bots = enter_bots(client, tournament_id, 2, random.Random(3))
    client.start(tournament_id, str(organiser["organiser_token"]))
    client.pair(tournament_id, str(organiser["organiser_token"]))
    pairing = client.get(tournament_id)["rounds"][0]["pairings"][0]
    by_id = {bot.player: bot for bot in bots}
    seats = [by_id[seat] for seat in pairing["seats"]]
    server_key = api.call("GET", "/keys")["keys"][0]["key"]
    played = play_paired_match(api, pairing["match_id"], seats, rng=random.Random(1),
                               server_key=server_key)
    assert played["seat_keys"] == [bot.key.public_text for bot in seats]
    assert played["receipts"]["receipts"], "every write's receipt was kept"
    shown = client.get(tournament_id)["rounds"][0]["pairings"][0]
    assert shown["result"] is not None and shown["result"]["match_id"] == pairing["match_id"]
    winner = played["result"]["winner"]
    assert shown["result"]["winner"] == (None if winner is None else seats[winner].player)


def test_bots_of_two_parties_each_play_their_own_seat_of_a_match(
        server: ServeProcess) -> None:
    """Two runners, each with one bot: neither holds the other's token, so each plays its own
    seat alone (seed committed, revealed once both committed, moves on its turns), and both
    see the match verified with both players' keys pinned."""
    api = ApiClient(server.url)
    client = TournamentClient(api)
    organiser = _create(client)
    tournament_id = str(organiser["id"])
    first = enter_bots(client, tournament_id, 1, random.Random(5), name="ann")
    second = enter_bots(client, tournament_id, 1, random.Random(6), name="bo")
    client.start(tournament_id, str(organiser["organiser_token"]))
    results: list[list[dict[str, object]]] = []
    failures: list[BaseException] = []

    def run(bots: list[TournamentBot], token: str | None) -> None:
        try:
            results.append([item for item in play_tournament(
                server.url, tournament_id, bots, seed=1, organiser_token=token, timeout=120)
                if "result" in item])
        except BaseException as e:  # noqa: BLE001  asserted below
            failures.append(e)

    other = threading.Thread(target=run, args=(second, None))
    other.start()
    run(first, str(organiser["organiser_token"]))
    client.finish(tournament_id, str(organiser["organiser_token"]))
    other.join(60)
    assert not failures, failures
    assert len(results) == 2 and all(len(played) == 1 for played in results)
    assert results[0][0]["id"] == results[1][0]["id"]
    pinned = [first[0].key.public_text, second[0].key.public_text]
    assert sorted(results[0][0]["seat_keys"]) == sorted(pinned)  # type: ignore[arg-type]


def test_key_and_token_files_are_private_and_checked(tmp_path: Path) -> None:
    key = create_key_file(tmp_path / "p.pem")
    assert load_key_file(tmp_path / "p.pem").public_text == key.public_text
    assert (tmp_path / "p.pem").stat().st_mode & 0o077 == 0
    write_secret(tmp_path / "p.token", b"abc\n")
    assert read_token(tmp_path / "p.token") == "abc"
    write_secret(tmp_path / "two.token", b"a b\n")
    with pytest.raises(ValueError, match="does not hold a token"):
        read_token(tmp_path / "two.token")
