"""`simbridge import carla`: the real recording into a bundle, and events on hand-built recordings."""

from __future__ import annotations

import json
import math

import carla_recsynth as rs
import numpy as np
import pytest

from fixtures import fixture_path
from simbridge import BundleError, read_bundle
from simbridge._cli import main
from simbridge.adapters.carla import LaneLocator, import_recording, read_opendrive
from simbridge.adapters.kit.opendrive import TRAFFIC_LIGHT_TYPE

LOG = fixture_path("carla", "DistanceToLaneCenter.log")
XODR = fixture_path("carla", "Town01.xodr")
CRITERIA = fixture_path("carla", "DistanceToLaneCenter_criteria.json")


@pytest.fixture(scope="module")
def town01():
    return read_opendrive(XODR)


def test_real_recording_imports_with_lane_geometry(tmp_path, record_property, capsys):
    out = import_recording(LOG, tmp_path / "b", map_path=XODR, task_id="T18")
    b = read_bundle(out)
    assert b.episode.sim == "carla" and b.episode.task_id == "T18" and b.episode.status == "completed"
    s = b.signals
    for name in ("x_m", "y_m", "z_m", "yaw_deg", "speed_kmh", "throttle", "steer", "brake", "lane_id", "lane_offset_m"):
        assert name in s, name
    assert s.t.size == 431 and s.t[-1] == pytest.approx(12.49, abs=0.01)
    assert np.all(np.diff(s.t) > 0)
    off = s["lane_offset_m"]
    lo, hi, rms = float(off.min()), float(off.max()), float(np.sqrt(np.mean(off**2)))
    for k, v in (("lane_offset_min_m", lo), ("lane_offset_max_m", hi), ("lane_offset_rms_m", rms)):
        record_property(k, round(v, 3))
    with capsys.disabled():
        print(
            f"\n[carla import] frames 432, hero samples {s.t.size}, lane_offset_m min {lo:.3f} max {hi:.3f} "
            f"rms {rms:.3f} (lane half width 2.0 m)"
        )
    # the hero weaves (the example exists to measure that) but its centre never leaves its 4 m lane
    assert np.all(np.abs(off) < 2.0)
    assert lo < -0.5 and hi > 0.5
    assert np.all(s["lane_id"] == 1)
    # no collisions, as the criteria file says
    criteria = json.loads(CRITERIA.read_text())
    assert criteria["CollisionTest"]["actual_value"] == 0
    assert b.events_of("collision") == []
    # lane invasions happen exactly where the body (not the centre) crosses the lane edge
    half = b.events_of("lane_invasion")[0].data["half_width_m"] if b.events_of("lane_invasion") else 0.9
    outside = np.abs(off) + half > 2.0
    starts = np.flatnonzero(outside & ~np.concatenate([[False], outside[:-1]]))
    assert [e.t for e in b.events_of("lane_invasion")] == pytest.approx(list(s.t[starts]))
    # speed from the Kinematics packets agrees with the speed from positions
    v_pos = np.hypot(np.gradient(s["x_m"], s.t), np.gradient(s["y_m"], s.t)) * 3.6
    assert np.median(np.abs(v_pos[5:-5] - s["speed_kmh"][5:-5])) < 1.0
    assert s["speed_kmh"].max() > 20
    assert np.nanmin(s["throttle"]) >= 0 and np.nanmax(s["throttle"]) <= 1 and np.nanmax(s["throttle"]) > 0
    snap = b.snapshots
    assert snap["start"]["ego_type_id"] == "vehicle.lincoln.mkz_2017" and snap["start"]["map"] == "Town01"
    assert b.episode.sim_info == {"map": "Town01"}  # CARLA's map: in the per-simulator mapping
    assert snap["end"]["frames"] == 432 and snap["end"]["duration_s"] == pytest.approx(12.53, abs=0.01)


