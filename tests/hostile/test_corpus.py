"""Every input of the hostile corpus gets its clear refusal — in the verifier, from
``fairdeal verify`` (all files in one run: none aborts the others), from POST /api/v1/bundles,
from the upload page, and, for the requests, from the API — never a traceback or a 500."""

from __future__ import annotations

import subprocess
import sys

import pytest
from flask.testing import FlaskClient

from fairdeal.verifier.verify import verify_bytes

from .conftest import EXPECTED, HOSTILE, hostile_bundle

BUNDLES = sorted(EXPECTED["bundles"])
REQUESTS = sorted(EXPECTED["requests"])


@pytest.mark.parametrize("name", BUNDLES)
def test_the_verifier_refuses_each_hostile_bundle_by_name(name: str) -> None:
    report = verify_bytes(hostile_bundle(name))
    assert not report.ok
    assert EXPECTED["bundles"][name] in str(report.failure)


def test_one_cli_run_reports_every_hostile_file_without_a_traceback() -> None:
    files = [str(HOSTILE / "bundles" / f"{name}.json") for name in BUNDLES]
    done = subprocess.run([sys.executable, "-m", "fairdeal.cli", "verify", *files],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    for path in files:
        assert f"FAIL: {path}" in done.stdout


@pytest.mark.parametrize("name", BUNDLES)
def test_the_api_import_refuses_each_hostile_bundle_with_422(client: FlaskClient,
                                                              name: str) -> None:
    response = client.post("/api/v1/bundles", data=hostile_bundle(name))
    assert response.status_code == 422, response.get_data(as_text=True)[:300]
    body = response.get_json()
    assert body["error"]["code"] == "bundle-invalid"
    assert EXPECTED["bundles"][name] in body["error"]["message"]


@pytest.mark.parametrize("name", BUNDLES)
def test_the_upload_page_shows_each_hostile_bundle_as_failed(client: FlaskClient,
                                                             name: str) -> None:
    response = client.post("/upload", data={"pasted": hostile_bundle(name).decode()})
    assert response.status_code in (303, 422), response.status_code
    if response.status_code == 303:  # a bundle well-formed enough to step through
        response = client.get(response.headers["Location"])
        assert response.status_code == 200
    assert "Traceback" not in response.get_data(as_text=True)


@pytest.mark.parametrize("name", REQUESTS)
def test_each_hostile_request_gets_its_clear_error(client: FlaskClient, name: str) -> None:
    request = EXPECTED["requests"][name]
    created = client.post("/api/v1/matches", json={"game": "arcomage"}).get_json()
    path = request["path"].replace("{match}", created["id"])
    headers = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    response = client.open(path, method=request["method"], headers=headers,
                           data=request["body"].encode("utf-8"))
    body = response.get_json()
    assert (response.status_code, body["error"]["code"]) == (request["status"], request["code"]), \
        body
