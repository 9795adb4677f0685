"""The verifier in the visitor's browser: Debian's chromium, Pyodide served by fairdeal itself,
fairdeal's own packages, against the command line's reports.

Pyodide loads once for the /verify page, which checks every fixture in one go; the match pages
load it again from the browser's cache."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from fairdeal.web.viewer.runtime import (
    RuntimeUnavailable,
    fetch_runtime,
    runtime_dir,
    runtime_ready,
)

from .browsing import NEEDS_CHROMIUM, SHOTS, chromium, serving

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures" / "bundles"
EXPECTED = json.loads((ROOT / "fixtures" / "tampered-expected.json").read_text())
TAMPERED = sorted(FIXTURES / "tampered" / f"{name}.json" for name in EXPECTED)
HONEST = sorted((FIXTURES / "honest").glob("*.json"))
SERVER_KEY = (FIXTURES / "server-key.txt").read_text().strip()
#: Pyodide's first start on a loaded two-core machine takes a while
SLOW = 120_000

pytestmark = NEEDS_CHROMIUM


def _cli_reports(paths: list[Path], *options: str) -> dict[str, dict[str, Any]]:
    """`fairdeal verify --json` on each file, by file name (without the "file" key)."""
    fairdeal = Path(sys.executable).with_name("fairdeal")
    command = [str(fairdeal)] if fairdeal.exists() else [sys.executable, "-m",
                                                         "fairdeal.cli.main"]
    done = subprocess.run(command + ["verify", "--json", *options, *map(str, paths)],
                          capture_output=True, text=True)
    printed = json.loads(done.stdout)
    reports = {}
    for report in printed if isinstance(printed, list) else [printed]:
        reports[Path(report.pop("file")).name] = report
    return reports


def _without_browser(report: dict[str, Any]) -> dict[str, Any]:
    rest = dict(report)
    browser = rest.pop("browser")
    assert browser["signatures"] == "pure-python"  # no cryptography in the browser
    return rest


class RequestLog:
    """Every request the server saw: (method, path); and each one whole — its query string,
    headers and body — in ``raw``, to show what a request did not carry."""

    def __init__(self, app: Any) -> None:
        self.seen: list[tuple[str, str]] = []
        self.raw: list[str] = []
        self._app = app.wsgi_app
        app.wsgi_app = self

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        self.seen.append((environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")))
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        headers = {name: value for name, value in environ.items() if name.startswith("HTTP_")}
        self.raw.append(f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO', '')}?"
                        f"{environ.get('QUERY_STRING', '')} {headers!r} {body!r}")
        return self._app(environ, start_response)


@pytest.fixture(scope="module")
def runtime() -> Path:
    """The pinned Pyodide, fetched with npm if this checkout has not got it yet. Without npm
    or its registry these tests are skipped, saying why — except where
    FAIRDEAL_REQUIRE_BROWSER=1 (.ci/run sets it): there they must run."""
    folder = runtime_dir()
    if not runtime_ready(folder):
        try:
            fetch_runtime(folder)
        except RuntimeUnavailable as e:
            if os.environ.get("FAIRDEAL_REQUIRE_BROWSER") == "1":
                raise
            pytest.skip(f"the browser verifier's runtime (Pyodide, from the npm registry) is "
                        f"not in {folder} and cannot be fetched here: {e}")
    return folder


@pytest.fixture(scope="module")
def site(runtime: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The project's app over a real ledger (SQLite) holding every honest fixture."""
    from fairdeal.ledger.keys import KEY_FILE
    from fairdeal.verifier.keys import SigningKey
    from fairdeal.web.app import create_app

    # the server that sealed the fixtures (fixtures/build.py's SERVER_KEY): its pages say "✓"
    # for them, not "signed by another server"
    data_dir = tmp_path_factory.mktemp("ledger")
    key = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())
    assert key.public_text == (FIXTURES / "server-key.txt").read_text().strip()
    (data_dir / KEY_FILE).write_bytes(key.to_pem())
    (data_dir / KEY_FILE).chmod(0o600)
    app = create_app({"FAIRDEAL_DATA_DIR": str(data_dir), "FAIRDEAL_SWEEPER": False})
    ledger = app.extensions["fairdeal.ledger"]
    ids = {}
    for path in HONEST:
        match_id, report = ledger.import_bundle(path.read_bytes())
        assert match_id is not None, report.failure
        ids[path.stem] = match_id
    log = RequestLog(app)
    with serving(app) as url:
        yield {"url": url, "ids": ids, "log": log, "ledger": ledger}