def test_cli_import_then_verify_as_t18(tmp_path, capsys):
    from simbridge._task import task_files

    out = tmp_path / "bundle"
    assert main(["import", "carla", str(LOG), "--out", str(out), "--map", str(XODR), "--task", "T18"]) == 0
    assert (out / "manifest.json").exists()
    said = capsys.readouterr().out
    assert "431 samples over 12.49 s, ego 234 vehicle.lincoln.mkz_2017 on Town01" in said
    assert "T18" in {p.stem for p in task_files()}, "tasks/T18.yaml ships with the repository"
    capsys.readouterr()
    assert main(["verify", str(out), "--json"]) == 0
    score = json.loads(capsys.readouterr().out)
    assert score["task_id"] == "T18"
    # 12 s of driving on Town01, not T18's Town04 highway: judged, and refused as another scenario
    assert score["status"] == "unscored"
    assert score["reason"] == "not this task's scenario: recorded on town01, not town04"
    # and judged as T18 by name, whatever episode.json says
    assert main(["verify", str(out), "--task", "T18", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reason"].startswith("not this task's scenario")


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["import", "carla", str(LOG), "--out", str(tmp_path / "x"), "--ego", "9999"]) == 2
    assert "no actor with id 9999" in capsys.readouterr().err
    assert main(["import", "carla", str(tmp_path / "missing.log"), "--out", str(tmp_path / "y")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad_map = tmp_path / "Town04.xodr"
    bad_map.write_bytes(XODR.read_bytes())
    assert main(["import", "carla", str(LOG), "--out", str(tmp_path / "z"), "--map", str(bad_map)]) == 2
    assert "recording is on map 'Town01'" in capsys.readouterr().err


def test_import_without_map_has_no_lane_columns(tmp_path):
    b = read_bundle(import_recording(LOG, tmp_path / "b"))
    assert "lane_offset_m" not in b.signals and "x_m" in b.signals
    assert any("no OpenDRIVE map" in n for n in b.snapshots["source"]["notes"])


# --------------------------------------------------------------------------- events on built recordings


def _approach(town01, light_state: int, other_state: int, which: int = 0) -> tuple[bytes, int]:
    """The hero drives the last 20 m of a signalled approach and 6 m into the junction."""
    loc = LaneLocator(town01)
    s = loc.samples
    lights = [g for g in town01.signals if g.type == TRAFFIC_LIGHT_TYPE and town01.roads[g.road].junction == -1]
    sig = lights[which]
    lane = -1 if sig.t < 0 else 1
    m = (s.road == sig.road) & (s.lane == lane)
    order = np.argsort(s.s_m[m]) if lane < 0 else np.argsort(-s.s_m[m])
    xs, ys, yaws = s.x_m[m][order], s.y_m[m][order], s.yaw_deg[m][order]
    keep = np.hypot(xs - xs[-1], ys - ys[-1]) <= 20.0
    xs, ys, yaws = list(xs[keep]), list(ys[keep]), list(yaws[keep])
    yaw = math.radians(yaws[-1])
    for _ in range(3):  # 2 m steps straight on
        xs.append(xs[-1] + 2.0 * math.cos(yaw))
        ys.append(ys[-1] + 2.0 * math.sin(yaw))
        yaws.append(yaws[-1])
    all_lights = [g for g in town01.signals if g.type == TRAFFIC_LIGHT_TYPE]
    adds = [(100, 1, (xs[0] * 100, ys[0] * 100, 50.0), yaws[0], "vehicle.lincoln.mkz_2017", {"role_name": "hero"})]
    adds += [
        (200 + k, 3, (g.x_m * 100, g.y_m * 100, 0.0), 0.0, "traffic.traffic_light", {})
        for k, g in enumerate(all_lights)
    ]
    target = 200 + all_lights.index(sig)
    states = [(200 + k, light_state if 200 + k == target else other_state) for k in range(len(all_lights))]
    frames = []
    for i, (x, y, w) in enumerate(zip(xs, ys, yaws)):
        pk = [rs.event_add(adds)] if i == 0 else []
        pk += [rs.positions([(100, x * 100, y * 100, 50.0, w)]), rs.tl_states(states)]
        frames.append(pk)
    return rs.recording(frames), target


@pytest.mark.parametrize("which", [0, 1, 2, 5, 11])  # approaches on both sides of their roads
def test_red_light_when_entering_the_junction_on_red(tmp_path, town01, which):
    data, light = _approach(town01, light_state=0, other_state=2, which=which)
    (tmp_path / "r.log").write_bytes(data)
    b = read_bundle(import_recording(tmp_path / "r.log", tmp_path / "b", map_path=XODR))
    loc = LaneLocator(town01).locate(b.signals["x_m"], b.signals["y_m"])
    assert (loc.junction_id[-1] != -1) and (loc.junction_id[0] == -1)  # the built path does enter a junction
    reds = b.events_of("red_light")
    assert len(reds) == 1
    assert reds[0].data["light_id"] == light and reds[0].data["matched_by"] == "signal"
    first_in = int(np.flatnonzero(loc.junction_id != -1)[0])
    assert reds[0].t == pytest.approx(b.signals.t[first_in])


def test_no_red_light_on_green_even_if_other_lights_are_red(tmp_path, town01):
    data, _ = _approach(town01, light_state=2, other_state=0)
    (tmp_path / "g.log").write_bytes(data)
    b = read_bundle(import_recording(tmp_path / "g.log", tmp_path / "b", map_path=XODR))
    assert b.events_of("red_light") == []


def test_collision_events_name_the_other_kind(tmp_path):
    add = rs.event_add(
        [
            (10, 1, (0.0, 0.0, 0.0), 0.0, "vehicle.tesla.model3", {"role_name": "hero"}),
            (11, 2, (0.0, 0.0, 0.0), 0.0, "walker.pedestrian.0001", {}),
            (12, 1, (0.0, 0.0, 0.0), 0.0, "vehicle.audi.a2", {}),
            (13, 0, (0.0, 0.0, 0.0), 0.0, "static.prop.box01", {}),
        ]
    )
    frames = []
    for i in range(6):
        pk = [add] if i == 0 else []
        pk.append(rs.positions([(10, 100.0 * i, 50.0, 0.0, 0.0), (12, 0.0, 0.0, 0.0, 0.0)]))
        pk.append(rs.kinematics([(10, 1.0, 0.0, 0.0)]))
        if i == 1:
            pk.append(rs.collision([(0, 10, 11)]))
        if i == 3:
            pk.append(rs.collision([(1, 12, 10), (2, 10, 0xFFFFFFFF), (3, 12, 13)]))
        if i == 4:
            pk.append(rs.collision([(4, 10, 13)]))
        frames.append(pk)
    (tmp_path / "c.log").write_bytes(rs.recording(frames))
    b = read_bundle(import_recording(tmp_path / "c.log", tmp_path / "b"))
    got = [(round(e.t, 3), e.data["other_kind"], e.data["other_id"], e.data["x_m"]) for e in b.events_of("collision")]
    assert got == [
        (0.05, "walker", 11, 1.0),
        (0.15, "vehicle", 12, 3.0),
        (0.15, "static", None, 3.0),
        (0.2, "static", 13, 4.0),
    ]
    assert np.allclose(b.signals["speed_kmh"], 3.6)  # from Kinematics (1 m/s), not from positions (20 m/s)


def test_no_hero_is_a_clear_error(tmp_path):
    add = rs.event_add([(10, 1, (0.0, 0.0, 0.0), 0.0, "vehicle.tesla.model3", {"role_name": "autopilot"})])
    (tmp_path / "n.log").write_bytes(rs.recording([[add, rs.positions([(10, 0, 0, 0, 0)])]]))
    with pytest.raises(BundleError, match="no actor with role_name 'hero'; name the ego with --ego"):
        import_recording(tmp_path / "n.log", tmp_path / "b")
    b = read_bundle(import_recording(tmp_path / "n.log", tmp_path / "b2", ego=10))
    assert b.signals.t.size == 1


def test_a_hero_driven_far_off_the_road_is_lane_0_in_range_not_a_gap(tmp_path, town01):
    """Off the mapped road the importer says what the drive simulator says (one rule, in the kit):
    lane 0 with the offset held in the canonical range. Far off, the raw offset would be beyond
    that range and become a gap, and a gap long enough makes the agent's own failure unscored."""
    s = LaneLocator(town01).samples
    edge = int(np.argmin(s.x_m))  # the map's westernmost lane sample
    x0, y0 = float(s.x_m[edge]), float(s.y_m[edge])
    path = [(x0 - dx, y0) for dx in np.linspace(0.0, 400.0, 41)]  # straight out, away from every road
    adds = [(100, 1, (x0 * 100, y0 * 100, 50.0), 0.0, "vehicle.lincoln.mkz_2017", {"role_name": "hero"})]
    frames = [
        ([rs.event_add(adds)] if i == 0 else []) + [rs.positions([(100, x * 100, y * 100, 50.0, 180.0)])]
        for i, (x, y) in enumerate(path)
    ]
    (tmp_path / "off.log").write_bytes(rs.recording(frames))
    b = read_bundle(import_recording(tmp_path / "off.log", tmp_path / "b", map_path=XODR))
    lane, off = b.signals["lane_id"], b.signals["lane_offset_m"]
    raw = LaneLocator(town01).locate(b.signals["x_m"], b.signals["y_m"])
    assert (np.abs(raw.lane_offset_m) > 100.0).any()  # the path does leave the canonical range
    assert len(lane) == len(path) and np.isfinite(off).all() and (np.abs(off) <= 100.0).all()
    far = np.abs(raw.lane_offset_m) > raw.lane_width_m / 2 + 3.5
    assert far.any() and (lane[far] == 0).all() and (lane[~far] != 0).all()
