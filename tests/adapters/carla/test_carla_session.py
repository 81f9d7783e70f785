"""The live CARLA session against a double of the client API (tests/doubles/carla_double.py).

The double is not CARLA: these tests check the session's sequencing (world settings, spawn,
scene, sensors, recorder, ticking, import), not anything about driving in CARLA.
"""

from __future__ import annotations

import math
import time

import carla_recsynth as rs
import numpy as np
import pytest
from fixtures import fixture_path
from doubles.carla_double import CarlaDouble, Location, Rotation, Server, Transform

from simbridge import HarnessError, read_bundle
from simbridge._adapter import Sandbox
from simbridge._task import load_task
from simbridge.adapters.carla import CarlaSession, KeyboardDriver, Keys

XODR = fixture_path("carla", "Town01.xodr")


def _write_recording(path: str, history: list[dict]) -> None:
    """What a server would record for the double's ticks, in the recorder's binary format."""
    frames = []
    known: set[int] = set()
    for h in history:
        pk = []
        new = [a for a in h["actors"] if a[0] not in known]
        if new:
            known.update(a[0] for a in new)
            pk.append(
                rs.event_add(
                    [
                        (
                            a[0],
                            1 if a[1].startswith("vehicle.") else 2,
                            (a[3] * 100, a[4] * 100, a[5] * 100),
                            a[6],
                            a[1],
                            {k: v for k, v in a[2].items() if not k.startswith("_")},
                        )
                        for a in new
                    ]
                )
            )
        if h["collisions"]:
            pk.append(rs.collision([(i, e, o) for i, (e, o) in enumerate(h["collisions"])]))
        pk.append(rs.positions([(a[0], a[3] * 100, a[4] * 100, a[5] * 100, a[6]) for a in h["actors"]]))
        pk.append(rs.anim_vehicle([(a[0], a[8], a[7], a[9]) for a in h["actors"] if a[1].startswith("vehicle.")]))
        pk.append(
            rs.kinematics(
                [
                    (a[0], a[10] * math.cos(math.radians(a[6])), a[10] * math.sin(math.radians(a[6])), 0.0)
                    for a in h["actors"]
                ]
            )
        )
        frames.append(pk)
    with open(path, "wb") as fh:
        fh.write(rs.recording(frames, map_name="Carla/Maps/Town01"))


@pytest.fixture
def double(tmp_path):
    # the double serves the real Town01 OpenDRIVE, so the import computes real lane geometry
    server = Server(write_recording=_write_recording, opendrive=XODR.read_text())
    return CarlaDouble(server)


def _sandbox(tmp_path) -> Sandbox:
    return Sandbox(display=":99", env={}, workdir=str(tmp_path / "work"), host_addr="10.0.0.1")


def test_t13_scene_sync_mode_recorder_and_import(tmp_path, double):
    task = load_task("T13")
    s = CarlaSession(carla_module=double, threaded=False, recorder_dir=tmp_path / "rec")
    s.start(task, _sandbox(tmp_path))
    srv = double.server
    w = srv.world
    assert srv.calls[:3] == ["Client(10.0.0.1, 2000)", "set_timeout", "load_world(Town01)"]
    assert "start_recorder(additional_data=True)" in srv.calls
    assert w.settings.synchronous_mode is True and w.settings.fixed_delta_seconds == pytest.approx(0.05)
    kinds = sorted(a.type_id for a in w.actors.values())
    assert kinds == sorted(
        [
            "vehicle.lincoln.mkz_2017",
            "vehicle.volkswagen.t2",
            "walker.pedestrian.0001",
            "sensor.other.collision",
            "sensor.other.lane_invasion",
        ]
    )
    assert s.ego.attributes["role_name"] == "hero"
    assert (s.ego.get_location().x, s.ego.get_location().y) == (110.0, 133.41)
    # the start snapshot names the map and the scenario's actors where the server put them
    start = s.snapshot()
    assert start["map"].rsplit("/", 1)[-1] == "Town01"
    placed = sorted((a["kind"], a["type_id"], a["x_m"], a["y_m"]) for a in start["actors"])
    assert placed == [
        ("vehicle", "vehicle.volkswagen.t2", 200.0, 136.6),
        ("walker", "walker.pedestrian.0001", 205.0, 138.5),
    ]
    assert s.map_path.read_text() == XODR.read_text()

    s.control.update(throttle=1.0)
    s.step(100)  # 5 s at 20 Hz
    samples = s.poll()
    assert len(samples) == 100
    assert samples[-1].t_sim == pytest.approx(5.0)
    assert samples[-1].values["speed_kmh"] > samples[10].values["speed_kmh"] > 0
    assert samples[-1].values["throttle"] == 1.0
    assert s.poll() == []
    # drive on until the pedestrian trigger (25 m before the crossing at x = 205) fires
    s.step(200)
    trig = [e for e in s.events() if e.kind == "scenario_trigger"]
    assert len(trig) == 1
    walker = next(a for a in w.actors.values() if a.type_id.startswith("walker."))
    assert walker.get_location().y < 138.5  # crossing towards y = 126
    s.stop()
    s.stop()  # safe twice
    assert srv.calls[-1] == "stop_recorder"
    assert not w.settings.synchronous_mode  # original settings restored
    b = read_bundle(s.import_recording(tmp_path / "bundle"))
    assert b.episode.sim == "carla" and b.episode.task_id == "T13"
    assert b.signals.t.size == 301  # the tick inside start() and the 300 driven ticks
    live_x = [x.values["x_m"] for x in samples]
    assert np.allclose(b.signals["x_m"][1:101], live_x, atol=1e-3)
    # Town01 road 4, lane -1 (centre y = 133.41 per the task notes): the ego drove straight on it
    assert set(b.signals["lane_id"][:101]) == {-1.0}
    assert np.abs(b.signals["lane_offset_m"][:101]).max() < 0.2


