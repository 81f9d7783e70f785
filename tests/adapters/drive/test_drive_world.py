"""The drive world on real SUMO networks of CARLA's towns: conversion, coordinates, events."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import libsumo
import vehiclemodels  # noqa: F401

from simbridge.adapters.kit.opendrive import read_opendrive  # noqa: E402
from simbridge.adapters.drive.world._dynamics import EgoState  # noqa: E402
from simbridge.adapters.drive.world._net import net_offset, net_path, xodr_path  # noqa: E402
from simbridge.adapters.drive._scenario import DriveScenario, StaticCar, Walker  # noqa: E402
from simbridge.adapters.drive.world._scene import EgoControls, carla_xy, sumo_xy  # noqa: E402
from simbridge.adapters.drive.world._world import World, box_corners, boxes_overlap  # noqa: E402


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A private network cache: the test converts the towns itself (netconvert, < 1 s each)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SIMBRIDGE_DRIVE_CACHE", str(tmp_path_factory.mktemp("drive-cache")))
    yield
    mp.undo()


@pytest.fixture
def world_of(cache):
    made: list[World] = []

    def make(sc: DriveScenario) -> World:
        w = World(sc)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


def _place(w: World, x: float, y: float, yaw_deg: float, v_ms: float) -> None:
    w.ego.state = EgoState(x, y, v_ms=v_ms, yaw_rad=math.radians(yaw_deg))


def test_network_conversion_is_cached_and_keeps_opendrive_lane_ids(cache):
    net = net_path("Town01")
    assert net.exists() and "sumo" in net.name
    mtime = net.stat().st_mtime_ns
    assert net_path("Town01") == net and net.stat().st_mtime_ns == mtime  # converted once
    assert net_path("Town03").name == "Town03.net.xml"  # shipped (its xodr has no signals)
    assert "origId" in net.read_text()[:200_000]


def test_lane_centres_of_the_xodr_land_on_the_sumo_lane_of_the_same_origin(world_of):
    w = world_of(DriveScenario("T07", "Town01", 170.0, 199.14, 0.0))
    odr = read_opendrive(xodr_path("Town01"))
    s = odr.lane_samples(step_m=5.0)
    rng = np.random.default_rng(0)
    idx = rng.choice(np.flatnonzero(s.junction == -1), 60, replace=False)
    same, far = 0, []
    for i in idx:
        sx, sy = sumo_xy(float(s.x_m[i]), float(s.y_m[i]), w.offset)
        back = carla_xy(sx, sy, w.offset)
        assert back == pytest.approx((s.x_m[i], s.y_m[i]), abs=1e-9)  # the conversion round-trips
        edge, pos, lane = libsumo.simulation.convertRoad(sx, sy)
        lane_id = f"{edge}_{lane}"
        px, py = libsumo.simulation.convert2D(edge, pos, lane)
        far.append(math.hypot(px - sx, py - sy))
        same += libsumo.lane.getParameter(lane_id, "origId") == f"{s.road[i]}_{s.lane[i]}"
    assert max(far) < 0.5  # the OpenDRIVE lane centre is on SUMO's lane centre line
    assert same >= 0.9 * len(idx)


def test_red_light_is_reported_once_per_crossing_on_red(world_of):
    w = world_of(DriveScenario("T06", "Town01", 170.0, 199.14, 0.0))
    ap = w._approaches[0]
    n = len(libsumo.trafficlight.getRedYellowGreenState(ap.tls))
    yaw = -math.degrees(math.atan2(ap.dir_xy[1], ap.dir_xy[0]))
    x0, y0 = carla_xy(ap.end_xy[0] - 12.0 * ap.dir_xy[0], ap.end_xy[1] - 12.0 * ap.dir_xy[1], w.offset)

    def drive_through(state: str) -> list[dict]:
        libsumo.trafficlight.setRedYellowGreenState(ap.tls, state * n)
        _place(w, x0, y0, yaw, 8.0)
        out = []
        for _ in range(60):  # 3 s at ~30 km/h: ~12 m to the stop line, then into the junction
            out += [e for e in w.step(EgoControls(throttle=0.2)) if e["kind"] == "red_light"]
        return out

    reds = drive_through("r")
    assert len(reds) == 1
    assert reds[0]["data"]["light_id"] == ap.tls_index and reds[0]["data"]["sumo_lane"] == ap.lane
    assert drive_through("G") == []
    heads = {h.light_id: h for h in w.lights()}
    assert heads[f"{ap.tls}:{ap.lane}"].state == "green"


def test_collision_with_a_sumo_vehicle_is_one_event_of_kind_vehicle(world_of):
    w = world_of(DriveScenario("T06", "Town01", 150.0, 199.14, 0.0))
    edge, pos, lane = libsumo.simulation.convertRoad(*sumo_xy(150.0, 199.14, w.offset))
    libsumo.route.add("blocker_route", [edge])
    libsumo.vehicle.add("blocker", "blocker_route", depart="now", departPos=str(pos + 25.0), departLane=str(lane))
    libsumo.vehicle.setSpeed("blocker", 0.0)
    events = []
    for _ in range(160):
        events += w.step(EgoControls(throttle=0.4))
    hits = [e for e in events if e["kind"] == "collision"]
    assert len(hits) == 1, events
    d = hits[0]["data"]
    assert d["other_kind"] == "vehicle" and d["other_type_id"] == "DEFAULT_VEHTYPE"
    assert isinstance(d["other_id"], int) and d["x_m"] > 150.0
    assert w.frame().collisions[-1][1] == "Collision with DEFAULT_VEHTYPE"


def test_t13_walker_starts_at_the_trigger_and_a_hit_is_a_walker_collision(world_of):
    walker = Walker((205.0, 138.5), (205.0, 126.0), 2.0, (205.0, 133.41), 25.0)
    parked = [StaticCar("vehicle.volkswagen.t2", 200.0, 136.6, 0.0)]
    w = world_of(DriveScenario("T13", "Town01", 150.0, 133.41, 0.0, walker=walker, parked=parked))
    _place(w, 150.0, 133.41, 0.0, 30.0 / 3.6)  # at the speed limit, not braking
    events = []
    for _ in range(200):
        v = w.ego.state.speed_kmh
        events += w.step(EgoControls(throttle=min(1.0, max(0.0, 0.1 + 0.1 * (30.0 - v)))))
        if any(e["kind"] == "collision" for e in events):
            break
    trig = [e for e in events if e["kind"] == "scenario_trigger"]
    assert len(trig) == 1 and trig[0]["data"]["what"] == "pedestrian_crossing"
    assert 3.0 < trig[0]["t"] < 4.2  # 150 -> 180 m (25 m before the crossing point) at 30 km/h: 3.6 s
    hit = [e for e in events if e["kind"] == "collision"]
    assert hit and hit[0]["data"]["other_kind"] == "walker"
    kinds = {a.kind for a in w.frame().actors}
    assert kinds == {"pedestrian", "vehicle"}  # the walker and the parked van are drawn


def test_t06_route_is_planned_by_sumo_through_two_signalised_junctions(world_of):
    sc = DriveScenario("T06", "Town03", -5.6, -77.0, 91.4, destination_xy_m=(71.45, -192.21), traffic_vehicles=3)
    w = world_of(sc)
    route = np.array(w.route_xy_m)
    steps = np.hypot(*np.diff(route, axis=0).T)
    assert np.all(steps <= 1.001) and steps[:-1].min() > 0.95  # 1 m along the path (chords at corners)
    assert 400.0 < steps.sum() < 600.0
    assert tuple(route[0]) == (-5.6, -77.0) and math.hypot(*(route[-1] - (71.45, -192.21))) < 2.0
    controlled = {ap.lane.rsplit("_", 1)[0]: ap.tls for ap in w._approaches}
    assert len({controlled[e] for e in w.route_edges if e in controlled}) >= 2
    for _ in range(40):
        w.step(EgoControls())
    assert len([a for a in w.frame().actors if a.kind == "vehicle"]) >= 1  # background traffic


def test_box_overlap():
    a = box_corners(0.0, 0.0, 0.0, 4.9, 1.9)
    assert boxes_overlap(a, box_corners(4.0, 0.5, 30.0, 4.5, 1.8))
    assert not boxes_overlap(a, box_corners(6.0, 0.0, 0.0, 4.5, 1.8))
    assert not boxes_overlap(a, box_corners(0.0, 2.2, 0.0, 4.5, 1.8))


def test_net_offset_matches_the_network_header(cache):
    assert net_offset(net_path("Town03")) == (153.31, 198.86)


def test_an_unusable_cache_falls_back_to_a_private_temporary_one(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SIMBRIDGE_DRIVE_CACHE", str(blocker / "cache"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    net = net_path("Town01")
    assert net.parent == tmp_path / "tmp" / f"simbridge-drive-{os.getuid()}" and net.exists()


OFF_NETWORK = """
from simbridge.adapters.drive.world._dynamics import EgoState
from simbridge.adapters.drive._scenario import DriveScenario
from simbridge.adapters.drive.world._scene import EgoControls
from simbridge.adapters.drive.world._world import World
w = World(DriveScenario("T07", "Town01", 170.0, 199.14, 0.0))
w.ego.state = EgoState(170.0, 599.14, v_ms=3.0)  # 400 m off the road before the first step
for _ in range(3):
    w.step(EgoControls(throttle=0.5))
