"""The per-user cache: made once and read back by the next process; a cache that cannot be
written costs only the time."""

from __future__ import annotations

from simbridge._report._html import plotly_js_gz_b64
from simbridge._user_cache import cached_text, user_cache_dir


def test_the_folder_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_dir("drive") == tmp_path / "xdg" / "simbridge" / "drive"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir("report", "x") == tmp_path / "home" / ".cache" / "simbridge" / "report" / "x"


def test_made_once_then_read_back(tmp_path):
    made = []

    def make() -> str:
        made.append(1)
        return "abc"

    path = tmp_path / "a" / "b.txt"
    assert cached_text(path, make) == "abc" and path.read_text() == "abc"
    assert cached_text(path, make) == "abc" and len(made) == 1
    assert [p.name for p in path.parent.iterdir()] == ["b.txt"]  # no temporary file left behind


def test_a_cache_path_that_is_a_folder_still_answers(tmp_path):
    """Any OSError on the way (here the path is a folder: neither read nor replaced) falls back
    to making the text."""
    (tmp_path / "x.txt").mkdir()
    assert cached_text(tmp_path / "x.txt", lambda: "made") == "made"
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]  # its temporary file removed


def test_plotly_bundle_is_cached_per_version(tmp_path, monkeypatch):
    import base64
    import gzip

    import plotly

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    plotly_js_gz_b64.cache_clear()
    try:
        js = plotly_js_gz_b64()
    finally:
        plotly_js_gz_b64.cache_clear()
    cached = tmp_path / "simbridge" / "report" / f"plotly-{plotly.__version__}.min.js.gz.b64"
    assert cached.read_text() == js
    assert gzip.decompress(base64.b64decode(js)).startswith(b"/**")
