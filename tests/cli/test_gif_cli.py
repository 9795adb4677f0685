"""`fairdeal gif` as a user runs it: a real process writing a real GIF."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageChops

from fairdeal.web.viewer.animation import FRAME_MS, LAST_FRAME_MS, WIDTH
from fairdeal.web.viewer.matches import load_bundle

ROOT = Path(__file__).parents[2] / "fixtures" / "bundles"
HONEST = ROOT / "honest" / "wyrdstone-training.json"
TAMPERED = ROOT / "tampered" / "swapped-card.json"


def fairdeal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairdeal.cli", *args], capture_output=True,
                          text=True, timeout=300)


def _frames(path: Path) -> list[Image.Image]:
    image = Image.open(path)
    frames = []
    for index in range(image.n_frames):
        image.seek(index)
        frames.append(image.convert("RGB"))
    return frames


def test_one_frame_a_step_sized_for_a_chat_message(tmp_path: Path) -> None:
    out = tmp_path / "match.gif"
    done = fairdeal("gif", str(HONEST), "-o", str(out))
    assert done.returncode == 0, done.stderr
    steps = load_bundle(HONEST.read_bytes()).last_step + 1
    # a Wyrdstone board is 900 units wide and its body text 10: 8 px high at 720 px (it was
    # 5.3 px in a 480-px frame)
    assert f"({steps} frames, 720 px wide" in done.stdout
    image = Image.open(out)
    assert image.format == "GIF" and image.n_frames == steps
    assert image.size[0] == 720 > WIDTH and 200 < image.size[1] < 700
    assert image.info["loop"] == 0
    durations = []
    for index in range(image.n_frames):
        image.seek(index)
        durations.append(image.info["duration"])
    assert durations == [FRAME_MS] * (steps - 1) + [LAST_FRAME_MS]
    frames = _frames(out)
    # every step draws something new: no two neighbouring frames are the same picture
    for number in range(1, steps):
        assert ImageChops.difference(frames[number - 1], frames[number]).getbbox(), number
    assert out.stat().st_size < 20_000 * steps  # well within a chat app's upload limit


def test_a_step_range_and_a_seat_view(tmp_path: Path) -> None:
    spectator, seat_a = tmp_path / "all.gif", tmp_path / "a.gif"
    assert fairdeal("gif", str(HONEST), "--step", "2:4", "-o", str(spectator)).returncode == 0
    assert fairdeal("gif", str(HONEST), "--step", "2:4", "--seat", "A",
                    "-o", str(seat_a)).returncode == 0
    assert Image.open(spectator).n_frames == 3
    assert Image.open(seat_a).n_frames == 3
    # a seat's view hides the other's hand: the pictures differ
    assert ImageChops.difference(_frames(spectator)[0], _frames(seat_a)[0]).getbbox()


def test_bad_input_gets_a_sentence_not_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "x.gif"
    for args, code, words in [
        (["--step", "two:three"], 2, "a step range looks like A:B"),
        (["--step", "5:300"], 2, "outside this match's steps 0 to"),
        (["--step", "5:999"], 2, "is 995 steps: a GIF holds at most 400 frames"),
        (["--step", "4:2"], 2, "outside this match's steps"),
        (["--seat", "Z"], 2, "this match's seats are A, B, not 'Z'"),
    ]:
        done = fairdeal("gif", str(HONEST), *args, "-o", str(out))
        assert done.returncode == code, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    refused = fairdeal("gif", str(TAMPERED), "-o", str(out))
    expected = ROOT.parent / "tampered-expected.json"
    where = json.loads(expected.read_text())["swapped-card"]["seq"]
    assert refused.returncode == 1
    assert f"does not verify, so no replay is drawn: moves check failed at event {where}" in \
        refused.stderr
    assert not out.exists()
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"format": "nope"}))
    done = fairdeal("gif", str(broken), "-o", str(out))
    assert done.returncode == 1 and "format check failed" in done.stderr
