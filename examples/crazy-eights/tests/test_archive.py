"""The browser verifier's archive (``fairdeal verifier-hash -o``) carries this plug-in package
and its entry point: unpacked alone, with no site-packages at all, it verifies a Crazy Eights
match — what the browser does with it (test_browser.py runs the browser itself)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from fairdeal.verifier import verify_bytes

Run = Callable[..., Result]
GOLDEN = Path(__file__).resolve().parent / "golden"
RUN = json.loads((GOLDEN / "expected.json").read_text())["runs"][1]


def test_the_archive_alone_verifies_a_crazy_eights_match(fairdeal: Run, tmp_path: Path) -> None:
    archive = tmp_path / "fairdeal.zip"
    fairdeal("verifier-hash", "-o", str(archive))
    names = zipfile.ZipFile(archive).namelist()
    assert "fairdeal_crazy_eights/rules.py" in names
    assert "fairdeal_crazy_eights-0.1.0.dist-info/entry_points.txt" in names
    points = zipfile.ZipFile(archive).read("fairdeal_crazy_eights-0.1.0.dist-info/"
                                           "entry_points.txt").decode()
    assert points == "[fairdeal.games]\ncrazy-eights = fairdeal_crazy_eights.plugin:PLUGIN\n"
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(archive).extractall(unpacked)
    bundle = GOLDEN / RUN["file"]
    # -S: no site-packages, so neither the installed fairdeal nor this package is importable
    script = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
              "from fairdeal.verifier import verify_bytes; import fairdeal_crazy_eights; "
              "assert sys.argv[1] in fairdeal_crazy_eights.__file__; "
              "print(json.dumps(verify_bytes(open(sys.argv[2], 'rb').read(), "
              "trusted_key=sys.argv[3]).to_json()))")
    out = subprocess.run([sys.executable, "-S", "-c", script, str(unpacked), str(bundle),
                          RUN["key"]], check=True, capture_output=True, text=True,
                         cwd=tmp_path).stdout
    report = json.loads(out)
    assert report["ok"] is True
    assert report == verify_bytes(bundle.read_bytes(), trusted_key=RUN["key"]).to_json()
