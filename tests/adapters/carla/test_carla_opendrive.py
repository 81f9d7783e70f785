"""The OpenDRIVE reader against Town01 and against closed-form geometry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fixtures import fixture_path
from simbridge.adapters.carla import LaneLocator, OpenDriveError, read_opendrive, read_recording
from simbridge.adapters.kit.opendrive import TRAFFIC_LIGHT_TYPE, _eval_geometry, _Geometry

XODR = fixture_path("carla", "Town01.xodr")
LOG = fixture_path("carla", "DistanceToLaneCenter.log")


@pytest.fixture(scope="module")
def town01():
    return read_opendrive(XODR)


def test_town01_counts_and_widths(town01):
    assert len(town01.roads) == 122
    assert sum(r.junction != -1 for r in town01.roads.values()) > 0
    lights = [s for s in town01.signals if s.type == TRAFFIC_LIGHT_TYPE]
    assert len(lights) == 36
    ls = town01.lane_samples()
    assert np.allclose(ls.width_m, 4.0, atol=1e-6)  # every Town01 driving lane is 4 m wide
    assert set(np.unique(ls.lane)) == {-1, 1}


def test_geometries_join_up(town01):
    """Each planView piece must end where the next begins: checks line and arc evaluation on real data."""
    worst = 0.0
    for road in town01.roads.values():
        for a, b in zip(road.geometries, road.geometries[1:]):
            x, y, h = _eval_geometry(a, np.array([a.length]))
            worst = max(worst, math.hypot(x[0] - b.x, y[0] - b.y))
            dh = (h[0] - b.hdg + math.pi) % (2 * math.pi) - math.pi
            assert abs(dh) < 1e-3, (road.id, dh)
    assert worst < 0.01


def test_traffic_lights_of_the_recording_sit_on_the_map_signals(town01):
    """The recorded light actors (CARLA frame) match the map's signals after negating y."""
    rec = read_recording(LOG)
    sig = np.array([(s.x_m, s.y_m) for s in town01.signals if s.type == TRAFFIC_LIGHT_TYPE])
    lights = [a for a in rec.actors.values() if a.kind == 3]
    d = [np.hypot(*(sig - np.array(a.location_m[:2])).T).min() for a in lights]
    assert len(d) == 36 and max(d) < 0.5
    flipped = sig * [1, -1]  # without the y flip they are nowhere near
    d_wrong = [np.hypot(*(flipped - np.array(a.location_m[:2])).T).min() for a in lights]
    assert min(d_wrong) > 5


def test_hero_spawn_point_is_a_lane_centre(town01):
    rec = read_recording(LOG)
    hero = rec.heroes()[0]
    pos = LaneLocator(town01).locate(np.array([hero.location_m[0]]), np.array([hero.location_m[1]]))
    # ScenarioRunner spawned it at (392.5, 195.0); this map file (an export of Town01 from a
    # third-party project) puts that lane's centre 0.19 m away, within a spawn point's precision
    assert abs(pos.lane_offset_m[0]) < 0.25
    assert abs(((pos.lane_yaw_deg[0] - hero.rotation_deg[2]) + 180) % 360 - 180) < 1.0
    assert pos.lane_id[0] == 1


def test_offset_sign_left_is_positive(town01):
    loc = LaneLocator(town01)
    s = loc.samples
    i = len(s.x_m) // 3
    yaw = math.radians(s.yaw_deg[i])
    # CARLA left of the direction of travel = minus the right vector (-sin, cos)
    lx, ly = s.x_m[i] + 1.2 * math.sin(yaw), s.y_m[i] - 1.2 * math.cos(yaw)
    pos = loc.locate(np.array([lx, s.x_m[i]]), np.array([ly, s.y_m[i]]))
    assert pos.lane_offset_m[0] == pytest.approx(1.2, abs=0.02)
    assert pos.scenario_runner_offset_m[0] == pytest.approx(-1.2, abs=0.02)
    assert pos.lane_offset_m[1] == pytest.approx(0.0, abs=1e-9)


def _geom(kind, length=20.0, **params):
    return _Geometry(0.0, 1.0, 2.0, 0.3, length, kind, params)


def test_constant_curvature_spiral_is_an_arc():
    ds = np.linspace(0, 20, 11)
    arc = _eval_geometry(_geom("arc", curvature=0.05), ds)
    spi = _eval_geometry(_geom("spiral", curvStart=0.05, curvEnd=0.05), ds)
    for a, b in zip(arc, spi):
        assert np.allclose(a, b, atol=1e-4)


def test_clothoid_matches_fresnel_integrals():
    from scipy import special as scipy_special

    length, k1 = 30.0, 0.04
    ds = np.linspace(0, length, 7)
    x, y, h = _eval_geometry(_Geometry(0.0, 0.0, 0.0, 0.0, length, "spiral", {"curvStart": 0.0, "curvEnd": k1}), ds)
    a = math.sqrt(math.pi * length / k1)  # clothoid scale: curvature = s / (a^2 / pi)
    S, C = scipy_special.fresnel(ds / a)
    assert np.allclose(x, a * C, atol=1e-3) and np.allclose(y, a * S, atol=1e-3)
    assert np.allclose(h, 0.5 * k1 / length * ds**2)


def test_param_poly3_straight_is_a_line():
    ds = np.linspace(0, 20, 5)
    line = _eval_geometry(_geom("line"), ds)
    pp = _eval_geometry(_geom("paramPoly3", bU=20.0, normalized=1.0), ds)
    for a, b in zip(line, pp):
        assert np.allclose(a, b, atol=1e-6)


def test_bad_file(tmp_path):
    p = tmp_path / "x.xodr"
    p.write_text("<OpenDRIVE><road id='a' length='1'/></OpenDRIVE>")
    with pytest.raises(OpenDriveError, match="road id is not an integer"):
        read_opendrive(p)
    p.write_text("<nope/>")
    with pytest.raises(OpenDriveError, match="expected <OpenDRIVE>"):
        read_opendrive(p)


def test_lookup_without_scipy_gives_the_same_lanes(town01):
    """scipy is optional (the carla extra): the brute-force search must agree with the k-d tree."""
    rng = np.random.default_rng(7)
    loc = LaneLocator(town01)
    s = loc.samples
    i = rng.integers(0, s.x_m.size, 300)
    x, y = s.x_m[i] + rng.normal(0, 0.8, 300), s.y_m[i] + rng.normal(0, 0.8, 300)
    fast = loc.locate(x, y)
    loc._tree = None
    slow = loc.locate(x, y)
    assert np.allclose(fast.distance_m, slow.distance_m)
    assert np.allclose(fast.lane_offset_m, slow.lane_offset_m) or np.mean(fast.lane_id == slow.lane_id) > 0.99