@pytest.fixture(scope="module")
def browser(runtime: Path) -> Iterator[Any]:
    """Started only once the runtime is known to be there: a skip costs no Chromium."""
    with chromium() as launched:
        yield launched


def _tab(browser: Any, origin: str) -> tuple[Any, Any, dict[str, list[str]]]:
    """A tab whose network reaches ``origin`` only; what it tried is recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tried: dict[str, list[str]] = {"blocked": [], "posts": [], "errors": [], "requests": []}

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if url.startswith(origin + "/"):
            request_route.continue_()
        else:
            tried["blocked"].append(url)
            request_route.abort()

    context.route("**/*", route)
    context.on("request", lambda request: request.method != "GET"
               and tried["posts"].append(f"{request.method} {request.url}"))
    # every request whole, the worker's included: what it carried, to show what it did not
    context.on("request", lambda request: tried["requests"].append(
        f"{request.method} {request.url} {request.headers!r} {request.post_data!r}"))
    tab = context.new_page()
    tab.on("pageerror", lambda error: tried["errors"].append(str(error)))
    return context, tab, tried


def _shot(tab: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _wait_browser_verdict(tab: Any) -> str:
    tab.wait_for_function("() => ['agree', 'disagree', 'error'].includes("
                          "document.getElementById('browser-verify').dataset.state)",
                          timeout=SLOW)
    state: str = tab.evaluate("document.getElementById('browser-verify').dataset.state")
    return state


@pytest.fixture(scope="module")
def verify_tab(browser: Any, site: dict[str, Any]) -> Iterator[tuple[Any, dict[str, list[str]]]]:
    """One /verify page for the module: Pyodide starts once, many bundles are checked."""
    context, tab, tried = _tab(browser, site["url"])
    tab.goto(site["url"] + "/verify")
    tab.wait_for_selector("#verify-page[data-state=ready]")
    yield tab, tried
    context.close()


def _verify_files(tab: Any, paths: list[Path]) -> dict[str, dict[str, Any]]:
    tab.set_input_files("#verify-files", [str(path) for path in paths])
    tab.wait_for_function("n => document.getElementById('verify-page').dataset.done === "
                          "String(n)", arg=len(paths), timeout=SLOW + 2_000 * len(paths))
    results = tab.evaluate("window.fairdealVerifyResults")
    return {result["name"]: result["report"] for result in results}


def test_every_tampered_fixture_fails_in_the_browser_where_the_cli_says(
        verify_tab: tuple[Any, dict[str, list[str]]], site: dict[str, Any]) -> None:
    tab, tried = verify_tab
    # as tests/verifier/test_fixtures.py does: with the server's key pinned
    tab.fill("#pinned-key", SERVER_KEY)
    tab.locator("#pin-key-form button[type=submit]").click()
    browser_reports = _verify_files(tab, TAMPERED)
    cli = _cli_reports(TAMPERED, "--trusted-key", SERVER_KEY)
    assert sorted(browser_reports) == sorted(cli) == sorted(p.name for p in TAMPERED)
    for name, report in browser_reports.items():
        expect = EXPECTED[name.removesuffix(".json")]
        assert not report["ok"], name
        assert report["failure"]["check"] == expect["check"], name
        if "seq" in expect:
            assert report["failure"]["seq"] == expect["seq"], name
        # the same report, word for word, as the command line's
        assert _without_browser(report) == cli[name], name
        card = tab.locator(f".verify-result[data-name='{name}']")
        assert card.get_attribute("data-check") == cli[name]["failure"]["check"]
        seq = cli[name]["failure"]["seq"]
        assert card.get_attribute("data-seq") == ("" if seq is None else str(seq))
        assert "does not verify" in card.inner_text()
    _shot(tab, "verify-tampered")
    assert not tried["errors"], tried["errors"]


def test_verify_page_checks_everything_here_and_sends_nothing(
        verify_tab: tuple[Any, dict[str, list[str]]], site: dict[str, Any]) -> None:
    tab, tried = verify_tab
    posts_before = [seen for seen in site["log"].seen if seen[0] != "GET"]
    tab.fill("#pinned-key", SERVER_KEY)
    tab.locator("#pin-key-form button[type=submit]").click()
    browser_reports = _verify_files(tab, HONEST)
    cli = _cli_reports(HONEST, "--trusted-key", SERVER_KEY)
    for name, report in browser_reports.items():
        assert report["ok"] and report["key_pinned"], name
        assert _without_browser(report) == cli[name], name
        card = tab.locator(f".verify-result[data-name='{name}']").inner_text()
        assert f"Who could have influenced this deal: {report['deal_influence']['text']}" in card
    # pasted JSON too, and a parse error in the parser's own words
    tab.fill("#verify-pasted", HONEST[0].read_text())
    tab.locator("#verify-paste").click()
    tab.wait_for_selector(".verify-result[data-ok=true]", timeout=SLOW)
    tab.fill("#verify-pasted", '{"format": "fairdeal.bundle/1", "events": [')
    tab.locator("#verify-paste").click()
    tab.wait_for_selector(".verify-result[data-check=format]", timeout=SLOW)
    assert "not valid JSON at line 1" in tab.locator(".verify-result").inner_text()
    _shot(tab, "verify-honest")
    # nothing left the browser: no request but GETs to this site, and the site saw no POST
    assert tried["posts"] == [] and tried["blocked"] == []
    assert [seen for seen in site["log"].seen if seen[0] != "GET"] == posts_before == []
    gets = {path for method, path in site["log"].seen}
    assert "/pyodide/fairdeal.zip" in gets and "/pyodide/0.29.5/pyodide.asm.wasm" in gets
    assert not tried["errors"], tried["errors"]


def _match_tab(browser: Any, site: dict[str, Any], stem: str) -> tuple[Any, Any, Any]:
    context, tab, tried = _tab(browser, site["url"])
    tab.goto(f"{site['url']}/m/{site['ids'][stem]}")
    return context, tab, tried


def test_the_match_page_verifies_in_the_browser_beside_the_server(
        browser: Any, site: dict[str, Any], tmp_path: Path) -> None:
    stem = "arcomage-signed-moves"
    context, tab, tried = _match_tab(browser, site, stem)
    assert _wait_browser_verdict(tab) == "agree"
    report = tab.evaluate("window.fairdealBrowserReport")
    # the bytes the browser read are the API's bundle: the CLI on those bytes says the same
    served = tmp_path / f"{stem}.json"
    served.write_bytes(site["ledger"].bundle(site["ids"][stem]))
    assert _without_browser(report) == _cli_reports([served])[served.name]
    assert tab.locator("#browser-disagreement").is_hidden()
    rows = tab.locator("#verification .check-row")
    assert rows.count() == len(report["checks"]) > 10
    for index, check in enumerate(report["checks"]):
        row = rows.nth(index)
        assert row.get_attribute("data-check") == check["name"]
        assert row.locator(".browser-mark").get_attribute("data-browser-status") == \
            check["status"] == row.get_attribute("data-status")
    assert {check["status"] for check in report["checks"]} <= {"pass", "skipped"}
    # who could have influenced this deal: the browser's own line, the server's beside it
    influence = report["deal_influence"]["text"]
    assert tab.locator("#browser-influence").inner_text() == influence
    assert tab.locator("#server-influence").inner_text() == influence
    assert "every check passed in your browser" in tab.locator("#browser-status").inner_text()
    api = [path for method, path in site["log"].seen if path.startswith("/api/v1/matches/")]
    assert f"/api/v1/matches/{site['ids'][stem]}/bundle" in api
    _shot(tab, "match-browser-verified")

    # a pinned key is checked in the browser, and kept there
    tab.fill("#pinned-key", SERVER_KEY)
    tab.locator("#pin-key-form button[type=submit]").click()
    tab.wait_for_function("() => window.fairdealBrowserReport.key_pinned === true", timeout=SLOW)
    assert "signed by the key you pinned" in tab.locator("#browser-status").inner_text()
    tab.reload()
    assert _wait_browser_verdict(tab) == "agree"
    assert tab.locator("#pinned-key").input_value() == SERVER_KEY
    assert tab.evaluate("window.fairdealBrowserReport.key_pinned") is True

    # another key: the browser refuses the signature, and says loudly that it disagrees
    other = "ed25519:" + "11" * 32
    tab.fill("#pinned-key", other)
    tab.locator("#pin-key-form button[type=submit]").click()
    tab.wait_for_function("() => document.getElementById('browser-verify').dataset.state "
                          "=== 'disagree'", timeout=SLOW)
    alarm = tab.locator("#browser-disagreement").inner_text()
    assert "disagree" in alarm and "signature: server pass, browser fail" in alarm
    assert "not the trusted key" in tab.locator("#browser-failure").inner_text()
    _shot(tab, "match-browser-wrong-key")
    tab.locator("#forget-key").click()
    tab.wait_for_function("() => document.getElementById('browser-verify').dataset.state "
                          "=== 'agree'", timeout=SLOW)
    assert tab.evaluate("localStorage.getItem('fairdeal.pinnedKey')") is None
    assert not tried["errors"] and not tried["blocked"] and not tried["posts"]
    context.close()


def test_a_server_serving_other_bytes_than_it_vouches_for_is_caught(
        browser: Any, site: dict[str, Any]) -> None:
    """The page says the server's ✓; the bytes it hands the browser are forged (a man in the
    middle, or a lying server): the browser's own check fails, and the page says so loudly."""
    stem = "arcomage-archmage-citadel-normal"
    forged = (FIXTURES / "tampered" / "edited-move.json").read_bytes()
    where = EXPECTED["edited-move"]["seq"]
    context, tab, tried = _tab(browser, site["url"])
    context.route(f"**/api/v1/matches/{site['ids'][stem]}/bundle",
                  lambda request_route: request_route.fulfill(
                      status=200, body=forged, content_type="application/json"))
    tab.goto(f"{site['url']}/m/{site['ids'][stem]}")
    assert _wait_browser_verdict(tab) == "disagree"
    assert "✓ every check passed" in tab.locator(".verify-head").inner_text()
    alarm = tab.locator("#browser-disagreement")
    assert alarm.is_visible()
    assert "chain: server pass, browser fail" in alarm.inner_text()
    assert f"chain check failed at event {where}" in tab.locator("#browser-failure").inner_text()
    assert tab.locator("#verification .check-row[data-check=chain] .browser-mark") \
        .get_attribute("data-browser-status") == "fail"
    _shot(tab, "match-browser-disagrees")
    assert not tried["errors"]
    context.close()


