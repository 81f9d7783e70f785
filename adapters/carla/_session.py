"""Live CARLA session (host side): scene set-up, synchronous 20 Hz ticking, server recording.

Talks to a CARLA server through the `carla` client package (imported lazily: the reader and
importer work without it). The agent never gets the client port; it drives through the
manual-control window, which this session runs on the host and shows on the sandbox display.

One episode: load the task's town; synchronous mode at `sync_hz`; spawn the ego (role_name
`hero`) and the task's scene (parked cars, van, a pedestrian that starts crossing when the ego
is within its trigger distance); collision and lane-invasion sensors; `start_recorder` with
additional data (kinematics, bounding boxes); then every tick: window keys -> control,
`world.tick()`, one canonical sample. `stop()` stops the recorder and cleans up;
`import_recording()` turns the server's recording into a bundle with the town's OpenDRIVE
(saved from `Map.to_opendrive()` at start).

Not yet run against a real CARLA server: it is tested against a double of the client API.
"""

from __future__ import annotations

import importlib
import math
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from simbridge.sim import Sandbox, SimEvent, SimSession, StateSample
from simbridge import HarnessError
from simbridge.adapters.kit import Drain

if TYPE_CHECKING:
    from simbridge import TaskSpec

SIGNALS = ("x_m", "y_m", "z_m", "yaw_deg", "speed_kmh", "throttle", "steer", "brake")
DEFAULT_PORT = 2000


_PROBE = """
import sys, carla
c = carla.Client(sys.argv[1], int(sys.argv[2]))
c.set_timeout(float(sys.argv[3]))
print(c.get_server_version())
"""


