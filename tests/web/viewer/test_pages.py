"""Every viewer page and error through Flask's test client."""

from __future__ import annotations

import json
import re
from typing import Any

from fairdeal.verifier.bundle import Bundle
from fairdeal.verifier.replay import replay_steps
from fairdeal.verifier.report import CHECKS, OPTIONAL_CHECKS
from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app

#: the checks that pass on an honest bundle (the optional ones are skipped without input)
REQUIRED_CHECKS = len(CHECKS) - len(OPTIONAL_CHECKS)


def _id(bundle: dict[str, Any]) -> str:
    return str(bundle["events"][0]["match_id"])


def test_home_lists_matches_with_badges_and_verdicts(client: Any, arcomage_bundles: Any,
                                                     toybattle_bundles: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    for bundle in arcomage_bundles + toybattle_bundles:
        assert f"/m/{_id(bundle)}" in page
    assert "Two-tower duel" in page and "Toy Battle" in page
    assert "normal deck" in page and "1:00 per turn" in page
    assert page.count("✓ verified") == 5
    assert 'name="bundle"' in page  # the upload box


def test_home_search_redirects_to_the_match_or_says_none(client: Any,
                                                         arcomage_bundles: Any) -> None:
    match_id = _id(arcomage_bundles[0])
    response = client.get(f"/?q={match_id}")
    assert response.status_code == 302 and response.location.endswith(f"/m/{match_id}")
    page = client.get("/?q=<b>nope</b>").get_data(as_text=True)
    assert "No match with id" in page and "<b>nope</b>" not in page
    assert "&lt;b&gt;nope&lt;/b&gt;" in page


def test_match_page_shows_the_step_the_event_list_and_every_check(client: Any,
                                                                  arcomage_bundles: Any) -> None:
    bundle = arcomage_bundles[0]
    match_id = _id(bundle)
    page = client.get(f"/m/{match_id}?step=3").get_data(as_text=True)
    assert "<svg" in page
    assert 'id="step-number">3<' in page
    assert 'aria-current="step"' in page
    # the stepper's plain links work without JavaScript
    assert f'href="/m/{match_id}?step=2#2"' in page and f'href="/m/{match_id}?step=4#4"' in page
    for name in ("chain", "signature", "commitment", "timing", "deal", "moves", "result"):
        assert f'data-check="{name}"' in page
    assert page.count("status-pass") == REQUIRED_CHECKS
    genesis = bundle["events"][0]
    assert genesis["commitment"] in page and bundle["events"][-1]["server_seed"] in page
    # the test's store counts the bundles' key as its own: the command pins it
    assert f"fairdeal verify --trusted-key {bundle['signature']['key']} {match_id}.json" in page
    assert f'/m/{match_id}/bundle.json' in page
    assert 'property="og:title"' in page and f"/m/{match_id}?step=3" in page


def test_step_is_clamped_and_garbage_steps_fall_back(client: Any, arcomage_bundles: Any) -> None:
    bundle = arcomage_bundles[0]
    match_id = _id(bundle)
    _, steps, _ = replay_steps(bundle["events"], bytes.fromhex(bundle["events"][-1]["server_seed"]))
    page = client.get(f"/m/{match_id}?step=99999").get_data(as_text=True)
    assert f'id="step-number">{len(steps) - 1}<' in page
    page = client.get(f"/m/{match_id}?step=abc").get_data(as_text=True)
    assert 'id="step-number">0<' in page


def test_step_fragment_matches_the_replay(client: Any, arcomage_bundles: Any) -> None:
    bundle = arcomage_bundles[1]
    match_id = _id(bundle)
    replayer, steps, _ = replay_steps(bundle["events"],
                                      bytes.fromhex(bundle["events"][-1]["server_seed"]))
    data = client.get(f"/m/{match_id}/step/5.json").get_json()
    assert data["step"] == 5 and data["seq"] == steps[5].seq
    assert data["board"].strip() == replayer.game.render_svg(steps[5].state, None).strip()
    seat_a = client.get(f"/m/{match_id}/step/5.json?view=a").get_json()
    assert seat_a["board"].strip() == replayer.game.render_svg(steps[5].state, 0).strip()


def test_perspective_switch_offers_both_seats_and_the_spectator(client: Any,
                                                               toybattle_bundles: Any) -> None:
    match_id = _id(toybattle_bundles[0])
    page = client.get(f"/m/{match_id}?step=2&view=red").get_data(as_text=True)
    assert "Seat blue:" in page and "Seat red:" in page and "Spectator (all revealed)" in page
    assert re.search(r'class="chip is-on" data-view="red"', page)


def test_embed_and_download(client: Any, arcomage_bundles: Any, helpers: Any) -> None:
    bundle = arcomage_bundles[0]
    match_id = _id(bundle)
    embed = client.get(f"/embed/{match_id}?step=2")
    assert embed.status_code == 200 and "<svg" in embed.get_data(as_text=True)
    assert "frame-ancestors" in embed.headers["Content-Security-Policy"]
    download = client.get(f"/m/{match_id}/bundle.json")
    assert download.data == helpers.bundle_bytes(bundle)
    assert f'filename="{match_id}.json"' in download.headers["Content-Disposition"]


def test_unknown_match_is_a_404_page_not_a_500(client: Any) -> None:
    response = client.get("/m/doesnotexist")
    assert response.status_code == 404 and "Match not found" in response.get_data(as_text=True)
    assert client.get("/m/bad%20id!").status_code == 404
    assert client.get("/m/doesnotexist/step/1.json").get_json()["error"]
    assert client.get("/u/u-0123456789abcdef0123456789abcdef").status_code == 410


def test_player_names_are_escaped(helpers: Any) -> None:
    nasty = ("<script>alert(1)</script>", '"><img src=x onerror=alert(2)>')
    bundle = helpers.simulate("arcomage", 1, seed="nasty", seats=nasty)[0]
    store = MemoryLedger()
    match_id, _ = store.import_bundle(helpers.bundle_bytes(bundle))  # still verifies
    assert match_id
    client = create_viewer_app(store).test_client()
    for url in ("/", f"/m/{match_id}?step=1", f"/embed/{match_id}"):
        page = client.get(url).get_data(as_text=True)
        assert "<script>alert(1)" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_upload_a_good_bundle_shows_the_report_without_storing(client: Any, store: Any,
                                                               helpers: Any) -> None:
    bundle = helpers.simulate("arcomage", 1, seed="upload")[0]
    data = helpers.bundle_bytes(bundle)
    response = client.post("/upload", data={"pasted": data.decode()})
    assert response.status_code == 303 and "/u/u-" in response.location
    page = client.get(response.location).get_data(as_text=True)
    assert "not stored" in page and "✓ every check passed" in page and "<svg" in page
    assert store.list_matches(50, 0) and _id(bundle) not in str(store.list_matches(50, 0))
    # stepping an upload works too
    step = client.get(response.location.split("?")[0] + "/step/2.json")
    assert step.get_json()["step"] == 2


def test_upload_with_store_imports_and_redirects(client: Any, store: Any, helpers: Any) -> None:
    import io

    bundle = helpers.simulate("toybattle", 1, seed="store-me")[0]
    data = helpers.bundle_bytes(bundle)
    response = client.post("/upload", data={"bundle": (io.BytesIO(data), "m.json"), "store": "1"},
                           content_type="multipart/form-data")
    assert response.status_code == 303 and response.location.endswith(f"/m/{_id(bundle)}")
    assert store.bundle_bytes(_id(bundle)) is not None


def test_tampered_upload_names_the_failing_event_and_stops_the_stepper(
        client: Any, store: Any, arcomage_bundles: Any, helpers: Any) -> None:
    forged, seq = helpers.tamper_move(arcomage_bundles[0], 4)
    response = client.post("/upload", data={"pasted": helpers.bundle_bytes(forged).decode(),
                                            "store": "1"})
    assert response.status_code == 303  # shown, but never stored
    assert store.bundle_bytes(_id(forged)) is not None  # the honest original is the stored one
    page = client.get(response.location).get_data(as_text=True)
    assert "✗ does not verify" in page
    assert f"moves check failed at event {seq}" in page
    assert f'class="event kind-move is-failed" id="event-{seq}"' in page
    assert "It was not stored because it does not verify." in page
    last = int(re.search(r'id="step-last">(\d+)<', page).group(1))  # type: ignore[union-attr]
    assert last == 4  # the deal and the four plays before the forged one


def test_bad_json_gets_the_parsers_message(client: Any) -> None:
    response = client.post("/upload", data={"pasted": '{"format": "fairdeal.bundle/1",'})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "not valid JSON at line 1 column" in page and "truncated" in page
    response = client.post("/upload", data={"pasted": "[1.5]"})
    assert "numbers must be integers" in response.get_data(as_text=True)


def test_uploaded_content_is_escaped(client: Any) -> None:
    response = client.post("/upload", data={"pasted": '{"format": "<script>x</script>"}'})
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "<script>x</script>" not in page


def test_empty_upload_is_a_400(client: Any) -> None:
    assert client.post("/upload", data={"pasted": "  "}).status_code == 400


def test_size_limit_has_a_clear_page(client: Any) -> None:
    import io

    big = b"{" + b" " * (6 * 1024 * 1024) + b"}"
    response = client.post("/upload", data={"bundle": (io.BytesIO(big), "big.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 413
    assert "too large" in response.get_data(as_text=True)
    response = client.post("/upload", data={"pasted": " " * (6 * 1024 * 1024)})
    assert response.status_code == 413


def test_live_match_is_never_called_verified(arcomage_bundles: Any) -> None:
    store = MemoryLedger()
    events = json.loads(json.dumps(arcomage_bundles[0]["events"][:-1]))  # no reveal yet
    match_id = store.add_live(events[:8])
    client = create_viewer_app(store).test_client()
    page = client.get(f"/m/{match_id}").get_data(as_text=True)
    assert "not yet verifiable — seed revealed at the end" in page
    assert "✓ every check passed" not in page and "every check passed" not in page
    assert "status-pending" in page and 'data-check="chain"' in page
    assert client.get(f"/m/{match_id}/bundle.json").status_code == 404
    live = client.get(f"/m/{match_id}/live.json").get_json()
    assert live == {"match_id": match_id, "events": 8, "ended": False}
    home = client.get("/").get_data(as_text=True)
    assert "live · not yet verifiable" in home and "✓ verified" not in home


def test_store_an_uploaded_bundle_afterwards(client: Any, store: Any, helpers: Any) -> None:
    bundle = helpers.simulate("arcomage", 1, seed="later")[0]
    response = client.post("/upload", data={"pasted": helpers.bundle_bytes(bundle).decode()})
    stored = client.post(response.location.split("?")[0] + "/store")
    assert stored.status_code == 303 and store.get_match(_id(bundle)) is not None
    assert Bundle.from_bytes(store.bundle_bytes(_id(bundle))).match_id == _id(bundle)


def test_an_unpinned_key_is_said_to_be_unpinned(arcomage_bundles: Any, helpers: Any) -> None:
    store = MemoryLedger()  # a viewer that holds no key: every bundle is another's
    match_id = store.import_bundle(helpers.bundle_bytes(arcomage_bundles[0]))[0]
    page = create_viewer_app(store).test_client().get(f"/m/{match_id}").get_data(as_text=True)
    assert "not pinned" in page and "this server's key" not in page
    assert "signed by another server" in page and f"fairdeal verify {match_id}.json" in page


def test_pinning_a_key_on_upload(client: Any, arcomage_bundles: Any, helpers: Any) -> None:
    from fairdeal.verifier.keys import SigningKey

    data = helpers.bundle_bytes(arcomage_bundles[0]).decode()
    other = SigningKey.from_seed(b"\x07" * 32).public_text
    response = client.post("/upload", data={"pasted": data, "trusted_key": other})
    page = client.get(response.location).get_data(as_text=True)
    assert "signature check failed" in page and "not the trusted key" in page
    right = arcomage_bundles[0]["signature"]["key"]
    response = client.post("/upload", data={"pasted": data, "trusted_key": right})
    page = client.get(response.location).get_data(as_text=True)
    assert "✓ every check passed" in page and "pinned to the key you gave" in page
    response = client.post("/upload", data={"pasted": data, "trusted_key": "ed25519:zz"})
    assert response.status_code == 400 and "not a public key" in response.get_data(as_text=True)


def test_pages_forbid_inline_scripts(client: Any, arcomage_bundles: Any) -> None:
    match_id = _id(arcomage_bundles[0])
    page = client.get(f"/m/{match_id}")
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in page.headers["Content-Security-Policy"]
    embed = client.get(f"/embed/{match_id}")
    assert "frame-ancestors *" in embed.headers["Content-Security-Policy"]
    assert "<script>" not in page.get_data(as_text=True)  # only external scripts


def test_home_filters_by_game(client: Any, arcomage_bundles: Any, toybattle_bundles: Any) -> None:
    page = client.get("/?game=toybattle").get_data(as_text=True)
    assert all(f"/m/{_id(b)}" in page for b in toybattle_bundles)
    assert not any(f"/m/{_id(b)}" in page for b in arcomage_bundles)
    page = client.get("/?game=<nope>").get_data(as_text=True)  # unknown: every game
    assert all(f"/m/{_id(b)}" in page for b in arcomage_bundles + toybattle_bundles)
