"""fairdeal.verifier and fairdeal.games need no native code: in a Python where `cryptography`
cannot be imported (as in the browser under Pyodide), every fixture gets the same report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fairdeal.verifier.verify import verify_bytes

ROOT = Path(__file__).parents[2] / "fixtures" / "bundles"
SERVER_KEY = (ROOT / "server-key.txt").read_text().strip()
BUNDLES = sorted(ROOT.rglob("*.json"))

#: run in the child: refuse every import of cryptography before anything else loads
BLOCKED = """
import importlib.abc, json, sys

class NoCryptography(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "cryptography" or name.startswith("cryptography."):
            raise ImportError(f"{name} is blocked for this test")
        return None

sys.meta_path.insert(0, NoCryptography())
import fairdeal.verifier  # the package face first: it must not reach for cryptography either
from fairdeal.verifier.keys import signature_backend
from fairdeal.verifier.verify import verify_bytes
import fairdeal.games

try:
    import cryptography  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("the blocker let cryptography through")
reports = {}
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        data = f.read()
    reports[path] = [verify_bytes(data).to_json(), verify_bytes(data, sys.argv[1]).to_json()]
print(json.dumps({"backend": signature_backend(), "reports": reports,
                  "loaded": sorted(m for m in sys.modules if m.startswith("cryptography"))}))
"""


def test_every_fixture_gets_the_same_report_without_cryptography() -> None:
    out = subprocess.run([sys.executable, "-c", BLOCKED, SERVER_KEY, *map(str, BUNDLES)],
                         check=True, capture_output=True, text=True).stdout
    child = json.loads(out)
    assert child["backend"] == "pure-python"
    assert child["loaded"] == []
    assert len(child["reports"]) == len(BUNDLES) > 40
    for path in BUNDLES:
        data = path.read_bytes()
        here = [verify_bytes(data).to_json(), verify_bytes(data, SERVER_KEY).to_json()]
        assert child["reports"][str(path)] == here, path.name
