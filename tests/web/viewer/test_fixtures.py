"""The project's fixture corpus through the viewer: every honest bundle opens and verifies;
every tampered one shows the check and the event it must fail at, and never "verified"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier.report import CHECKS, OPTIONAL_CHECKS

#: the checks that pass on an honest bundle (the optional ones are skipped without input)
REQUIRED_CHECKS = len(CHECKS) - len(OPTIONAL_CHECKS)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "bundles"
EXPECTED: dict[str, dict[str, Any]] = (
    json.loads((FIXTURES.parent / "tampered-expected.json").read_text())
    if (FIXTURES.parent / "tampered-expected.json").exists() else {}
)
HONEST = sorted((FIXTURES / "honest").glob("*.json"))


@pytest.fixture()
def client() -> Any:
    """A viewer that counts the fixtures' server key as its own (as the server that sealed
    them would): honest fixtures are "verified" here, not "signed by another server"."""
    from fairdeal.web.viewer.sources import MemoryLedger
    from fairdeal.web.viewer.standalone import create_viewer_app

    key = (FIXTURES / "server-key.txt").read_text().strip()
    return create_viewer_app(MemoryLedger(server_keys=[key]), {"TESTING": True}).test_client()


@pytest.mark.parametrize("path", HONEST, ids=[path.stem for path in HONEST])
def test_honest_fixture_uploads_verified_and_steps(client: Any, path: Path) -> None:
    response = client.post("/upload", data={"pasted": path.read_text()})
    assert response.status_code == 303
    page = client.get(response.location).get_data(as_text=True)
    assert "✓ every check passed" in page and page.count("status-pass") == REQUIRED_CHECKS
    assert "<svg" in page
    last = int(page.split('id="step-last">')[1].split("<")[0])
    fragment = client.get(response.location.split("?")[0] + f"/step/{last}.json").get_json()
    assert fragment["step"] == last and fragment["board"].lstrip().startswith("<svg")


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=sorted(EXPECTED))
def test_tampered_fixture_shows_its_failure(client: Any, name: str) -> None:
    expected = EXPECTED[name]
    data = (FIXTURES / "tampered" / f"{name}.json").read_bytes()
    form = {"pasted": data.decode("utf-8", "replace"), "store": "1"}
    if expected.get("trusted_key"):
        form["trusted_key"] = (FIXTURES / "server-key.txt").read_text().strip()
    response = client.post("/upload", data=form)
    if response.status_code == 303:
        assert "/u/u-" in response.location  # shown, never stored
        page = client.get(response.location).get_data(as_text=True)
    else:
        assert response.status_code == 422  # not a bundle at all: the parser's message
        page = response.get_data(as_text=True)
    assert "every check passed" not in page and "✓ verified" not in page
    check = expected["check"]
    if response.status_code == 303:
        where = f" at event {expected['seq']}" if expected.get("seq") is not None else ""
        assert f"{check} check failed{where}" in page
        assert f'data-check="{check}"' in page
    if expected.get("reason"):
        assert expected["reason"] in page
