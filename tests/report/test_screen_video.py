"""screen.mp4 in the bundle: encoded from frames/, the manifest re-sealed so `simbridge verify`
still accepts the bundle, used by the page; a tampered bundle is not re-sealed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from report.bundles import build_t09
from simbridge._cli import main
from simbridge._report import encode_screen_video, finish_episode_outputs, load_episode
from simbridge._report._html import render_episode
from simbridge._report._video import video_t0_s


@pytest.fixture
def t09_copy(t09_bundle: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(t09_bundle, tmp_path / "t09"))


def test_screen_mp4_is_h264_sealed_and_verify_passes(t09_copy, capsys):
    before = json.loads((t09_copy / "manifest.json").read_text())["files"]
    out = encode_screen_video(t09_copy)
    assert out == t09_copy / "screen.mp4"
    head = out.read_bytes()[:64]
    assert head[4:8] == b"ftyp" and b"avc1" in out.read_bytes()  # an MP4 carrying H.264
    after = json.loads((t09_copy / "manifest.json").read_text())["files"]
    # score.json is exempt from the hash check (re-derived), so a re-seal may list it or not
    assert set(after) - {"score.json"} == set(before) - {"score.json"} | {"screen.mp4"}
    assert all(after[k] == before[k] for k in before)  # nothing else re-hashed differently
    assert not list(t09_copy.glob("*.tmp"))
    assert video_t0_s(out) == 0.0  # the first frame is at sim time 0
    capsys.readouterr()
    assert main(["verify", str(t09_copy)]) == 0


def test_page_embeds_the_bundles_screen_mp4(t09_copy):
    out = encode_screen_video(t09_copy)
    page = render_episode(load_episode(t09_copy))
    assert "the bundle&#x27;s screen.mp4" in page
    import base64

    uri = re.search(r'<video id="screen"[^>]*src="data:video/mp4;base64,([^"]+)"', page).group(1)
    assert base64.b64decode(uri) == out.read_bytes()


def test_no_frames_no_video(tmp_path):
    b = build_t09(tmp_path / "t09", frames=False)
    assert encode_screen_video(b) is None and not (b / "screen.mp4").exists()


def test_tampered_bundle_is_not_resealed(t09_copy):
    (t09_copy / "events.jsonl").write_text('{"t": 1.0, "kind": "inserted"}\n')
    manifest = (t09_copy / "manifest.json").read_text()
    res = finish_episode_outputs(t09_copy, report=False)
    assert res.screen_mp4 is None and res.report is None
    assert len(res.problems) == 1 and "does not match its manifest" in res.problems[0]
    assert (t09_copy / "manifest.json").read_text() == manifest and not (t09_copy / "screen.mp4").exists()


def test_finish_writes_video_and_report_beside(t09_copy):
    res = finish_episode_outputs(t09_copy, report=True)
    assert res.problems == []
    assert res.screen_mp4 == t09_copy / "screen.mp4" and res.report == t09_copy.parent / "reports" / "t09.html"
    assert 'id="score-value">' in res.report.read_text()
    assert main(["verify", str(t09_copy)]) == 0


def test_screen_mp4_is_remade_from_the_sealed_frames(t09_copy, capsys):
    out = encode_screen_video(t09_copy)
    out.unlink()  # lost (or damaged): the frames it came from are still sealed, so it is re-made
    assert encode_screen_video(t09_copy) == out and out.is_file()
    capsys.readouterr()
    assert main(["verify", str(t09_copy)]) == 0