def test_collision_and_lane_invasion_become_events(tmp_path, double):
    task = load_task("T07")
    s = CarlaSession(carla_module=double, threaded=False, recorder_dir=tmp_path / "rec")
    s.start(task, _sandbox(tmp_path))
    s.control.update(throttle=1.0)
    s.step(200)  # straight on into the parked car at x = 193.3
    ev = s.events()
    col = [e for e in ev if e.kind == "collision"]
    assert col and all(e.data["other_kind"] == "vehicle" and e.data["other_type_id"] == "vehicle.audi.a2" for e in col)
    s.control.update(throttle=0.3, steer=0.5)
    s.step(40)
    assert any(e.kind == "lane_invasion" for e in s.events())
    s.stop()
    b = read_bundle(s.import_recording(tmp_path / "b"))
    # the recording the double wrote holds the same collisions the live sensor reported
    assert [e.data["other_id"] for e in b.events_of("collision")] == [e.data["other_id"] for e in col]
    assert [e.t for e in b.events_of("collision")] == pytest.approx([e.t_sim for e in col], abs=0.051)


def test_t18_spawns_in_the_task_lane(tmp_path, double):
    pts = [Transform(Location(0, 0, 0.5), Rotation()), Transform(Location(50, 3.5, 0.5), Rotation())]
    double.server.spawn_points = pts
    double.server.lane_of = lambda loc: -2 if loc.y > 2 else -1
    s = CarlaSession(carla_module=double, threaded=False, recorder_dir=tmp_path)
    s.start(load_task("T18"), _sandbox(tmp_path))
    assert double.server.calls[2] == "load_world(Town04)"
    assert s.ego.get_location().x == 50
    s.stop()


def test_threaded_ticking_and_failures(tmp_path, double):
    s = CarlaSession(carla_module=double, threaded=True, realtime=False, recorder_dir=tmp_path)
    s.start(load_task("T13"), _sandbox(tmp_path))
    try:
        for _ in range(200):
            if len(s._samples) >= 20:
                break
            time.sleep(0.01)
        assert s.alive()
        assert len(s.poll()) >= 20
    finally:
        s.stop()
    assert not s.alive()
    double.server.towns = ("Town04",)
    s2 = CarlaSession(carla_module=double, threaded=False, recorder_dir=tmp_path)
    with pytest.raises(HarnessError, match="carla: map 'Town01' not found"):
        s2.start(load_task("T13"), _sandbox(tmp_path))


