"""The driving track over lane geometry: a bundle imported from the real CARLA recording
(tests/fixtures/carla, Town01) drawn over Town01's lanes, and a bundle with no reachable map."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from fixtures import fixture_path
from simbridge._report._view import load_episode
from simbridge._report._lanes import MAPS_ENV
from simbridge._report._track import track_figure
from simbridge.adapters.carla import import_recording

LOG = fixture_path("carla", "DistanceToLaneCenter.log")
XODR = fixture_path("carla", "Town01.xodr")


@pytest.fixture(scope="module")
def carla_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_recording(LOG, tmp_path_factory.mktemp("carla") / "b", map_path=XODR, task_id="T18")


def _trace(fig, prefix: str):
    found = [tr for tr in fig.data if (tr.name or "").startswith(prefix)]
    assert len(found) == 1, [tr.name for tr in fig.data]
    return found[0]


def test_lanes_drawn_under_the_real_recording_path(carla_bundle: Path, tmp_path: Path, monkeypatch) -> None:
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(XODR, maps / "Town01.xodr")
    monkeypatch.setenv(MAPS_ENV, str(maps))
    view = load_episode(carla_bundle)
    fig = track_figure(view)
    assert fig is not None and fig.layout.meta["lanes"] == "lane geometry"
    centre = _trace(fig, "lane centres")
    edges = _trace(fig, "lane edges (Town01.xodr)")
    assert centre.type == "scattergl" and edges.type == "scattergl"
    cx, cy = np.asarray(centre.x, float), np.asarray(centre.y, float)
    ok = np.isfinite(cx)
    cx, cy = cx[ok], cy[ok]
    px, py = view.bundle.signals["x_m"], view.bundle.signals["y_m"]
    # every point of the driven path is within 3 m of a drawn lane centre (2 m polyline spacing,
    # the hero stays near its lane centre: the importer measures |lane_offset_m| under 1 m)
    d = np.sqrt((px[:, None] - cx[None, :]) ** 2 + (py[:, None] - cy[None, :]) ** 2).min(1)
    assert d.max() < 3.0, d.max()
    # cropped to the path's box plus the 30 m margin, not the whole town
    assert cx.min() >= px.min() - 30.5 and cx.max() <= px.max() + 30.5
    assert cy.min() >= py.min() - 30.5 and cy.max() <= py.max() + 30.5
    # a lane boundary lies about half a lane width (Town01: ~4 m lanes) from the centre line
    ex, ey = np.asarray(edges.x, float), np.asarray(edges.y, float)
    ok = np.isfinite(ex)
    de = np.sqrt((ex[ok][:, None] - cx[None, :]) ** 2 + (ey[ok][:, None] - cy[None, :]) ** 2).min(1)
    assert 1.0 < np.median(de) < 2.5, np.median(de)
    assert fig.layout.yaxis.autorange == "reversed"  # CARLA y points right of x: down the page
    marks = _trace(fig, "marks")
    assert list(marks.text[:2]) == ["start", "end"]
    assert (marks.x[0], marks.y[0]) == pytest.approx((px[0], py[0]))


def test_bundle_copy_of_the_map_is_used(carla_bundle: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(MAPS_ENV, raising=False)
    b = tmp_path / "b"
    shutil.copytree(carla_bundle, b)
    shutil.copy(XODR, b / "Town01.xodr")
    fig = track_figure(load_episode(b))
    assert fig is not None and len(_trace(fig, "lane edges (Town01.xodr)").x) > 100


def test_no_map_says_no_lane_geometry(carla_bundle: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(MAPS_ENV, str(tmp_path))  # a maps dir without Town01.xodr
    fig = track_figure(load_episode(carla_bundle))
    assert fig is not None
    note = fig.layout.meta["lanes"]
    assert note.startswith("no lane geometry") and "Town01.xodr" in note and "\n" not in note
    assert fig.layout.title.text == note
    assert not [tr for tr in fig.data if (tr.name or "").startswith("lane")]
    assert len(_trace(fig, "path").x) > 100  # the path is still drawn
