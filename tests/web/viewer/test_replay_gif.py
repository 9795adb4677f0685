"""/m/<id>.gif: the match's replay as a GIF, cached, offered in the share box."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from PIL import Image

from fairdeal.web.viewer import animation
from fairdeal.web.viewer.animation import (
    StepRangeError,
    drawing_processes,
    match_gif,
    parse_steps,
)
from fairdeal.web.viewer.matches import load_bundle

#: a 111-step two-tower duel
LONG = Path(__file__).parents[3] / "fixtures" / "bundles" / "honest" / \
    "arcomage-free-steppe-normal.json"


def _id(bundle: dict[str, Any]) -> str:
    return str(bundle["events"][0]["match_id"])


def test_step_ranges() -> None:
    assert parse_steps("4", 9) == (4, 4)
    assert parse_steps(" 2 : 3 ", 9) == (2, 3)
    for bad, words in [("a:b", "looks like A:B"), ("3:1", "outside"), ("0:10", "0 to 9"),
                       ("-1:2", "outside"), ("1:2:3", "looks like")]:
        try:
            parse_steps(bad, 9)
        except StepRangeError as e:
            assert words in str(e), bad
        else:
            raise AssertionError(f"{bad!r} was accepted")
    try:
        parse_steps(None, -1)
    except StepRangeError as e:
        assert "no steps" in str(e)
    else:
        raise AssertionError("an empty match was animated")


def test_the_gif_of_a_stored_match(client: Any, app: Any, arcomage_bundles: Any) -> None:
    match_id = _id(arcomage_bundles[0])
    response = client.get(f"/m/{match_id}.gif?steps=0:4")
    assert response.status_code == 200 and response.mimetype == "image/gif"
    assert "max-age" in response.headers["Cache-Control"]
    image = Image.open(io.BytesIO(response.data))
    assert image.n_frames == 5 and image.size[0] == 656  # the card text at 8 px: captions.py
    # cached: asking again draws nothing new
    cache = app.extensions["fairdeal.viewer.gifs"]
    assert len(cache._items) == 1
    assert client.get(f"/m/{match_id}.gif?steps=0:4").data == response.data
    assert len(cache._items) == 1
    seat = client.get(f"/m/{match_id}.gif?steps=0:4&view=a")
    assert seat.status_code == 200 and seat.data != response.data


def test_gif_errors_say_why(client: Any, store: Any, arcomage_bundles: Any,
                           helpers: Any) -> None:
    match_id = _id(arcomage_bundles[0])
    bad = client.get(f"/m/{match_id}.gif?steps=9:1")
    assert bad.status_code == 400 and b"outside this match's steps" in bad.data
    assert client.get("/m/no-such-match.gif").status_code == 404
    live = helpers.simulate("arcomage", 1, seed="gif-live")[0]
    store.add_live(live["events"][:6])
    missing = client.get(f"/m/{_id(live)}.gif")
    assert missing.status_code == 404 and "drawn once the match is sealed" in \
        missing.get_data(as_text=True)


def test_the_share_box_offers_the_gif_beside_the_link_and_the_embed(
        client: Any, arcomage_bundles: Any, helpers: Any) -> None:
    match_id = _id(arcomage_bundles[0])
    page = client.get(f"/m/{match_id}?step=3").get_data(as_text=True)
    assert 'id="copy-link"' in page and 'id="embed-code"' in page
    assert f'<code id="gif-url">http://localhost/m/{match_id}.gif</code>' in page
    assert f'download="{match_id}.gif"' in page
    seat = client.get(f"/m/{match_id}?step=3&view=a").get_data(as_text=True)
    assert f'href="http://localhost/m/{match_id}.gif?view=a"' in seat
    # an uploaded file is not stored: it has no lasting address to share
    upload = client.post("/upload", data={"pasted": helpers.bundle_bytes(
        helpers.simulate("arcomage", 1, seed="gif-upload")[0]).decode()})
    assert 'id="gif-url"' not in client.get(upload.location).get_data(as_text=True)


def test_frames_drawn_by_other_processes_make_the_same_gif() -> None:
    """The frames are drawn in parallel where that pays: the GIF's bytes are the same as when
    the caller draws every frame itself, frame for frame, caption for caption."""
    match = load_bundle(LONG.read_bytes())
    count = 10
    assert drawing_processes(count) == min(2, os.cpu_count() or 1)
    assert drawing_processes(1) == 1  # a short GIF: no process started for it
    alone = match_gif(match, 0, count - 1, processes=1)
    shared = match_gif(match, 0, count - 1, processes=2)
    assert shared == alone
    image = Image.open(io.BytesIO(shared))
    assert image.n_frames == count and image.size[0] == 656


def test_frames_are_drawn_here_when_no_process_can_be_started(monkeypatch, caplog) -> None:
    """Where no drawing process can be forked (a limit on processes, memory), the frames are
    drawn in the caller's process: the same GIF, and a warning, never an error page."""
    match = load_bundle(LONG.read_bytes())
    alone = match_gif(match, 0, 9, processes=1)

    def no_fork(*args: object, **kwargs: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(animation, "ProcessPoolExecutor", no_fork)
    with caplog.at_level("WARNING", logger=animation.__name__):
        assert match_gif(match, 0, 9, processes=2) == alone
    assert "drawing a GIF's frames in one process" in caplog.text


def test_frames_quantised_where_they_were_repainted_are_the_frames_quantised_whole(
        monkeypatch: Any) -> None:
    """A frame repainted from the one before is quantised only where it was repainted: the
    GIF is the same file as with every frame quantised whole."""
    match = load_bundle(LONG.read_bytes())
    where_repainted = match_gif(match, 0, 40, processes=1)

    def whole(self: Any, frame: Image.Image, colours: bytes) -> Image.Image:
        return animation._quantised(frame, animation._palette_image(colours))

    monkeypatch.setattr(animation._Indexing, "indexed", whole)
    assert match_gif(match, 0, 40, processes=1) == where_repainted
