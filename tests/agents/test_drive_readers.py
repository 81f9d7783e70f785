"""The drive reference drivers' eyes on frames the driving simulator's own view renders (Town04's
SUMO network, `DriverView`): the HUD speed, the lane offset from the markings, the traffic-light
lamps and their distance, the route on the minimap and a vehicle ahead. The view is used here
only to make the pictures; the readers themselves know only the published layout."""

from __future__ import annotations

import math

import numpy as np
import pytest


import pygame

from simbridge.adapters.drive.world._net import net_path
from simbridge.adapters.drive.world._roads import Lane, RoadGeometry
from simbridge.adapters.drive.world._scene import Actor, EgoControls, Frame, LightHead
from simbridge.adapters.drive.world._view import DriverView
from simbridge.adapters.drive.pilots import _eyes as eyes
from simbridge.adapters.drive.pilots._route import RouteDriver

pytestmark = pytest.mark.usefixtures("sdl_offscreen")

#: a Town04 highway lane (SUMO id) with a straight stretch (s 280-400 m) and a left curve (s 420-520 m)
LANE_ID = "-45_1"


@pytest.fixture(scope="module")
def town04() -> RoadGeometry:
    try:
        return RoadGeometry.from_net(net_path("Town04"))
    except Exception as exc:  # netconvert missing: the drive extra is not installed
        pytest.skip(f"Town04 SUMO network unavailable: {exc}")


@pytest.fixture(scope="module")
def view(town04: RoadGeometry) -> DriverView:
    pygame.font.init()
    return DriverView(roads=town04)


@pytest.fixture(scope="module")
def lane(town04: RoadGeometry) -> Lane:
    return next(ln for ln in town04.lanes if ln.lane_id == LANE_ID)