def probe_server(host: str, port: int, timeout_s: float) -> str:
    """Ask the server for its version from a child process; returns the version.

    The carla 0.9.16 client calls std::terminate (uncaught msgpack type_error) when the port
    answers with something that is not CARLA's RPC, which would take the whole harness down;
    a child process dies instead, and that becomes a HarnessError.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, host, str(port), str(timeout_s)],
            capture_output=True,
            text=True,
            timeout=timeout_s + 20,
        )
    except subprocess.TimeoutExpired:
        raise HarnessError(f"carla: no answer from {host}:{port} within {timeout_s + 20:.0f} s") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise HarnessError(f"carla: {host}:{port}: {lines[-1] if lines else f'probe exited with {done.returncode}'}")
    return done.stdout.strip()


def plan_route(
    cmap: Any,
    start: Any,
    corners: list[tuple[float, float]],
    *,
    step_m: float = 1.0,
    reach_m: float = 5.0,
    max_steps: int = 20000,
) -> list[tuple[float, float]]:
    """Follow the lanes from `start` through `corners` in order, one waypoint every `step_m`.

    At each fork (`Waypoint.next` returns several lanes) it takes the option nearest the next
    corner; a corner counts as passed within `reach_m`. No lane changes, like CARLA's own
    GlobalRoutePlanner's lane-follow segments. Returns the points driven, CARLA metres.
    """
    wp = cmap.get_waypoint(start)
    route = [(wp.transform.location.x, wp.transform.location.y)]
    k = 0
    for _ in range(max_steps):
        if k >= len(corners):
            break
        cx, cy = corners[k]
        options = wp.next(step_m)
        if not options:
            break

        def gap(w: Any) -> float:
            return math.hypot(w.transform.location.x - cx, w.transform.location.y - cy)

        best = min(options, key=gap)
        x0, y0 = route[-1]
        if k == len(corners) - 1 and gap(best) >= math.hypot(x0 - cx, y0 - cy):
            break  # the destination: stop at the closest point to it
        wp = best
        x, y = wp.transform.location.x, wp.transform.location.y
        route.append((x, y))
        while k < len(corners) - 1 and math.hypot(x - corners[k][0], y - corners[k][1]) <= reach_m:
            k += 1
    return route


def manual_control_window(sandbox: Sandbox, session: "CarlaSession") -> Any:
    """The default `window_factory`: the manual-control window on the sandbox display, with the
    task's route and polygons (T07's bay) on the minimap."""
    from simbridge.adapters.carla._manual import Hud, ManualControlWindow

    task = session.task
    polygons = [
        [(float(x), float(y)) for x, y in p.points_xy_m]
        for p in (task.geometry.polygons if task else [])
        if p.points_xy_m
    ]
    hud = Hud(route_xy_m=list(session.route_xy_m), polygons_xy_m=polygons, title=task.title if task else "")
    return ManualControlWindow(sandbox.display, hud=hud)


def _other_kind(type_id: str) -> str:
    if type_id.startswith("vehicle."):
        return "vehicle"
    if type_id.startswith("walker."):
        return "walker"
    if type_id.startswith(("static.", "traffic.")) or not type_id:
        return "static"
    return "other"


class CarlaSession(SimSession):
    sim_name = "carla"
    signals = SIGNALS

    def __init__(
        self,
        *,
        port: int = DEFAULT_PORT,
        timeout_s: float = 30.0,
        sync_hz: float = 20.0,
        recorder_dir: str | Path | None = None,
        carla_module: Any = None,
        window_factory: Callable[[Sandbox, Any], Any] | None = None,
        threaded: bool = True,
        realtime: bool = True,
    ) -> None:
        self.port = port
        self.timeout_s = timeout_s
        self.sync_hz = sync_hz
        self.recorder_dir = Path(recorder_dir) if recorder_dir else None
        self._carla = carla_module
        self._window_factory = window_factory
        self._threaded = threaded
        self._realtime = realtime
        #: filled by the tick thread and the sensors' callbacks, drained by poll()/events()
        self._samples: Drain[StateSample] = Drain()
        self._events: Drain[SimEvent] = Drain()
        self._actors: list[Any] = []
        self._sensors: list[Any] = []
        self._thread: threading.Thread | None = None
        self._running = False
        self._error: BaseException | None = None
        self._stopped = False
        self._t0 = 0.0
        self._t = 0.0
        self._last: dict[str, float] | None = None
        self._pedestrian: dict[str, Any] | None = None
        self.client: Any = None
        self.world: Any = None
        self.ego: Any = None
        self.window: Any = None
        self.recording_path: Path | None = None
        #: the route the ego is asked to drive, planned on the server's map (CARLA metres)
        self.route_xy_m: list[tuple[float, float]] = []
        self.map_path: Path | None = None
        self.task: TaskSpec | None = None
        self._original_settings: Any = None
        #: control used when there is no window (tests, scripted hosts)
        self.control = {"throttle": 0.0, "steer": 0.0, "brake": 0.0, "hand_brake": False, "reverse": False}

    # ------------------------------------------------------------------ start

    @property
    def _probe(self) -> bool:
        # only the real client package can take the process down (see probe_server)
        return self._carla is None or getattr(self._carla, "__name__", "") == "carla"

    def _module(self) -> Any:
        if self._carla is None:
            try:
                self._carla = importlib.import_module("carla")
            except ImportError:
                raise HarnessError(
                    "carla: the 'carla' client package is not installed (pip install simbridge[carla])"
                ) from None
        return self._carla

    def start(self, task: "TaskSpec", sandbox: Sandbox, *, seed: int | None = None) -> None:
        carla = self._module()
        self.task = task
        scene = dict(task.initial_state.scenario)
        town = scene.get("town")
        if not town:
            raise HarnessError(f"{task.id}: initial_state.scenario.town is not set")
        if self._probe:
            probe_server(sandbox.host_addr, self.port, self.timeout_s)
        try:
            self.client = carla.Client(sandbox.host_addr, self.port)
            self.client.set_timeout(self.timeout_s)
            self.world = self.client.load_world(town)
            self._original_settings = self.world.get_settings()
            settings = self.world.get_settings()
            settings.synchronous_mode = True
            settings.fixed_delta_seconds = 1.0 / float(scene.get("sync_hz", self.sync_hz))
            self.world.apply_settings(settings)
            outdir = self.recorder_dir or Path(sandbox.workdir)
            outdir.mkdir(parents=True, exist_ok=True)
            self.map_path = outdir / f"{town}.xodr"
            self.map_path.write_text(self.world.get_map().to_opendrive(), encoding="utf-8")
            self._spawn_scene(carla, task, scene, seed)
            corners = (task.verifier.params.get("route_xy_m") if task.verifier else None) or []
            if corners:
                self.route_xy_m = plan_route(
                    self.world.get_map(), self.ego.get_location(), [(float(x), float(y)) for x, y in corners]
                )
            self.recording_path = (outdir / f"{task.id}_{int(time.time())}.log").resolve()
            # additional data: kinematics (speed) and bounding boxes (lane-invasion width) for the import
            self.client.start_recorder(str(self.recording_path), True)
            self.world.tick()
            self._t0 = float(self.world.get_snapshot().timestamp.elapsed_seconds)
        except HarnessError:
            self.stop()
            raise
        except RuntimeError as exc:  # the client raises RuntimeError on timeouts and server errors
            self.stop()
            raise HarnessError(f"carla: {exc}") from None
        if self._window_factory is not None:
            self.window = self._window_factory(sandbox, self)
        self._running = True
        if self._threaded:
            self._thread = threading.Thread(target=self._loop, name="carla-tick", daemon=True)
            self._thread.start()

    def _transform(self, carla: Any, spec: dict[str, Any]) -> Any:
        return carla.Transform(
            carla.Location(x=float(spec["x_m"]), y=float(spec["y_m"]), z=float(spec.get("z_m", 0.5))),
            carla.Rotation(pitch=0.0, yaw=float(spec.get("yaw_deg", 0.0)), roll=0.0),
        )

    def _ego_transform(self, carla: Any, task: "TaskSpec", scene: dict[str, Any]) -> Any:
        if "ego_spawn" in scene:
            return self._transform(carla, scene["ego_spawn"])
        points = self.world.get_map().get_spawn_points()
        if not points:
            raise HarnessError(f"{task.id}: the map has no spawn points")
        if "spawn_point_index" in scene:
            i = int(scene["spawn_point_index"])
            if not 0 <= i < len(points):
                raise HarnessError(f"{task.id}: spawn_point_index {i} is outside 0..{len(points) - 1}")
            return points[i]
        lane = task.verifier.params.get("lane_id") if task.verifier else None
        if lane is not None:
            cmap = self.world.get_map()
            for p in points:
                wp = cmap.get_waypoint(p.location)
                if wp is not None and wp.lane_id == int(lane) and not wp.is_junction:
                    return p
            raise HarnessError(f"{task.id}: no spawn point in lane {lane}")
        return points[0]

    def _spawn(
        self, carla: Any, blueprint: str, transform: Any, *, attach_to: Any = None, attrs: dict[str, str] | None = None
    ) -> Any:
        lib = self.world.get_blueprint_library()
        try:
            bp = lib.find(blueprint)
        except (IndexError, RuntimeError):
            raise HarnessError(f"carla: no blueprint {blueprint!r}") from None
        for k, v in (attrs or {}).items():
            if bp.has_attribute(k):
                bp.set_attribute(k, v)
        actor = (
            self.world.try_spawn_actor(bp, transform, attach_to=attach_to)
            if attach_to is not None
            else self.world.try_spawn_actor(bp, transform)
        )
        if actor is None:
            raise HarnessError(f"carla: cannot spawn {blueprint} at {transform} (occupied?)")
        (self._sensors if blueprint.startswith("sensor.") else self._actors).append(actor)
        return actor

    def _spawn_scene(self, carla: Any, task: "TaskSpec", scene: dict[str, Any], seed: int | None) -> None:
        vehicle = (
            (task.vehicle.ids or {}).get("carla", "vehicle.lincoln.mkz_2017")
            if task.vehicle
            else "vehicle.lincoln.mkz_2017"
        )
        self.ego = self._spawn(carla, vehicle, self._ego_transform(carla, task, scene), attrs={"role_name": "hero"})
        for spec in scene.get("parked_cars", []) or []:
            self._spawn(carla, spec["blueprint"], self._transform(carla, spec), attrs={"role_name": "parked"})
        if "parked_van" in scene:
            v = scene["parked_van"]
            self._spawn(carla, v["blueprint"], self._transform(carla, v), attrs={"role_name": "parked"})
        if "pedestrian" in scene:
            p = scene["pedestrian"]
            start = {**p["start"], "z_m": p["start"].get("z_m", 1.0)}
            walker = self._spawn(carla, p["blueprint"], self._transform(carla, start), attrs={"is_invincible": "false"})
            self._pedestrian = {
                "actor": walker,
                "spec": p,
                "started": False,
                "done": False,
                "trigger_m": float(p.get("trigger_distance_m", 25.0)),
            }
        world_t = lambda: self._t  # noqa: E731
        col = self._spawn(carla, "sensor.other.collision", carla.Transform(), attach_to=self.ego)
        col.listen(lambda ev: self._on_collision(ev, world_t()))
        inv = self._spawn(carla, "sensor.other.lane_invasion", carla.Transform(), attach_to=self.ego)
        inv.listen(lambda ev: self._on_invasion(ev, world_t()))

    def _on_collision(self, ev: Any, t: float) -> None:
        other = ev.other_actor
        type_id = getattr(other, "type_id", "") if other is not None else ""
        imp = ev.normal_impulse
        self._events.put(
            SimEvent(
                t,
                "collision",
                {
                    "other_kind": _other_kind(type_id),
                    "other_id": getattr(other, "id", None),
                    "other_type_id": type_id,
                    "impulse": math.sqrt(imp.x**2 + imp.y**2 + imp.z**2),
                },
            )
        )

    def _on_invasion(self, ev: Any, t: float) -> None:
        marks = [str(m.type) for m in ev.crossed_lane_markings]
        self._events.put(SimEvent(t, "lane_invasion", {"markings": marks}))

    # ------------------------------------------------------------------ ticking

    def _loop(self) -> None:
        period = 1.0 / self.sync_hz
        next_t = time.monotonic()
        try:
            while self._running:
                self.step()
                if self._realtime:
                    next_t += period
                    delay = next_t - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                    else:
                        next_t = time.monotonic()
        except BaseException as exc:  # noqa: BLE001 - reported through alive()/poll()
            self._error = exc
            self._running = False

    def step(self, n: int = 1) -> None:
        """Apply the control, tick the world `n` times, record one sample per tick."""
        carla = self._module()
        for _ in range(n):
            last = self._last
            if self.window is not None and last is not None:
                c = self.window.step(
                    1.0 / self.sync_hz,
                    x_m=last["x_m"],
                    y_m=last["y_m"],
                    yaw_deg=last["yaw_deg"],
                    speed_kmh=last["speed_kmh"],
                )
                ctl = {
                    "throttle": c.throttle,
                    "steer": c.steer,
                    "brake": c.brake,
                    "hand_brake": c.hand_brake,
                    "reverse": c.reverse,
                }
            else:
                ctl = dict(self.control)
            self.ego.apply_control(
                carla.VehicleControl(
                    throttle=float(ctl["throttle"]),
                    steer=float(ctl["steer"]),
                    brake=float(ctl["brake"]),
                    hand_brake=bool(ctl["hand_brake"]),
                    reverse=bool(ctl["reverse"]),
                )
            )
            self.world.tick()
            snap = self.world.get_snapshot()
            self._t = float(snap.timestamp.elapsed_seconds) - self._t0
            tr = self.ego.get_transform()
            v = self.ego.get_velocity()
            applied = self.ego.get_control()
            sample = StateSample(
                self._t,
                {
                    "x_m": tr.location.x,
                    "y_m": tr.location.y,
                    "z_m": tr.location.z,
                    "yaw_deg": tr.rotation.yaw,
                    "speed_kmh": 3.6 * math.sqrt(v.x**2 + v.y**2 + v.z**2),
                    "throttle": applied.throttle,
                    "steer": applied.steer,
                    "brake": applied.brake,
                },
            )
            self._samples.put(sample)
            self._last = sample.values
            self._pedestrian_step(carla, tr.location)

    def _pedestrian_step(self, carla: Any, ego_loc: Any) -> None:
        p = self._pedestrian
        if p is None or p["done"]:
            return
        spec = p["spec"]
        cross = spec.get("trigger_point") or {"x_m": spec["start"]["x_m"], "y_m": ego_loc.y}
        if not p["started"]:
            if math.hypot(ego_loc.x - float(cross["x_m"]), ego_loc.y - float(cross["y_m"])) > p["trigger_m"]:
                return
            p["started"] = True
            self._events.put(SimEvent(self._t, "scenario_trigger", {"what": "pedestrian starts crossing"}))
        walker = p["actor"]
        loc = walker.get_location()
        tx, ty = float(spec["crosses_to"]["x_m"]), float(spec["crosses_to"]["y_m"])
        dx, dy = tx - loc.x, ty - loc.y
        dist = math.hypot(dx, dy)
        if dist < 0.5:
            walker.apply_control(carla.WalkerControl(direction=carla.Vector3D(0.0, 0.0, 0.0), speed=0.0))
            p["done"] = True
            return
        walker.apply_control(
            carla.WalkerControl(
                direction=carla.Vector3D(dx / dist, dy / dist, 0.0), speed=float(spec.get("speed_ms", 1.4))
            )
        )

    # ------------------------------------------------------------------ SimSession

    def poll(self) -> list[StateSample]:
        if self._error is not None:
            raise HarnessError(f"carla: ticking failed: {self._error}")
        return self._samples.drain()

    def events(self) -> list[SimEvent]:
        return self._events.drain()

    def sim_time(self) -> float:
        return self._t

    def alive(self) -> bool:
        if self._error is not None or self._stopped:
            return False
        return self._thread.is_alive() if self._thread is not None else self.world is not None

    def lost_reason(self) -> str | None:
        """The tick loop failed (the client timed out or the server went away): a harness fault."""
        if self._error is not None and not self._stopped:
            return f"carla: ticking failed: {self._error}"
        return None

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"frame_rate_hz": self.sync_hz, "flags": ["synchronous"]}
        if self.client is not None:
            try:
                out["sim_version"] = self.client.get_server_version()
            except RuntimeError:
                pass
        return out

    def snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "recording": str(self.recording_path) if self.recording_path else None,
            "map_file": str(self.map_path) if self.map_path else None,
            "ego_id": getattr(self.ego, "id", None),
        }
        if self.route_xy_m:
            out["route_xy_m"] = [list(p) for p in self.route_xy_m]
        out.update(self._scene_record())
        return out

    def _scene_record(self) -> dict[str, Any]:
        """The map and the scenario actors this session spawned (not the ego), where they are,
        as the importer's snapshots start.actors, and the town's traffic-light count where the
        server tells it: what the task's scenario check matches the task against."""
        out: dict[str, Any] = {}
        try:
            out["map"] = str(self.world.get_map().name)  # "Carla/Maps/Town01": the server's, not the task's
        except Exception:  # noqa: BLE001 - no world (not started, or gone)
            pass
        actors = []
        for a in self._actors:
            if a is self.ego:
                continue
            type_id = str(getattr(a, "type_id", ""))
            try:
                loc = a.get_location()
            except Exception:  # noqa: BLE001 - a destroyed actor: listed without a place
                loc = None
            actors.append(
                {
                    "id": getattr(a, "id", None),
                    "kind": "walker" if type_id.startswith("walker.") else "vehicle",
                    "type_id": type_id,
                    "x_m": None if loc is None else float(loc.x),
                    "y_m": None if loc is None else float(loc.y),
                }
            )
        out["actors"] = actors
        try:
            out["traffic_lights"] = len(self.world.get_actors().filter("traffic.traffic_light*"))
        except Exception:  # noqa: BLE001 - a server (or double) that does not list its actors
            pass
        return out

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._running = False
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        for what in (self._stop_recorder, self._destroy, self._restore_settings, self._close_window):
            try:
                what()
            except Exception:  # noqa: BLE001 - cleanup must go on; the server may be gone
                pass

    def _stop_recorder(self) -> None:
        if self.client is not None and self.recording_path is not None:
            self.client.stop_recorder()

    def _destroy(self) -> None:
        for s in self._sensors:
            s.stop()
            s.destroy()
        for a in reversed(self._actors):
            a.destroy()
        self._sensors, self._actors = [], []

    def _restore_settings(self) -> None:
        if self.world is not None and self._original_settings is not None:
            self.world.apply_settings(self._original_settings)

    def _close_window(self) -> None:
        if self.window is not None:
            self.window.close()

    # ------------------------------------------------------------------ import

    def import_recording(self, out: str | Path, *, task_id: str | None = None) -> Path:
        """The server's recording of this episode, as a bundle (after `stop()`)."""
        from simbridge.adapters.carla._import import import_recording

        if self.recording_path is None:
            raise HarnessError("carla: no recording (the session never started)")
        if not self.recording_path.exists():
            raise HarnessError(f"carla: the server's recording {self.recording_path} is not on this machine")
        return import_recording(
            self.recording_path, out, map_path=self.map_path, task_id=task_id or (self.task.id if self.task else "T18")
        )
