"""Link previews: the match page's og:image is the board at the linked step as a PNG, drawn by
flatsvg (resvg for what it does not draw), written by preview.png_bytes and served from a cache."""

from __future__ import annotations

import io
import re
import struct
from typing import Any

import pytest
from PIL import Image

from fairdeal.web.viewer.matches import load_bundle
from fairdeal.web.viewer.preview import PREVIEW_WIDTH, png_bytes
from fairdeal.web.viewer.raster import svg_to_image

from . import conftest as helpers

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk, the first after the signature."""
    assert png[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", png[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _id(bundle: dict[str, Any]) -> str:
    return str(bundle["events"][0]["match_id"])


def test_the_match_page_links_a_png_of_the_step(client: Any, arcomage_bundles: Any) -> None:
    match_id = _id(arcomage_bundles[0])
    page = client.get(f"/m/{match_id}?step=5").get_data(as_text=True)
    found = re.search(r'<meta property="og:image" content="([^"]+)">', page)
    assert found, "no og:image"
    url = found.group(1)
    assert url.endswith(f"/m/{match_id}/step/5.png")
    assert 'name="twitter:card" content="summary_large_image"' in page
    response = client.get(url.replace("http://localhost", ""))
    assert response.status_code == 200 and response.mimetype == "image/png"
    png = response.get_data()
    width, height = _size(png)
    assert width == 1200 and 600 <= height <= 1200  # the drawing's own shape, 1200 px wide
    assert 10_000 < len(png) < 2_000_000
    assert "max-age" in response.headers["Cache-Control"]


@pytest.mark.parametrize("fixture", ["arcomage_bundles", "toybattle_bundles"])
def test_each_game_and_step_renders_and_is_cached(request: Any, client: Any, app: Any,
                                                  fixture: str) -> None:
    match_id = _id(request.getfixturevalue(fixture)[0])
    first = client.get(f"/m/{match_id}/step/0.png").get_data()
    later = client.get(f"/m/{match_id}/step/3.png").get_data()
    assert max(_size(first)) == max(_size(later)) == 1200  # the longer side
    assert first != later  # the board moved between the deal and step 3
    cache = app.extensions["fairdeal.viewer.previews"]
    cached = len(cache)
    assert client.get(f"/m/{match_id}/step/3.png").get_data() == later
    assert len(cache) == cached  # the second fetch was a hit


def test_a_step_past_the_end_and_a_bad_match_are_404s(client: Any,
                                                      arcomage_bundles: Any) -> None:
    match_id = _id(arcomage_bundles[0])
    # no clamping (issue 21 #12): another step's image under this address would be cached as
    # this step's
    assert client.get(f"/m/{match_id}/step/99999.png").status_code == 404
    assert client.get("/m/nope/step/1.png").status_code == 404
    assert client.get("/m/bad id!/step/1.png").status_code == 404


@pytest.mark.parametrize("game", ["arcomage", "toybattle", "wyrdstone", "crazy-eights"])
def test_the_png_is_the_picture_drawn(game: str) -> None:
    """The PNG is written here, rows unfiltered (Pillow's writer tries every filter on every
    row): decoded by Pillow it is the drawing, pixel for pixel, and no larger than Pillow's."""
    match = load_bundle(helpers.bundle_bytes(helpers.simulate(game, 1, seed=f"png-{game}")[0]))
    svg = str(match.svg(match.last_step, None))
    width = float(re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', svg).group(1))
    picture = svg_to_image(svg, zoom=PREVIEW_WIDTH / width, supersample=1)
    png = png_bytes(picture)
    with Image.open(io.BytesIO(png)) as decoded:
        assert decoded.mode == "RGB" and decoded.size == picture.size
        assert decoded.tobytes() == picture.tobytes()
    pillows = io.BytesIO()
    picture.save(pillows, "PNG", compress_level=1)
    assert len(png) < 1.2 * len(pillows.getvalue())