def test_an_uploaded_tampered_bundle_fails_alike_in_browser_and_server(
        browser: Any, site: dict[str, Any]) -> None:
    path = FIXTURES / "tampered" / "swapped-card.json"
    context, tab, tried = _tab(browser, site["url"])
    tab.goto(site["url"] + "/upload")
    tab.set_input_files("#bundle-file", str(path))
    tab.locator("#verify-button").click()
    tab.wait_for_url("**/u/u-*")
    assert _wait_browser_verdict(tab) == "agree"
    report = tab.evaluate("window.fairdealBrowserReport")
    where = EXPECTED["swapped-card"]["seq"]
    assert (report["failure"]["check"], report["failure"]["seq"]) == ("moves", where)
    assert f"moves check failed at event {where}" in tab.locator("#browser-failure").inner_text()
    assert tab.locator("#browser-disagreement").is_hidden()
    assert not tried["errors"]
    context.close()


def test_a_verifier_that_cannot_start_says_what_to_do_instead(
        browser: Any, site: dict[str, Any]) -> None:
    """fairdeal's zip fails to arrive: the panel says the browser check could not run and what
    to do instead; it never shows a verdict it does not have."""
    for path, words in [("/pyodide/fairdeal.zip", "could not run: fairdeal's packages: HTTP 503"),
                        ("/verify-worker.js", "could not run: ")]:
        context, tab, tried = _tab(browser, site["url"])
        context.route(lambda url, path=path: urlsplit(url).path == path,
                      lambda request_route: request_route.fulfill(
                          status=503, body="busy", content_type="text/plain"))
        tab.goto(f"{site['url']}/m/{site['ids']['arcomage-untimed']}")
        assert _wait_browser_verdict(tab) == "error", path
        status = tab.locator("#browser-status").inner_text()
        assert words in status and "run `fairdeal verify` instead" in status, status
        assert "in your browser" not in status
        assert tab.locator("#browser-disagreement").is_hidden()
        assert not tried["errors"]
        context.close()


