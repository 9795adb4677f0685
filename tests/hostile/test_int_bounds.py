"""Break 8 of issue 18: integers past 64 bits at the edge. Every integer query parameter of
the API and the viewer, and every integer option of the CLI, is bounded to 64 bits (and to
its own range): a 400 naming the parameter / exit 2 naming the option, never a 500 from the
database or a traceback — on SQLite and PostgreSQL alike."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from fairdeal.cli.main import cli
from fairdeal.web.app import create_app

from ..web.api.conftest import Driver, make_ledger

#: past 64 bits (both signs), far past, and decimals in other clothes
OUT_OF_RANGE = ["9223372036854775808", "9999999999999999999", "1" + "0" * 30,
                "-9223372036854775809", "9" * 5000]
NOT_DECIMAL = ["²", "٣", "1e3", "0x10", " 1", "1.0", "+1", "01"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def sealed(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FlaskClient, str]]:
    """An app on a real SQLite file or PostgreSQL schema, with one sealed match (the log:
    its genesis and seal leaves, a checkpoint of size 2 signed). One per backend for the
    module: the tests only read (GET requests), so none can change what another sees."""
    for ledger in make_ledger(request.param, tmp_path_factory.mktemp(request.param)):
        app = create_app({"FAIRDEAL_LEDGER": ledger, "FAIRDEAL_SWEEPER": False,
                          "FAIRDEAL_RATE_LIMITS": "off", "TESTING": True})
        client = app.test_client()
        driver = Driver(client)
        match_id, tokens = driver.create()
        driver.seed_all(match_id, tokens, random.Random(1))
        driver.play_out(match_id, tokens, random.Random(2))
        assert client.get("/api/v1/log/checkpoint").status_code == 200
        yield client, match_id


#: (path, parameter, an honest value): every integer query parameter of /api/v1
API_PARAMETERS = [
    ("/api/v1/matches?", "limit", "5"),
    ("/api/v1/matches?", "offset", "0"),
    ("/api/v1/matches/{id}/events?", "after", "-1"),
    ("/api/v1/matches/{id}/events?", "limit", "5"),
    ("/api/v1/matches/{id}/bundle?", "log_size", "2"),
    ("/api/v1/log/checkpoint?", "size", "2"),
    ("/api/v1/log/proof/inclusion?size=2&", "index", "0"),
    ("/api/v1/log/proof/inclusion?index=0&", "size", "2"),
    ("/api/v1/log/proof/consistency?new=2&", "old", "1"),
    ("/api/v1/log/proof/consistency?old=1&", "new", "2"),
    ("/api/v1/log/leaves?", "after", "-1"),
    ("/api/v1/log/leaves?", "limit", "5"),
]


@pytest.mark.parametrize("path, name, honest", API_PARAMETERS)
def test_every_api_integer_parameter_is_a_400_past_64_bits(
        sealed: tuple[FlaskClient, str], path: str, name: str, honest: str) -> None:
    client, match_id = sealed
    url = path.format(id=match_id)
    assert client.get(f"{url}{name}={honest}").status_code == 200
    for value in OUT_OF_RANGE + NOT_DECIMAL:
        base, _, fixed = url.partition("?")
        response = client.get(base, query_string={
            **dict(pair.split("=") for pair in fixed.split("&") if pair), name: value})
        assert response.status_code == 400, (name, value, response.data[:300])
        error = response.get_json()["error"]
        assert error["code"] == "invalid-query"
        assert error["message"].startswith(f"query parameter {name!r} must be a decimal "
                                           "integer from "), error


def test_the_reported_urls_answer_400(sealed: tuple[FlaskClient, str]) -> None:
    client, match_id = sealed
    for url, name in ((f"/api/v1/matches/{match_id}/bundle?log_size=9223372036854775808",
                       "log_size"),
                      ("/api/v1/log/leaves?after=9999999999999999999", "after")):
        response = client.get(url)
        assert response.status_code == 400
        assert (f"query parameter {name!r} must be a decimal integer from "
                in response.get_json()["error"]["message"])


def test_the_viewer_s_integers_never_reach_a_500(sealed: tuple[FlaskClient, str]) -> None:
    client, match_id = sealed
    for value in OUT_OF_RANGE + NOT_DECIMAL:
        # a step past 64 bits names no page; the dispute step is refused by name
        dispute = client.get(f"/m/{match_id}/dispute", query_string={"step": value})
        assert dispute.status_code == 404, (value, dispute.status_code)
        assert b"query parameter &#39;step&#39; must be a decimal integer" in dispute.data \
            or b"query parameter 'step' must be a decimal integer" in dispute.data
        for path in (f"/m/{match_id}/step/{value}.json", f"/m/{match_id}/step/{value}.png"):
            # werkzeug's int converter reads any Unicode digit ("٣" is step 3): never a 500
            wanted = {404} if value in OUT_OF_RANGE else {200, 404}
            assert client.get(path).status_code in wanted, path[:80]
        # the match page's step and the home page's page are clamped (an empty page)
        assert client.get(f"/m/{match_id}", query_string={"step": value}).status_code == 200
        assert client.get("/", query_string={"page": value}).status_code == 200
    assert client.get(f"/m/{match_id}/dispute?step=1").status_code == 200
    assert client.get(f"/m/{match_id}/step/9223372036854775807.json").status_code == 200


#: every integer (and number) option of the CLI: (arguments before, option, arguments after)
CLI_OPTIONS: list[tuple[list[str], str, list[str]]] = [
    (["export", "m1"], "--log-size", []),
    (["matches"], "--limit", []),
    (["matches"], "--offset", []),
    (["serve"], "--port", []),
    (["replay", "{bundle}"], "--step", []),
    (["dispute", "{bundle}"], "--step", []),
    (["simulate", "arcomage", "--out", "{tmp}/out"], "-n", []),
    (["simulate", "arcomage", "--out", "{tmp}/out"], "--turn-limit", []),
    (["play", "--game", "arcomage"], "-n", []),
    (["play", "--game", "arcomage"], "--concurrency", []),
    (["play", "--game", "arcomage"], "--seed", []),
    (["play", "--game", "arcomage"], "--turn-limit", []),
    (["play", "--game", "arcomage"], "--duration", []),
    (["play", "--game", "arcomage"], "--pace", []),
    (["audit", "{bundle}"], "--workers", []),
]
HONEST_BUNDLE = Path(__file__).parents[2] / "fixtures" / "bundles" / "honest" / \
    "arcomage-untimed.json"


@pytest.mark.parametrize("before, option, after", CLI_OPTIONS)
def test_every_cli_integer_option_is_a_usage_error_past_64_bits(
        tmp_path: Path, before: list[str], option: str, after: list[str]) -> None:
    runner = CliRunner()
    fill: dict[str, Any] = {"bundle": str(HONEST_BUNDLE), "tmp": str(tmp_path)}
    args = [arg.format(**fill) for arg in before]
    for value in ["9223372036854775808", "9999999999999999999", "-9223372036854775809",
                  "9" * 5000, "²", "nan"]:
        result = runner.invoke(cli, ["--data-dir", str(tmp_path / "data"), *args,
                                     f"{option}={value}" if option.startswith("--")
                                     else option, *([] if option.startswith("--") else [value]),
                                     *after])
        assert result.exit_code == 2, (option, value, result.output[-500:])
        assert "Traceback" not in result.output
        assert "Error: Invalid value for " in result.output, result.output[-500:]
        assert f"'{option}'" in result.output.splitlines()[-1], result.output[-500:]


def test_export_log_size_as_reported(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--data-dir", str(tmp_path), "export", "x",
                                      "--log-size", "9999999999999999999"])
    assert result.exit_code == 2
    assert "Invalid value for '--log-size'" in result.output
    assert "9223372036854775807" in result.output
