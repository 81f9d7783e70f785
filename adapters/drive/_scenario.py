"""A drive episode's setup, read from the same task YAML as CARLA's (`initial_state.scenario`).

Read keys: `town`; the ego's spawn (`drive.ego_spawn`, else `ego_spawn`; x_m y_m yaw_deg in
CARLA world metres); `drive.destination` (the route is planned by SUMO's router from the spawn
to it) or a given route (`verifier.params.route_xy_m` for tasks whose verifier states it as
the route, e.g. T13); `drive.traffic_vehicles` (background traffic, seeded); `parked_cars`
and `parked_van` (static vehicles); `pedestrian` (a scripted walker: starts when the ego comes
within `trigger_distance_m` of its crossing point, walks at `speed_ms`); the task's
`geometry.polygons` as marks painted on the road (T07's bay).

It travels to the sandbox process as JSON (`to_json`/`from_json`): a VM guest does not see the
host's task files.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simbridge import TaskSpec

#: CARLA blueprint -> (length, width, height) m of its bounding box (CARLA 0.9.15 blueprints)
BLUEPRINT_SIZE_M = {
    "vehicle.audi.a2": (3.71, 1.79, 1.55),
    "vehicle.volkswagen.t2": (4.49, 2.07, 2.04),
    "vehicle.lincoln.mkz_2017": (4.90, 2.12, 1.51),
}
DEFAULT_SIZE_M = (4.5, 1.9, 1.5)


@dataclass
class StaticCar:
    blueprint: str
    x_m: float
    y_m: float
    yaw_deg: float


@dataclass
class Walker:
    start_xy_m: tuple[float, float]
    end_xy_m: tuple[float, float]
    speed_ms: float
    trigger_xy_m: tuple[float, float]
    trigger_distance_m: float
    blueprint: str = "walker.pedestrian.0001"


@dataclass
class DriveScenario:
    task_id: str
    town: str
    ego_x_m: float
    ego_y_m: float
    ego_yaw_deg: float
    seed: int = 0
    destination_xy_m: tuple[float, float] | None = None
    #: a route the task states (used as is when there is no destination to plan to)
    route_xy_m: list[tuple[float, float]] = field(default_factory=list)
    traffic_vehicles: int = 0
    parked: list[StaticCar] = field(default_factory=list)
    walker: Walker | None = None
    road_marks_xy_m: list[list[tuple[float, float]]] = field(default_factory=list)
    #: what the task asks for that this simulator does not do (episode info)
    unsupported: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "DriveScenario":
        d = json.loads(text)
        d["parked"] = [StaticCar(**p) for p in d.get("parked", [])]
        w = d.get("walker")
        if w is not None:
            d["walker"] = Walker(
                (float(w["start_xy_m"][0]), float(w["start_xy_m"][1])),
                (float(w["end_xy_m"][0]), float(w["end_xy_m"][1])),
                float(w["speed_ms"]),
                (float(w["trigger_xy_m"][0]), float(w["trigger_xy_m"][1])),
                float(w["trigger_distance_m"]),
                str(w.get("blueprint", "walker.pedestrian.0001")),
            )
        if d.get("destination_xy_m") is not None:
            d["destination_xy_m"] = tuple(d["destination_xy_m"])
        d["route_xy_m"] = [tuple(p) for p in d.get("route_xy_m", [])]
        d["road_marks_xy_m"] = [[tuple(p) for p in poly] for poly in d.get("road_marks_xy_m", [])]
        return cls(**d)


def _xy(d: Any, where: str) -> tuple[float, float]:
    if not isinstance(d, dict) or "x_m" not in d or "y_m" not in d:
        raise ValueError(f"{where}: needs x_m and y_m")
    return float(d["x_m"]), float(d["y_m"])


def _trigger(text: Any, default_xy: tuple[float, float]) -> tuple[tuple[float, float], float]:
    """'ego within 25 m of the crossing point (205.0, 133.41)' -> ((205.0, 133.41), 25.0)."""
    s = str(text or "")
    dist = re.search(r"within\s+([0-9.]+)\s*m", s)
    pt = re.search(r"\(\s*([-0-9.]+)\s*,\s*([-0-9.]+)\s*\)", s)
    xy = (float(pt.group(1)), float(pt.group(2))) if pt else default_xy
    return xy, float(dist.group(1)) if dist else 25.0


def from_task(task: "TaskSpec", seed: int | None = None) -> DriveScenario:
    """The task's drive setup; ValueError naming the key when something needed is missing."""
    sc: dict[str, Any] = dict(task.initial_state.scenario or {})
    drive: dict[str, Any] = dict(sc.get("drive") or {})
    town = str(drive.get("town") or sc.get("town") or "")
    if not town:
        raise ValueError("initial_state.scenario.town is missing")
    spawn = drive.get("ego_spawn") or sc.get("ego_spawn")
    if spawn is None:
        raise ValueError("initial_state.scenario.drive.ego_spawn (or scenario.ego_spawn) is missing")
    x, y = _xy(spawn, "initial_state.scenario.ego_spawn")
    out = DriveScenario(task.id, town, x, y, float(spawn.get("yaw_deg", 0.0)), seed=int(seed or 0))
    if "destination" in drive:
        out.destination_xy_m = _xy(drive["destination"], "initial_state.scenario.drive.destination")
    elif task.verifier.params.get("route_xy_m"):
        out.route_xy_m = [(float(p[0]), float(p[1])) for p in task.verifier.params["route_xy_m"]]
    out.traffic_vehicles = int(drive.get("traffic_vehicles", 0))
    for i, car in enumerate([*(sc.get("parked_cars") or []), *([sc["parked_van"]] if sc.get("parked_van") else [])]):
        cx, cy = _xy(car, f"initial_state.scenario parked vehicle {i}")
        out.parked.append(StaticCar(str(car.get("blueprint", "")), cx, cy, float(car.get("yaw_deg", 0.0))))
    ped = sc.get("pedestrian")
    if ped:
        start = _xy(ped.get("start"), "initial_state.scenario.pedestrian.start")
        end = _xy(ped.get("crosses_to"), "initial_state.scenario.pedestrian.crosses_to")
        default = tuple(task.verifier.params.get("pedestrian_xy_m") or (start[0], y))
        txy, tdist = _trigger(ped.get("trigger"), (float(default[0]), float(default[1])))
        if "trigger_distance_m" in task.verifier.params:
            tdist = float(task.verifier.params["trigger_distance_m"])
        out.walker = Walker(
            start, end, float(ped.get("speed_ms", 2.0)), txy, tdist, str(ped.get("blueprint", out_bp(ped)))
        )
    for poly in task.geometry.polygons:
        if poly.points_xy_m:
            out.road_marks_xy_m.append([(float(p[0]), float(p[1])) for p in poly.points_xy_m])
    return out


def out_bp(ped: dict[str, Any]) -> str:
    return str(ped.get("blueprint") or "walker.pedestrian.0001")


def size_of(blueprint: str) -> tuple[float, float, float]:
    return BLUEPRINT_SIZE_M.get(blueprint, DEFAULT_SIZE_M)