# --- a verifier you can check; the players' keys and receipts (issue 18, break 12) -----------

SIGNED = FIXTURES / "honest" / "arcomage-signed-moves.json"


def _seat_keys(path: Path) -> dict[str, str]:
    """The keys the seats registered, by seat letter: what their players would pin."""
    events = json.loads(path.read_text())["events"]
    return {"AB"[event["seat"]]: event["public_key"] for event in events
            if event["type"] == "seat_key"}


def _receipts_file(path: Path, target: Path) -> Path:
    """The receipts a player of ``path``'s match would have kept (``play --receipts``): one
    for every event, signed by the server key that sealed the fixtures."""
    from fairdeal.verifier.keys import SigningKey
    from fairdeal.verifier.protocol import event_hash
    from fairdeal.verifier.receipts import RECEIPTS_FORMAT, receipt_json

    key = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())
    events = json.loads(path.read_text())["events"]
    match_id = events[0]["match_id"]
    receipts = [receipt_json(match_id, seq, event_hash(event), event["ts"], key)
                for seq, event in enumerate(events)]
    target.write_text(json.dumps({"format": RECEIPTS_FORMAT, "match_id": match_id,
                                  "server_key": key.public_text,
                                  "seat_keys": list(_seat_keys(path).values()),
                                  "receipts": receipts}))
    return target


