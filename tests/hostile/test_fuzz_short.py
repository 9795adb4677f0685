"""A short fuzz run inside the suite (``make fuzz`` runs a million): the Hypothesis strategies
built from the bundle format, and the byte-wise and structural mutators, against the verifier,
the CLI, POST /api/v1/bundles, the upload page and every API request body. Zero problems."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).parents[2]))  # the fuzzing/ folder beside tests/

from fuzzing.mutate import mutate_bytes, structural  # noqa: E402
from fuzzing.run import corpus  # noqa: E402
from fuzzing.strategies import api_requests, bundles  # noqa: E402
from fuzzing.targets import TARGETS, ApiBodies, Verifier  # noqa: E402

SHORT = settings(max_examples=50, deadline=None, database=None,
                 suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def targets() -> Any:
    made = {name: make() for name, make in TARGETS.items()}
    yield made
    for target in made.values():
        target.close()


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_mutated_fixtures_break_no_target(targets: Any, name: str) -> None:
    seeds = corpus()
    parsed = []
    for data in seeds:
        try:
            parsed.append(json.loads(data))
        except (ValueError, RecursionError):
            pass
    rng = random.Random(f"short fuzz {name}")
    for _ in range(50):
        data = (mutate_bytes(rng.choice(seeds), rng) if rng.random() < 0.5
                else structural(rng.choice(parsed), rng))
        problem = targets[name].run(data)
        assert problem is None, (data[:300], problem)


@SHORT
@given(bundles())
def test_generated_bundles_break_no_verifier(bundle: Any) -> None:
    assert Verifier().run(json.dumps(bundle).encode()) is None


def test_generated_request_bodies_break_no_api_call(targets: Any) -> None:
    api: ApiBodies = targets["api-bodies"]

    @SHORT
    @given(api_requests())
    def case(request: tuple[str, Any]) -> None:
        call, body = request
        match = api.playing if call in ("actions", "resign") else api.seating
        path = ("/api/v1/matches" if call == "matches"
                else f"/api/v1/matches/{match['id']}/{call}")
        response = api.client.post(path, data=json.dumps(body).encode(),
                                   headers={"Authorization": f"Bearer {match['tokens'][0]}"})
        assert api.check(response, path) is None

    case()
