"""Fixtures for the viewer's tests: bot matches recorded in-process, a tamperer, and apps."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from fairdeal.client.simulate import SimulationSettings, simulate_matches
from fairdeal.verifier.forge import reseal
from fairdeal.verifier.keys import SigningKey
from fairdeal.web.viewer.sources import MemoryLedger
from fairdeal.web.viewer.standalone import create_viewer_app

SERVER_KEY = SigningKey.from_seed(bytes(range(32)))


def bundle_bytes(bundle: dict[str, Any]) -> bytes:
    """A bundle as the CLI writes it."""
    return (json.dumps(bundle, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def simulate(game: str, count: int = 1, seed: str = "viewer", seats: tuple[str, str] | None = None,
             **params: Any) -> list[dict[str, Any]]:
    """``count`` sealed bot matches of ``game``, reproducible from ``seed``."""
    settings = SimulationSettings(game=game, params=params, bots=("random", "greedy"))
    bundles = list(simulate_matches(settings, count, seed=seed, server_key=SERVER_KEY))
    if seats is not None:
        for bundle in bundles:
            # seat names are bound by the commitment: re-commit with the revealed seed, so
            # the renamed match still verifies
            bundle["events"][0]["seats"] = [{"name": name} for name in seats]
            reseal(bundle, SERVER_KEY, recommit=True)
    return bundles


def tamper_move(bundle: dict[str, Any], play_index: int = 4) -> tuple[dict[str, Any], int]:
    """Replace the ``play_index``-th move by an illegal one (a card never held), re-sealed.

    Returns the forged bundle and the seq of the forged event.
    """
    forged = copy.deepcopy(bundle)
    moves = [event for event in forged["events"] if event["type"] == "move"]
    event = moves[play_index]
    action = dict(event["action"])
    action["card"] = 999 if "card" in action else action.get("card", 999)
    event["action"] = action
    reseal(forged, SERVER_KEY)
    return forged, event["seq"]


@pytest.fixture(scope="session")
def arcomage_bundles() -> list[dict[str, Any]]:
    return simulate("arcomage", 3, seed="viewer-arcomage")


@pytest.fixture(scope="session")
def toybattle_bundles() -> list[dict[str, Any]]:
    return simulate("toybattle", 2, seed="viewer-toybattle")


@pytest.fixture()
def store(arcomage_bundles: list[dict[str, Any]],
          toybattle_bundles: list[dict[str, Any]]) -> MemoryLedger:
    # the viewer counts SERVER_KEY as its own: the simulated bundles are "verified" here
    ledger = MemoryLedger(server_keys=[SERVER_KEY.public_text])
    for bundle in arcomage_bundles + toybattle_bundles:
        ledger.import_bundle(bundle_bytes(bundle))
    return ledger


@pytest.fixture()
def app(store: MemoryLedger) -> Any:
    return create_viewer_app(store, {"TESTING": True})


@pytest.fixture()
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture()
def helpers() -> Any:
    """The module's helpers, for tests (importlib mode does not import conftest by name)."""

    class Helpers:
        pass

    h = Helpers()
    h.bundle_bytes = bundle_bytes  # type: ignore[attr-defined]
    h.simulate = simulate  # type: ignore[attr-defined]
    h.tamper_move = tamper_move  # type: ignore[attr-defined]
    h.SERVER_KEY = SERVER_KEY  # type: ignore[attr-defined]
    return h


# --- the browser tests' Chromium (one per module) and a desktop page that fails its test on any
# JavaScript error; a module that needs another (a phone's, a second profile) defines its own

@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from .browsing import chromium

    with chromium() as launched:
        yield launched


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