def _cli_hash() -> str:
    fairdeal = Path(sys.executable).with_name("fairdeal")
    done = subprocess.run([str(fairdeal), "verifier-hash"], capture_output=True, text=True,
                          check=True)
    digest, name = done.stdout.split()
    assert name == "fairdeal.zip"
    return digest


def _shown_hash(tab: Any) -> str:
    tab.wait_for_selector("#verifier-hash[data-state=loaded]", timeout=SLOW)
    shown: str = tab.locator("#verifier-hash-value").inner_text()
    return shown


def _give_inputs(tab: Any, seat_keys: str, receipts: Path | None) -> None:
    tab.locator("#browser-inputs summary").click()
    tab.fill("#seat-keys", seat_keys)
    if receipts is None:
        tab.set_input_files("#receipts-file", [])
    else:
        tab.set_input_files("#receipts-file", str(receipts))


def _never_sent(site: dict[str, Any], tried: dict[str, list[str]], *secrets: str) -> None:
    """No request the browser made, and none the server saw, carries any of ``secrets``."""
    assert tried["requests"] and site["log"].raw
    for secret in secrets:
        assert not [r for r in tried["requests"] if secret in r], secret
        assert not [r for r in site["log"].raw if secret in r], secret
    assert tried["posts"] == [] and tried["blocked"] == []


def test_the_verifier_hash_shown_is_the_loaded_archive_s_and_the_cli_s(
        verify_tab: tuple[Any, dict[str, list[str]]], site: dict[str, Any]) -> None:
    from urllib.request import urlopen

    from fairdeal.web.viewer.runtime import package_archive

    tab, tried = verify_tab
    shown = _shown_hash(tab)
    with urlopen(site["url"] + "/pyodide/fairdeal.zip") as response:
        served = response.read()
    assert shown == hashlib.sha256(served).hexdigest() == _cli_hash() \
        == hashlib.sha256(package_archive()[0]).hexdigest()
    assert len(shown) == 64
    assert tab.locator("#verifier-hash-differs").is_hidden()
    words = tab.locator("#verifier-hash").inner_text()
    assert "a man in the middle, a stale cache, a page that lies" in words
    assert "pip install fairdeal==0.1.0 && fairdeal verifier-hash" in words
    assert not tried["errors"], tried["errors"]