def test_a_stalled_server_ends_the_session_as_a_harness_fault(tmp_path, double):
    """The client's tick times out (the server stopped answering): lost, not a crash of the sim."""
    s = CarlaSession(carla_module=double, threaded=True, realtime=False, recorder_dir=tmp_path)
    s.start(load_task("T13"), _sandbox(tmp_path))
    try:
        assert _poll_until(lambda: len(s._samples) >= 5)

        def timed_out(seconds: float = 10.0) -> int:
            raise RuntimeError("time-out of 30000ms while waiting for the simulator")

        s.world.tick = timed_out
        assert _poll_until(lambda: not s.alive())
        assert "ticking failed: time-out of 30000ms" in (s.lost_reason() or "")
        with pytest.raises(HarnessError, match="carla: ticking failed"):
            s.poll()
    finally:
        s.stop()


def _poll_until(pred, timeout_s: float = 30.0) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return False


def test_missing_client_package_is_a_harness_error(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "carla", None)  # makes `import carla` raise ImportError
    with pytest.raises(HarnessError, match="'carla' client package is not installed"):
        CarlaSession(threaded=False).start(load_task("T13"), _sandbox(tmp_path))


def test_keyboard_driver_ramps_steering_like_manual_control():
    d = KeyboardDriver()
    c = d.update(Keys(throttle=True, left=True), 0.05)
    assert c.throttle == pytest.approx(0.1) and c.steer == pytest.approx(-0.025)
    for _ in range(100):
        c = d.update(Keys(throttle=True, left=True), 0.05)
    assert c.throttle == 1.0 and c.steer == pytest.approx(-0.7)
    c = d.update(Keys(right=True), 0.05)
    assert c.steer == pytest.approx(0.025) and c.throttle == 0.0
    c = d.update(Keys(brake=True, hand_brake=True), 0.05)
    assert c.steer == 0.0 and c.brake == pytest.approx(0.2) and c.hand_brake
    d.toggle_reverse()
    assert d.update(Keys(), 0.05).reverse


def test_manual_control_window_draws_and_reads_keys(monkeypatch):
    import pygame

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    from simbridge.adapters.carla import Hud, ManualControlWindow

    win = ManualControlWindow("", size=(320, 240), hud=Hud(route_xy_m=[(0, 0), (30, 0)], title="T06"))
    try:
        win.set_camera_image(4, 2, bytes(range(32)))
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q))
        c = win.step(0.05, x_m=0.0, y_m=0.0, yaw_deg=0.0, speed_kmh=12.0)
        assert c.reverse and c.throttle == 0.0
        assert win.screen.get_at((320 - 12 - 110, 240 - 12 - 110))[:3] != (20, 20, 20)  # minimap drawn
    finally:
        win.close()


#: every class member of the client API the session uses (see _session.py)
USED_API = {
    "Client": ["set_timeout", "load_world", "get_server_version", "start_recorder", "stop_recorder"],
    "World": [
        "get_settings",
        "apply_settings",
        "get_map",
        "get_blueprint_library",
        "try_spawn_actor",
        "tick",
        "get_snapshot",
    ],
    "WorldSettings": ["synchronous_mode", "fixed_delta_seconds"],
    "Map": ["get_spawn_points", "get_waypoint", "to_opendrive"],
    "Waypoint": ["lane_id", "is_junction"],
    "BlueprintLibrary": ["find"],
    "ActorBlueprint": ["has_attribute", "set_attribute"],
    "Actor": ["id", "type_id", "attributes", "get_transform", "get_location", "get_velocity", "destroy"],
    "Vehicle": ["apply_control", "get_control"],
    "Walker": ["apply_control"],
    "Sensor": ["listen", "stop"],
    "CollisionEvent": ["other_actor", "normal_impulse"],
    "LaneInvasionEvent": ["crossed_lane_markings"],
    "WorldSnapshot": ["timestamp"],
    "Timestamp": ["elapsed_seconds"],
    "VehicleControl": ["throttle", "steer", "brake", "hand_brake", "reverse"],
}


def test_the_api_the_session_uses_exists_in_the_real_client_package():
    import carla

    missing = [
        f"{cls}.{m}" for cls, members in USED_API.items() for m in members if not hasattr(getattr(carla, cls, None), m)
    ]
    assert missing == []


def test_session_with_the_real_client_value_types(tmp_path, double):
    """The double's server, but Transform/Location/Rotation/controls from the real `carla` package:
    the keyword arguments the session passes must be the ones the real constructors take."""
    import carla

    for name in ("Transform", "Location", "Rotation", "Vector3D", "VehicleControl", "WalkerControl"):
        setattr(double, name, getattr(carla, name))
    s = CarlaSession(carla_module=double, threaded=False, recorder_dir=tmp_path)
    s.start(load_task("T13"), _sandbox(tmp_path))
    s.control.update(throttle=1.0)
    s.step(300)
    assert s.poll()[-1].values["speed_kmh"] > 0
    assert any(e.kind == "scenario_trigger" for e in s.events())
    s.stop()


