"""Host-side mapping of the drive process's raw state: canonical signals, lane_invasion with
the crossed marking's type, route progress; the task YAML's drive setups."""

from __future__ import annotations

import numpy as np
import pytest

import scipy  # noqa: F401

from simbridge._task import load_task  # noqa: E402
from simbridge.adapters.drive._mapping import CanonicalMapper  # noqa: E402
from simbridge.adapters.drive.world._net import xodr_path  # noqa: E402
from simbridge.adapters.drive._scenario import DriveScenario, from_task  # noqa: E402
from simbridge.adapters.kit.opendrive import carla_marking  # noqa: E402

#: T18's drive start: the centre of OpenDRIVE lane -2 on Town04's road 38, heading -x
T18_START = (284.44, 16.66, -179.02)


def _raw(x: float, y: float, yaw: float = -179.02, v: float = 90.0) -> dict:
    return {"x": x, "y": y, "yaw": yaw, "speed_kmh": v, "throttle": 0.5, "steer": 0.0, "brake": 0.0}


def test_lane_centre_maps_to_lane_minus_2_with_no_offset():
    m = CanonicalMapper(xodr_path("Town04"))
    canon, events = m.map(0.0, _raw(T18_START[0], T18_START[1]))
    assert canon["lane_id"] == -2 and abs(canon["lane_offset_m"]) < 0.05
    assert canon["speed_kmh"] == 90.0 and canon["throttle"] == 0.5 and events == []
    assert "route_progress" not in canon  # T18 has no route


@pytest.mark.parametrize("direction, side", [(1.0, "left"), (-1.0, "right")])
def test_drifting_across_the_broken_line_is_one_lane_invasion(direction, side):
    m = CanonicalMapper(xodr_path("Town04"))
    x, y, _ = T18_START
    events = []
    # heading -x in CARLA's frame: left of travel is +y; drift 2 m sideways and back
    for k, dy in enumerate(np.concatenate([np.linspace(0, 2.0, 21), np.linspace(2.0, 0.0, 21)])):
        events += m.map(0.05 * k, _raw(x - 1.0 * k, y + direction * dy))[1]
    assert len(events) == 1, events
    d = events[0]["data"]
    assert events[0]["kind"] == "lane_invasion" and d["side"] == side
    assert d["markings"] == ["Broken"]  # lanes -1/-2/-3 of the highway are separated by broken lines
    assert d["lane_id"] == -2 and d["road_id"] == 38


def test_marking_names_are_carla_s():
    assert carla_marking("solid solid") == "SolidSolid"
    assert carla_marking("broken") == "Broken"
    assert carla_marking("none") == "NONE"
    assert carla_marking("curb") == "Curb"


def test_route_progress_counts_route_points_passed_in_order():
    route = [(float(x), 0.0) for x in range(0, 101)]
    m = CanonicalMapper(xodr_path("Town01"), route)
    assert m.route_progress(0.0, 1.0) == 0.0
    assert m.route_progress(30.0, 1.0) == pytest.approx(0.30)
    assert m.route_progress(60.0, 80.0) == pytest.approx(0.30)  # far off the route: nothing passed
    assert m.route_progress(20.0, 0.0) == pytest.approx(0.30)  # driving back does not undo progress
    # a jump far ahead is capped by the look-ahead (60 route points per sample)
    assert m.route_progress(100.0, 0.0) == pytest.approx(0.89)
    assert m.route_progress(100.0, 0.0) == pytest.approx(1.0)


@pytest.mark.parametrize("task_id, town", [("T06", "Town03"), ("T07", "Town01"), ("T13", "Town01"), ("T18", "Town04")])
def test_every_drive_task_has_a_setup(task_id, town):
    task = load_task(task_id)
    assert "drive" in task.simulator.alternatives
    assert any(b.port == 8800 for b in task.lockdown.blocked_ports)
    sc = from_task(task, seed=3)
    assert sc.town == town and sc.seed == 3
    assert DriveScenario.from_json(sc.to_json()) == sc
    if task_id == "T06":
        assert sc.destination_xy_m is not None and sc.traffic_vehicles > 0
    if task_id == "T07":
        assert len(sc.parked) == 2 and len(sc.road_marks_xy_m) == 1
    if task_id == "T13":
        assert sc.walker is not None and sc.walker.trigger_distance_m == 25.0
        assert sc.walker.trigger_xy_m == (205.0, 133.41) and len(sc.parked) == 1 and sc.route_xy_m
    if task_id == "T18":
        assert (sc.ego_x_m, sc.ego_y_m, sc.ego_yaw_deg) == T18_START and sc.traffic_vehicles == 0


def test_a_task_without_a_spawn_is_refused_by_name():
    task = load_task("T18")
    scenario = dict(task.initial_state.scenario)
    scenario.pop("drive")
    bad = task.model_copy(update={"initial_state": task.initial_state.model_copy(update={"scenario": scenario})})
    with pytest.raises(ValueError, match="ego_spawn"):
        from_task(bad)


def test_off_the_mapped_road_a_sample_is_lane_0_with_a_finite_in_range_offset():
    m = CanonicalMapper(xodr_path("Town04"))
    x, y, yaw = T18_START
    canon, _ = m.map(0.0, _raw(x, y - 20.0, yaw))  # 20 m right of lane -2: no driving lane there
    assert canon["lane_id"] == 0.0 and canon["lane_offset_m"] == pytest.approx(-13.0, abs=0.1)
    canon, _ = m.map(0.05, _raw(x, y - 2000.0, yaw))  # far beyond the map: held in the canonical range
    assert canon["lane_id"] == 0.0 and canon["lane_offset_m"] == -100.0
    canon, _ = m.map(0.1, _raw(x, y - 3.0, yaw))  # on the next lane: still its lane, as CARLA's importer says
    assert canon["lane_id"] == -3.0


def test_t18_driven_straight_off_the_road_is_scored_not_unscored(tmp_path):
    """A car that goes straight on at 90 km/h while the highway curves away spends most of the
    window off the road: the agent's own failure, so a score, not a gap."""
    from simbridge import read_bundle
    from simbridge._bundle import write_bundle
    from simbridge import score_bundle

    task = load_task("T18")
    m = CanonicalMapper(xodr_path("Town04"))
    x0, y0, yaw = T18_START
    names = ("x_m", "y_m", "yaw_deg", "speed_kmh", "lane_id", "lane_offset_m", "throttle", "steer", "brake")
    cols: dict[str, list[float]] = {k: [] for k in ("t", *names)}
    events: list[dict] = []
    hx, hy = np.cos(np.radians(yaw)), np.sin(np.radians(yaw))
    for k in range(int(125.0 / 0.05)):
        t = 0.05 * (k + 1)
        canon, ev = m.map(t, _raw(x0 + 25.0 * t * hx, y0 + 25.0 * t * hy, yaw))
        events += ev
        cols["t"].append(t)
        for name in names:
            cols[name].append(canon[name])
    lane, off = np.array(cols["lane_id"]), np.array(cols["lane_offset_m"])
    assert np.isfinite(lane).all() and np.isfinite(off).all() and (np.abs(off) <= 100.0).all()
    assert (lane == 0).mean() > 0.5  # most of the drive is off the mapped road
    out = write_bundle(
        tmp_path / "off-road",
        {"task_id": "T18", "sim": "drive", "status": "completed"},
        cols,
        events=events,
        snapshots={"start": {"map": "Town04"}},
    )
    verdict = score_bundle(read_bundle(out), task)
    assert verdict.status == "scored", verdict.reason
    assert verdict.score < 0.5  # speed held, but far off the lane for most of the window