def test_the_hash_shown_is_computed_over_the_bytes_the_browser_loaded(
        browser: Any, site: dict[str, Any]) -> None:
    """Other bytes than the server names (a stale cache, a proxy, a patched archive): the page
    shows their hash, not the server's claim, and says they differ."""
    from fairdeal.web.viewer.runtime import archive_sha256, package_archive

    buffer = io.BytesIO(package_archive()[0])
    with zipfile.ZipFile(buffer, "a") as patched:
        patched.writestr("fairdeal/verifier/patched.py", "PATCHED = True\n")
    other = buffer.getvalue()
    context, tab, tried = _tab(browser, site["url"])
    context.route(lambda url: urlsplit(url).path == "/pyodide/fairdeal.zip",
                  lambda request_route: request_route.fulfill(
                      status=200, body=other, content_type="application/zip"))
    tab.goto(f"{site['url']}/m/{site['ids']['arcomage-untimed']}")
    tab.wait_for_selector("#verifier-hash[data-state=differs]", timeout=SLOW)
    assert tab.locator("#verifier-hash-value").inner_text() == hashlib.sha256(other).hexdigest()
    assert archive_sha256() != hashlib.sha256(other).hexdigest()
    differs = tab.locator("#verifier-hash-differs")
    assert differs.is_visible() and archive_sha256() in differs.inner_text()
    assert not tried["errors"]
    context.close()


def test_seat_keys_and_receipts_on_verify_give_the_cli_s_verdict_and_are_never_sent(
        verify_tab: tuple[Any, dict[str, list[str]]], site: dict[str, Any],
        tmp_path: Path) -> None:
    tab, tried = verify_tab
    tab.locator("#forget-key").click()
    keys = _seat_keys(SIGNED)
    receipts = _receipts_file(SIGNED, tmp_path / "match.receipts.json")
    receipt_sigs = [r["sig"] for r in json.loads(receipts.read_text())["receipts"]]
    pins = [f"{seat}={key}" for seat, key in keys.items()]

    # the right keys, as `simulate --signed` prints them, and the receipts: OK, both checked
    _give_inputs(tab, "seat keys: " + " ".join(pins), receipts)
    report = _verify_files(tab, [SIGNED])[SIGNED.name]
    cli = _cli_reports([SIGNED], *[f"--seat-key={pin}" for pin in pins],
                       "--receipts", str(receipts))[SIGNED.name]
    assert report["ok"] and _without_browser(report) == cli
    assert report["seat_keys_pinned"] == ["A", "B"]
    checks = {check["name"]: check for check in report["checks"]}
    assert checks["receipts"]["status"] == "pass" and checks["seat-signatures"]["status"] == "pass"
    card = tab.locator(f".verify-result[data-name='{SIGNED.name}']").inner_text()
    assert "seat keys pinned: A, B" in card and "receipts: " in card

    # a receipt the server signed for another event 5 than the bundle holds: FAIL receipts
    from fairdeal.verifier.keys import SigningKey
    from fairdeal.verifier.receipts import receipt_json

    key = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())
    contradicted = json.loads(receipts.read_text())
    kept = contradicted["receipts"][5]
    contradicted["receipts"][5] = receipt_json(kept["match_id"], 5, "ee" * 32, kept["ts"], key)
    other_receipts = tmp_path / "contradicted.receipts.json"
    other_receipts.write_text(json.dumps(contradicted))
    receipt_sigs.append(contradicted["receipts"][5]["sig"])
    tab.set_input_files("#receipts-file", str(other_receipts))
    report = _verify_files(tab, [SIGNED])[SIGNED.name]
    cli = _cli_reports([SIGNED], *[f"--seat-key={pin}" for pin in pins],
                       "--receipts", str(other_receipts))[SIGNED.name]
    assert (report["failure"]["check"], report["failure"]["seq"]) == ("receipts", 5)
    assert _without_browser(report) == cli
    tab.set_input_files("#receipts-file", str(receipts))

    # another key for seat B: FAIL seat-signatures, as the command line says
    wrong = "ed25519:" + "11" * 32
    tab.fill("#seat-keys", f"{pins[0]}\nB={wrong}")
    tab.locator("#inputs-apply").click()
    report = _verify_files(tab, [SIGNED])[SIGNED.name]
    cli = _cli_reports([SIGNED], f"--seat-key={pins[0]}", f"--seat-key=B={wrong}",
                       "--receipts", str(receipts))[SIGNED.name]
    assert not report["ok"] and report["failure"]["check"] == "seat-signatures"
    assert _without_browser(report) == cli
    assert tab.locator(f".verify-result[data-name='{SIGNED.name}']").get_attribute(
        "data-check") == "seat-signatures"

    # a seat key that is not one: said in words, no verdict (the command line: a usage error)
    tab.fill("#seat-keys", "B:" + wrong)
    tab.locator("#inputs-apply").click()
    tab.set_input_files("#verify-files", str(SIGNED))
    tab.wait_for_selector(".verify-result[data-state=input-error]", timeout=SLOW)
    assert tab.locator(".verify-result").inner_text() == \
        f"Not checked: seat keys: expected SEAT=ed25519:HEX, got 'B:{wrong}'."
    tab.locator("#forget-inputs").click()
    _shot(tab, "verify-seat-keys-receipts")

    # none of it left the browser: no request carries a key or a receipt
    _never_sent(site, tried, *(key.removeprefix("ed25519:") for key in keys.values()),
                wrong.removeprefix("ed25519:"), *receipt_sigs)
    assert not tried["errors"], tried["errors"]