print("stepped", round(w.sample()["y"], 1))
w.close()
"""


def test_an_ego_far_off_the_network_from_the_first_frame_keeps_stepping(cache):
    # in a child process: the failure this guards against is a segfault inside libsumo
    r = subprocess.run([sys.executable, "-c", OFF_NETWORK], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-500:]
    assert "stepped 599.1" in r.stdout


def test_the_head_shows_the_through_link_and_red_light_judges_what_the_head_showed(world_of):
    w = world_of(DriveScenario("T06", "Town01", 170.0, 199.14, 0.0))
    # an approach with a through link and another one (a turn), as at T06's junctions
    ap = next(a for a in w._approaches if a.shown_is_through and len({i for i, _ in a.links}) >= 2)
    other = next(i for i, _ in ap.links if i != ap.shown_index)
    n = len(libsumo.trafficlight.getRedYellowGreenState(ap.tls))
    yaw = -math.degrees(math.atan2(ap.dir_xy[1], ap.dir_xy[0]))
    x0, y0 = carla_xy(ap.end_xy[0] - 12.0 * ap.dir_xy[0], ap.end_xy[1] - 12.0 * ap.dir_xy[1], w.offset)

    def drive_through(through: str, turn: str) -> tuple[str, list[dict]]:
        state = ["G"] * n
        state[ap.shown_index], state[other] = through, turn
        libsumo.trafficlight.setRedYellowGreenState(ap.tls, "".join(state))
        _place(w, x0, y0, yaw, 8.0)
        w.step(EgoControls())
        shown = {h.light_id: h.state for h in w.lights()}[f"{ap.tls}:{ap.lane}"]
        out = []
        for _ in range(60):
            out += [e for e in w.step(EgoControls(throttle=0.2)) if e["kind"] == "red_light"]
        return shown, out

    shown, reds = drive_through("r", "G")  # the turn is green, but the head shows red
    assert shown == "red" and len(reds) == 1 and reds[0]["data"]["sumo_lane"] == ap.lane
    shown, reds = drive_through("G", "r")  # the head shows green: no driver could have known
    assert shown == "green" and reds == []


def test_an_ego_driven_20_m_off_the_road_keeps_streaming_finite_lane_samples(world_of):
    from simbridge._task import load_task
    from simbridge.adapters.drive._mapping import CanonicalMapper
    from simbridge.adapters.drive._scenario import from_task

    sc = from_task(load_task("T18"))
    w = world_of(sc)
    w.step(EgoControls())
    # 20 m right of lane -2 (heading -x: CARLA's right is -y), beyond the verge: no driving lane
    _place(w, sc.ego_x_m, sc.ego_y_m - 20.0, sc.ego_yaw_deg, 20.0)
    mapper = CanonicalMapper(xodr_path("Town04"))
    lanes = []
    for _ in range(40):
        w.step(EgoControls(throttle=0.5))
        raw = w.sample()
        canon, _ = mapper.map(raw["t"], raw)
        assert math.isfinite(canon["lane_id"]) and math.isfinite(canon["lane_offset_m"]), canon
        lanes.append(canon["lane_id"])
    assert set(lanes) == {0.0}
    assert raw["y"] == pytest.approx(sc.ego_y_m - 20.0, abs=1.0) and raw["speed_kmh"] > 72.0
