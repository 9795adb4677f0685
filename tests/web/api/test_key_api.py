"""GET /api/v1/keys/<key id>/matches and GET /api/v1/search over a real ledger: pages that
follow the cursor, names beside keys, and a clear JSON error (never a 500) for a malformed,
ambiguous or unknown key id and for bad query parameters; both routes in the OpenAPI document."""

from __future__ import annotations

from openapi_spec_validator import validate

from ...keyed import ANN, BOB, keyed_match


def test_a_keys_matches_page_by_page(ledger, client) -> None:
    ids = [keyed_match(ledger, ("ann", "bob"), (ANN, BOB), loser=n % 2) for n in range(3)]
    first = client.get(f"/api/v1/keys/{ANN.key_id}/matches?limit=2")
    assert first.status_code == 200
    page = first.get_json()
    assert [m["id"] for m in page["matches"]] == ids[::-1][:2]
    assert [m["key_result"] for m in page["matches"]] == ["loss", "win"]  # seat 0 lost 0, 2
    assert page["names"] == [{"name": "ann", "seats": 3}]
    assert page["record"] == {"arcomage": {"wins": 1, "losses": 2, "draws": 0,
                                           "unfinished": 0}}
    rest = client.get(f"/api/v1/keys/{ANN.key_id[:6]}/matches",
                      query_string={"limit": 2, "cursor": page["next_cursor"]}).get_json()
    assert [m["id"] for m in rest["matches"]] == [ids[0]] and rest["next_cursor"] is None
    assert rest["key_id"] == ANN.key_id  # a prefix answers with the full id


def test_bad_key_ids_and_queries_are_clear_json_errors(ledger, client) -> None:
    keyed_match(ledger, ("ann", "bob"), (ANN, None), loser=1)
    unknown = "ffff" if not ANN.key_id.startswith("ffff") else "0000"
    cases = [(f"/api/v1/keys/{unknown}/matches", 404, "key-not-found"),
             ("/api/v1/keys/xyz/matches", 400, "invalid-key-id"),
             ("/api/v1/keys/abc/matches", 400, "invalid-key-id"),
             (f"/api/v1/keys/{'a' * 300}/matches", 400, "invalid-key-id"),
             (f"/api/v1/keys/{ANN.key_id}/matches?cursor=x", 400, "invalid-cursor"),
             (f"/api/v1/keys/{ANN.key_id}/matches?cursor=9999999999999999999.ab", 400,
              "invalid-cursor"),
             (f"/api/v1/keys/{ANN.key_id}/matches?limit=0", 400, "invalid-query"),
             (f"/api/v1/keys/{ANN.key_id}/matches?limit=99999999999999999999999", 400,
              "invalid-query"),
             (f"/api/v1/keys/{ANN.key_id}/matches?page=2", 400, "invalid-query"),
             ("/api/v1/search?q=", 400, "invalid-query"),
             ("/api/v1/search?q=" + "n" * 201, 400, "invalid-query")]
    for path, status, code in cases:
        response = client.get(path)
        assert response.status_code == status, (path, response.get_json())
        assert response.is_json and response.get_json()["error"]["code"] == code, path
        assert response.get_json()["error"]["message"]


def test_search_finds_names_with_their_keys_and_prefixes(ledger, client) -> None:
    match_id = keyed_match(ledger, ("ann", "bob"), (ANN, None), loser=1)
    by_name = client.get("/api/v1/search?q=ann").get_json()
    assert by_name["kind"] == "name" and by_name["matches"][0]["id"] == match_id
    assert by_name["matches"][0]["seat_key_ids"] == [ANN.key_id, None]
    by_key = client.get(f"/api/v1/search?q={ANN.key_id[:5]}").get_json()
    assert by_key["kind"] == "prefix" and by_key["keys"][0]["key_id"] == ANN.key_id
    by_id = client.get(f"/api/v1/search?q={match_id[:4]}").get_json()
    assert match_id in [m["id"] for m in by_id["matches"]]


def test_the_key_routes_are_in_the_openapi_document(client) -> None:
    document = client.get("/api/v1/openapi.json").get_json()
    validate(document)
    route = document["paths"]["/keys/{key_id}/matches"]["get"]
    assert {"200", "400", "404"} <= set(route["responses"])
    assert {p["name"] for p in route["parameters"]} == {"key_id", "limit", "cursor"}
    assert "/search" in document["paths"]


def test_a_keys_tournaments_page_by_page_and_its_errors(ledger, client) -> None:
    from ...tournament_play import registered

    # tournament_play's players have fixed keys: bot 0 and bot 1 are in every cup, and
    # bot 0 alone in the last one
    now = [ledger.clock()]
    ledger.clock = lambda: now[0]  # one ms apart, so newest first is one order

    def cup(count: int, name: str):
        now[0] += 1
        return registered(ledger, count, name=name)

    made = [cup(2, f"cup {number}")[0] for number in range(3)]
    _, players = cup(1, "one more")
    key = ledger.tournament(made[0]["id"])["players"][1]["player"]
    first = client.get(f"/api/v1/keys/{key}/tournaments?limit=2")
    assert first.status_code == 200
    page = first.get_json()
    assert [item["name"] for item in page["tournaments"]] == ["cup 2", "cup 1"]
    assert page["tournaments"][0]["player"]["name"] == "bot 1"
    rest = client.get(f"/api/v1/keys/{key}/tournaments",
                      query_string={"cursor": page["next_cursor"]}).get_json()
    assert [item["id"] for item in rest["tournaments"]] == [made[0]["id"]]
    assert rest["next_cursor"] is None
    by_public_key = client.get(f"/api/v1/keys/{players[0].key.public_text}/tournaments")
    assert [item["name"] for item in by_public_key.get_json()["tournaments"]] == [
        "one more", "cup 2", "cup 1", "cup 0"]
    cases = [(f"/api/v1/keys/{key[:6]}/tournaments", "invalid-key-id"),
             ("/api/v1/keys/xyz/tournaments", "invalid-key-id"),
             (f"/api/v1/keys/{key}/tournaments?cursor=x", "invalid-cursor"),
             (f"/api/v1/keys/{key}/tournaments?cursor={'9' * 23}:t-x", "invalid-cursor"),
             (f"/api/v1/tournaments?cursor={'9' * 23}:t-x", "invalid-cursor"),
             ("/api/v1/tournaments?cursor=²:t-x", "invalid-cursor"),
             (f"/api/v1/keys/{key}/tournaments?limit=0", "invalid-query"),
             (f"/api/v1/keys/{key}/tournaments?page=2", "invalid-query")]
    for path, code in cases:
        response = client.get(path)
        assert response.status_code == 400, (path, response.get_json())
        assert response.get_json()["error"]["code"] == code, path
    document = client.get("/api/v1/openapi.json").get_json()
    route = document["paths"]["/keys/{key_id}/tournaments"]["get"]
    assert {"200", "400"} <= set(route["responses"])
    assert {p["name"] for p in route["parameters"]} == {"key_id", "limit", "cursor"}