def test_seat_keys_and_receipts_in_the_match_panel(
        browser: Any, site: dict[str, Any], tmp_path: Path) -> None:
    stem = SIGNED.stem
    context, tab, tried = _match_tab(browser, site, stem)
    assert _wait_browser_verdict(tab) == "agree", tab.locator("#browser-status").inner_text()
    assert _shown_hash(tab) == _cli_hash()
    served = tmp_path / f"{stem}.json"
    served.write_bytes(site["ledger"].bundle(site["ids"][stem]))
    keys = _seat_keys(SIGNED)
    receipts = _receipts_file(SIGNED, tmp_path / "match.receipts.json")
    receipt_sigs = [r["sig"] for r in json.loads(receipts.read_text())["receipts"]]
    pins = [f"{seat}={key}" for seat, key in keys.items()]

    # the players' own keys and receipts: the browser checks more than the server did, and
    # that is no disagreement
    _give_inputs(tab, "\n".join(pins), receipts)
    tab.locator("#inputs-apply").click()
    tab.wait_for_function("() => (window.fairdealBrowserReport.seat_keys_pinned || [])"
                          ".length === 2", timeout=SLOW)
    assert _wait_browser_verdict(tab) == "agree"
    report = tab.evaluate("window.fairdealBrowserReport")
    cli = _cli_reports([served], *[f"--seat-key={pin}" for pin in pins],
                       "--receipts", str(receipts))[served.name]
    assert report["ok"] and _without_browser(report) == cli
    assert {c["name"]: c["status"] for c in report["checks"]}["receipts"] == "pass"
    status = tab.locator("#browser-status").inner_text()
    assert "seat keys pinned: A, B" in status and "receipts: " in status
    assert tab.locator("#browser-disagreement").is_hidden()

    # a wrong key for seat A: the browser refuses it, loudly, against the server's ✓
    wrong = "ed25519:" + "22" * 32
    tab.fill("#seat-keys", f"A={wrong}")
    tab.locator("#inputs-apply").click()
    tab.wait_for_function("() => document.getElementById('browser-verify').dataset.state "
                          "=== 'disagree'", timeout=SLOW)
    report = tab.evaluate("window.fairdealBrowserReport")
    cli = _cli_reports([served], f"--seat-key=A={wrong}", "--receipts",
                       str(receipts))[served.name]
    assert report["failure"]["check"] == "seat-signatures" == cli["failure"]["check"]
    assert _without_browser(report) == cli
    assert "seat-signatures: server pass, browser fail" in \
        tab.locator("#browser-disagreement").inner_text()
    _shot(tab, "match-browser-wrong-seat-key")
    tab.locator("#forget-inputs").click()
    tab.wait_for_function("() => document.getElementById('browser-verify').dataset.state "
                          "=== 'agree'", timeout=SLOW)
    _never_sent(site, tried, *(key.removeprefix("ed25519:") for key in keys.values()),
                wrong.removeprefix("ed25519:"), *receipt_sigs)
    assert not tried["errors"]
    context.close()