def pose(lane: Lane, s_m: float, right_m: float = 0.0) -> tuple[float, float, float]:
    """(x, y, yaw_deg) `s_m` along the lane's centre line, `right_m` to its right (CARLA frame)."""
    c = lane.centre_xy_m
    seg = np.hypot(*np.diff(c, axis=0).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    i = int(min(max(np.searchsorted(cum, s_m) - 1, 0), len(c) - 2))
    d = (c[i + 1] - c[i]) / seg[i]
    p = c[i] + (s_m - cum[i]) * d
    q = p + right_m * np.array([-d[1], d[0]])
    return float(q[0]), float(q[1]), math.degrees(math.atan2(d[1], d[0]))


def render(view: DriverView, x: float, y: float, yaw: float, speed_kmh: float = 0.0, **kw: object) -> np.ndarray:
    """The window as a BGR screenshot array (what `Screenshot.to_array()` gives a driver)."""
    surf = pygame.Surface((1280, 800))
    view.draw(surf, Frame(0.0, "Town04", x, y, yaw, speed_kmh, EgoControls(), **kw))  # type: ignore[arg-type]
    return pygame.surfarray.array3d(surf).transpose(1, 0, 2)[:, :, ::-1].copy()


def test_speed_is_read_from_the_hud_at_every_value_0_to_130():
    pygame.font.init()
    bare = DriverView(roads=None)  # the HUD over sky and terrain: the text is what is read
    for kmh in range(0, 131):
        img = render(bare, 0.0, 0.0, 0.0, kmh + 0.4 * ((kmh * 7) % 3 - 1) / 2)
        assert eyes.read_speed_kmh(img) == round(kmh + 0.4 * ((kmh * 7) % 3 - 1) / 2), kmh


def test_speed_reader_refuses_a_row_without_the_speed_text():
    img = np.full((800, 1280, 3), 40, np.uint8)
    assert eyes.read_speed_kmh(img) is None


@pytest.mark.parametrize("s_m", [300.0, 470.0])  # straight, then in the left curve
@pytest.mark.parametrize("offset_m", [-0.9, -0.3, 0.0, 0.4, 1.0])
def test_lane_offset_sign_and_size_within_0_2_m(view, lane, s_m, offset_m):
    x, y, yaw = pose(lane, s_m, offset_m)
    fit = eyes.read_lane(render(view, x, y, yaw, 90.0))
    assert fit is not None
    assert abs(fit.offset_m - offset_m) < 0.2, (fit, offset_m)
    assert 3.2 < fit.width_m < 3.8


def test_lane_bearing_and_curvature(view, lane):
    x, y, yaw = pose(lane, 300.0)
    along = eyes.read_lane(render(view, x, y, yaw))
    turned = eyes.read_lane(render(view, x, y, yaw + 2.0))  # the car turned 2 deg to the right
    assert along is not None and turned is not None
    assert turned.heading_deg - along.heading_deg == pytest.approx(-2.0, abs=0.3)
    assert abs(along.heading_deg) < 1.0
    x, y, yaw = pose(lane, 470.0)
    curve = eyes.read_lane(render(view, x, y, yaw))
    assert curve is not None and curve.c_per_m < -1e-3  # bending left (towards negative right_m)


def test_no_lane_in_a_picture_without_markings():
    assert eyes.read_lane(np.full((800, 1280, 3), 72, np.uint8)) is None


@pytest.mark.parametrize("dist_m", [20.0, 35.0, 50.0, 60.0])
@pytest.mark.parametrize("state", ["red", "yellow", "green"])
def test_own_light_colour_and_distance(view, lane, dist_m, state):
    x, y, yaw = pose(lane, 300.0)
    hx, hy, hyaw = pose(lane, 300.0 + dist_m, 1.75 + 0.8)  # beside the lane's end, as the world puts it
    head = LightHead("tl", hx, hy, hyaw + 180.0, state)  # type: ignore[arg-type]
    img = render(view, x, y, yaw, 30.0, lights=(head,))
    lamps = eyes.read_lamps(img)
    assert [lp.colour for lp in lamps] == [state]
    own = RouteDriver.own_lamp(lamps, eyes.RouteView.of(img))
    assert own is not None and own.colour == state
    assert own.fwd_m == pytest.approx(dist_m, rel=0.12)


def test_a_head_seen_from_behind_shows_no_lamp(view, lane):
    x, y, yaw = pose(lane, 250.0)
    hx, hy, hyaw = pose(lane, 280.0, 2.5)
    img = render(view, x, y, yaw, lights=(LightHead("tl", hx, hy, hyaw, "red"),))  # facing away
    assert eyes.read_lamps(img) == []


def test_route_on_the_minimap(view, lane):
    x, y, yaw = pose(lane, 250.0)
    route = tuple(pose(lane, s)[:2] for s in np.arange(240.0, 271.0, 1.0))  # ends 20 m ahead
    img = render(view, x, y, yaw, route_xy_m=route)
    rv = eyes.RouteView.of(img)
    p = rv.ahead(10.0)
    assert p is not None and p.fwd_m == pytest.approx(10.0, abs=1.0) and abs(p.right_m) < 0.75
    assert rv.reach_m() == pytest.approx(20.0, abs=1.5)
    assert eyes.RouteView.of(render(view, x, y, yaw)).empty


def test_vehicle_ahead_in_the_lane(view, lane):
    x, y, yaw = pose(lane, 250.0)
    cx, cy, cyaw = pose(lane, 270.0)
    car = Actor("v1", "vehicle", cx, cy, cyaw, 4.5, 1.9, 1.5)
    d = eyes.obstacle_distance_m(render(view, x, y, yaw, actors=(car,)))
    assert d is not None and d == pytest.approx(20.0 - 2.25, abs=1.0)
    assert eyes.obstacle_distance_m(render(view, x, y, yaw)) is None
    side = Actor("v2", "vehicle", *pose(lane, 270.0, -3.5), 4.5, 1.9, 1.5)  # next lane: not in the way
    assert eyes.obstacle_distance_m(render(view, x, y, yaw, actors=(side,))) is None


def test_the_lane_is_read_through_the_interchange_junction(view):
    """Town04's interchange on the T18 start straight (x 66-128 m) is painted from its OpenDRIVE
    connecting road's roadMarks: lane -2 is read there, its offset as the xodr's within 0.3 m."""
    from simbridge.adapters.drive.world._net import xodr_path
    from simbridge.adapters.kit.opendrive import LaneLocator, read_opendrive

    loc = LaneLocator(read_opendrive(xodr_path("Town04")))
    for x_m in (130.0, 110.0, 100.0):
        fit = eyes.read_lane(render(view, x_m, 13.9, -179.02, 90.0))
        truth = loc.locate(np.array([x_m]), np.array([13.9]))
        assert fit is not None and fit.width_m == pytest.approx(3.5, abs=0.2)
        assert fit.offset_m == pytest.approx(-float(truth.lane_offset_m[0]), abs=0.3)  # right + vs left +


def test_the_fit_says_how_far_its_markings_reach(view, lane):
    """On the marked highway the supporting markings reach far ahead (the lane keeper trusts
    such a fit's curvature); in a picture whose markings stop 12 m ahead the reach says so."""
    x, y, yaw = pose(lane, 300.0)
    img = render(view, x, y, yaw, 90.0)
    fit = eyes.read_lane(img)
    assert fit is not None and fit.far_m > 25.0
    near = img.copy()
    near[: int(eyes.L.ground_row(12.0))] = eyes.L.ASPHALT[::-1]  # paint over everything beyond 12 m
    short = eyes.read_lane(near)
    assert short is not None and short.far_m < 12.5
    assert abs(short.offset_m - fit.offset_m) < 0.2


def test_heading_is_read_from_the_hud_to_the_degree():
    pygame.font.init()
    bare = DriverView(roads=None)
    for compass in [0.2, 0.7, 44.6, 89.4, 90.0, 135.5, 179.6, 180.4, 233.3, 270.6, 315.0, 359.6]:
        yaw = compass - 90.0  # CARLA yaw -> compass is +90 (layout.compass_deg)
        got = eyes.read_heading_deg(render(bare, 0.0, 0.0, yaw, 50.0))
        assert got == round(compass) % 360, compass


def test_location_is_read_from_the_hud_cold_and_tracked():
    """The HUD's "(x, y)" line: read without a previous reading (any sign and digit count), then
    tracked frame to frame as a parking car moves (a few cm a frame), to the printed 0.1 m."""
    pygame.font.init()
    bare = DriverView(roads=None)
    for x, y in [(170.0, 199.14), (-5.26, 12.0), (307.95, 0.96)]:  # T07 spawns at the first
        assert eyes.LocationReader().read(render(bare, x, y, 0.0)) == (round(x, 1), round(y, 1)), (x, y)
    # any text: a cold read is right or finds nothing (the driver looks again), never wrong
    rng = np.random.default_rng(7)
    right = 0
    for x, y in rng.uniform(-50, 400, (30, 2)):
        got = eyes.LocationReader().read(render(bare, float(x), float(y), 0.0))
        assert got is None or got == (round(x, 1), round(y, 1)), (x, y, got)
        right += got is not None
    assert right >= 25
    reader = eyes.LocationReader()
    x, y = 206.83, 197.4
    for _ in range(60):
        got = reader.read(render(bare, x, y, -20.0))
        assert got == (round(x, 1), round(y, 1)), (x, y)
        x, y = x - 0.043, y + 0.018
    assert eyes.LocationReader().read(np.full((800, 1280, 3), 40, np.uint8)) is None


def test_painted_bay_outline_is_placed_on_the_ground(view, lane):
    """T07's bay paint (ROAD_MARK) seen 10-16 m ahead: its ground points span the outline."""
    x, y, yaw = pose(lane, 300.0)
    c = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    r = -c[1], c[0]

    def at(fwd: float, right: float) -> tuple[float, float]:
        return x + c[0] * fwd + r[0] * right, y + c[1] * fwd + r[1] * right

    bay = (at(10.0, -0.5), at(16.0, -0.5), at(16.0, 2.5), at(10.0, 2.5))
    pts = eyes.road_mark_points(render(view, x, y, yaw, road_marks_xy_m=(bay,)))
    assert len(pts) > 100
    assert np.percentile(pts[:, 0], 1) == pytest.approx(10.0, abs=0.25)
    assert np.percentile(pts[:, 0], 99) == pytest.approx(16.0, abs=0.35)
    assert np.percentile(pts[:, 1], 1) == pytest.approx(-0.5, abs=0.15)
    assert np.percentile(pts[:, 1], 99) == pytest.approx(2.5, abs=0.15)
    assert len(eyes.road_mark_points(render(view, x, y, yaw))) == 0


@pytest.mark.parametrize("fwd_m,right_m", [(12.0, 0.0), (20.0, 3.0), (25.0, -4.0)])
def test_walker_is_found_and_placed_by_its_feet(view, lane, fwd_m, right_m):
    x, y, yaw = pose(lane, 300.0)
    wx, wy, _ = pose(lane, 300.0 + fwd_m, right_m)
    walker = Actor("w", "pedestrian", wx, wy, 0.0, 0.5, 0.5, 1.8)
    [w] = eyes.read_walkers(render(view, x, y, yaw, actors=(walker,)))
    assert w.fwd_m == pytest.approx(fwd_m - 0.25, abs=0.6)  # the feet's near edge
    assert w.right_m == pytest.approx(right_m, abs=0.3)
    assert eyes.read_walkers(render(view, x, y, yaw)) == []


def _obstacle_row_by_row(img_bgr: np.ndarray, half_width_m: float = 1.3, far_m: float = 30.0) -> float | None:
    """The corridor rule read one row at a time (what `obstacle_distance_m` computes at once)."""
    v_top = int(math.ceil(eyes.L.ground_row(far_m)))
    v_bot = min(eyes.L.HEIGHT - 41, int(eyes.L.ground_row(3.0)))
    for v in range(v_bot, v_top - 1, -2):
        dist = eyes.L.ground_distance_m(v + 0.5)
        half_px = half_width_m * eyes.L.FOCAL_PX / dist
        x0 = max(int(eyes.L.CX_PX - half_px), eyes.L.HUD_RECT[0] + eyes.L.HUD_RECT[2])
        seg = eyes.rgb_of(img_bgr[v : v + 1, x0 : int(eyes.L.CX_PX + half_px) + 1])[0]
        if len(seg) == 0:
            continue
        road = np.zeros(len(seg), bool)
        for c in eyes._ROAD_LIKE:
            road |= (np.abs(seg - np.array(c, np.int16)) <= eyes.COLOUR_TOL).all(axis=-1)
        if (~road).mean() > 0.3:
            return float(dist)
    return None


def test_the_corridor_ahead_is_read_as_its_rows_one_by_one():
    """Road-coloured pictures a few levels off the colour tolerance, with blocks of any colour:
    the band read at once finds the same nearest blocked row as the rows read one by one."""
    rng = np.random.default_rng(7)
    colours = [np.array(c[::-1]) for c in eyes._ROAD_LIKE]
    found = []
    for i in range(120):
        noise = eyes.COLOUR_TOL + (1 if i % 3 == 0 else 0)  # every third just past the tolerance
        img = np.clip(
            colours[i % len(colours)] + rng.integers(-noise, noise + 1, (eyes.L.HEIGHT, eyes.L.WIDTH, 3)), 0, 255
        )
        img = img.astype(np.uint8)
        for _ in range(int(rng.integers(0, 3))):
            y, x = int(rng.integers(0, eyes.L.HEIGHT)), int(rng.integers(0, eyes.L.WIDTH))
            img[y : y + int(rng.integers(1, 80)), x : x + int(rng.integers(1, 300))] = rng.integers(0, 256, 3)
        kw = {} if i % 2 else {"half_width_m": float(rng.uniform(0.5, 3.0)), "far_m": float(rng.uniform(10.0, 60.0))}
        found.append(eyes.obstacle_distance_m(img, **kw))
        assert found[-1] == _obstacle_row_by_row(img, **kw), i
    assert None in found and len(set(found)) > 5  # both clear and blocked corridors, at many distances