def test_a_port_that_is_not_carla_is_a_harness_error_not_a_crash(tmp_path):
    """The real client aborts the process on a non-CARLA answer; the probe runs it in a child."""
    import carla  # noqa: F401
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]
    stop = threading.Event()

    def serve():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conn.sendall(b"\xc1garbage, not msgpack-rpc\n" * 8)
            conn.close()

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        with pytest.raises(HarnessError, match=rf"carla: 127.0.0.1:{port}"):
            CarlaSession(port=port, timeout_s=2.0, threaded=False, recorder_dir=tmp_path).start(
                load_task("T13"), Sandbox(display=":99", env={}, workdir=str(tmp_path), host_addr="127.0.0.1")
            )
    finally:
        stop.set()
        th.join(2)
        srv.close()


def test_no_server_is_a_harness_error(tmp_path):
    import carla  # noqa: F401
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    with pytest.raises(HarnessError, match="time-out"):
        CarlaSession(port=port, timeout_s=1.0, threaded=False, recorder_dir=tmp_path).start(
            load_task("T13"), Sandbox(display=":99", env={}, workdir=str(tmp_path), host_addr="127.0.0.1")
        )


class _GridWaypoint:
    """A Manhattan grid of roads every 50 m: forks (straight, left, right) at intersections."""

    def __init__(self, x: float, y: float, yaw: float) -> None:
        self.transform = Transform(Location(x, y, 0.0), Rotation(0, yaw, 0))

    def next(self, d: float) -> list["_GridWaypoint"]:
        x, y, yaw = self.transform.location.x, self.transform.location.y, self.transform.rotation.yaw
        yaws = [yaw, yaw + 90, yaw - 90] if (round(x) % 50 == 0 and round(y) % 50 == 0) else [yaw]
        return [
            _GridWaypoint(round(x + d * math.cos(math.radians(a))), round(y + d * math.sin(math.radians(a))), a)
            for a in yaws
        ]


class _GridMap:
    def get_waypoint(self, loc):
        return _GridWaypoint(loc.x, loc.y, 0.0)


def test_route_planner_follows_forks_through_the_corners():
    from simbridge.adapters.carla._session import plan_route

    route = plan_route(_GridMap(), Location(0, 0, 0), [(100.0, 0.0), (100.0, 100.0), (50.0, 100.0)])
    assert route[0] == (0, 0) and route[-1] == (50, 100)
    assert (100, 0) in route and (100, 100) in route
    steps = np.hypot(*np.diff(np.array(route, float), axis=0).T)
    assert np.allclose(steps, 1.0)
    assert len(route) - 1 == 250  # 100 east, 100 north (+y), 50 back west: no detours


def test_t06_spawn_point_route_snapshot_and_window_hud(tmp_path, double):
    double.server.spawn_points = [Transform(Location(i * 10.0, 0.0, 0.5), Rotation(0, 90.0, 0)) for i in range(13)]
    task = load_task("T06")
    seen = {}

    class FakeWindow:
        def __init__(self, sandbox, session):
            seen["display"], seen["route"] = sandbox.display, list(session.route_xy_m)
            self.closed = False

        def step(self, dt_s, **state):
            from simbridge.adapters.carla import Control

            seen.setdefault("states", []).append(state)
            return Control(throttle=0.5)

        def close(self):
            self.closed = True

    s = CarlaSession(carla_module=double, threaded=False, recorder_dir=tmp_path, window_factory=FakeWindow)
    s.start(task, _sandbox(tmp_path))
    assert double.server.calls[2] == "load_world(Town03)"
    assert s.ego.get_location().x == 120.0  # spawn point 12
    assert s.snapshot()["route_xy_m"][0] == [120.0, 0.0] and seen["route"] == s.route_xy_m
    s.step(3)
    assert seen["display"] == ":99" and len(seen["states"]) == 2  # the window steps once it has a state
    assert s.poll()[-1].values["throttle"] == 0.5
    s.stop()
    assert s.window.closed
