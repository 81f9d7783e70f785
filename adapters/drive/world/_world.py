"""The world of the embedded driving simulator: SUMO (libsumo, in process) stepped in lockstep
with the ego car's dynamics, plus the task's scripted parts.

Each `step(controls)` (one 50 ms frame): the ego's single-track model advances, the ego (a SUMO
vehicle, id "ego") is moved to its new pose with `vehicle.moveToXY(..., keepRoute=2)` so SUMO's
traffic sees it and reacts (as CARLA's SUMO co-simulation moves its ego), SUMO advances one
step (traffic-light programs, background traffic), the scripted walker moves, and the frame's
events are found:

- `collision`: the ego's footprint overlaps another actor's (oriented boxes), once per contact
  (a new event only after the boxes separated); `other_kind` vehicle / walker / static,
  `other_id` a stable integer per actor, `other_type_id` its blueprint or SUMO type;
- `red_light`: the ego's centre crosses the stop line (the end) of a lane a traffic light
  controls while that lane's head shows red; one event per crossing. As in CARLA (one state
  per traffic light governing an approach), each controlled lane has ONE head, showing the
  state of the lane's through connection (else its first): what the driver sees is what is
  judged, whichever connection the ego then takes;
- `scenario_trigger` (`what: pedestrian_crossing`): the walker starts.

Positions are SUMO's in the simulation and CARLA world metres everywhere else (`carla_xy`).
SUMO vehicle positions are front-bumper positions; the boxes here are centred.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simbridge.adapters.drive.world._dynamics import LENGTH_M, WIDTH_M, EgoCar
from simbridge.adapters.drive.world._net import net_offset, net_path
from simbridge.adapters.drive._scenario import DriveScenario, size_of
from simbridge.adapters.drive.world._scene import Actor, EgoControls, Frame, LightHead, LightState, carla_xy, sumo_xy

STEP_S = 0.05
EGO_ID = "ego"
EGO_TYPE = "simbridge_mkz"
EGO_HEIGHT_M = 1.48
WALKER_SIZE_M = (0.5, 0.5, 1.8)
#: lateral slack beyond half the lane width within which a stop-line crossing counts
STOP_LINE_SLACK_M = 0.5
_RED = {"r", "R", "u"}
_STATE = {"G": "green", "g": "green", "y": "yellow", "Y": "yellow", "o": "off", "O": "off", "s": "green"}


def light_state(ch: str) -> LightState:
    """SUMO link-state character -> the lamp shown (red-yellow 'u' counts as red, as in CARLA)."""
    if ch in _RED:
        return "red"
    return _STATE.get(ch, "off")  # type: ignore[return-value]


def box_corners(x: float, y: float, yaw_deg: float, length_m: float, width_m: float) -> np.ndarray:
    """The 4 corners of a centred box (CARLA metres), counter-clockwise in the yaw frame."""
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    hl, hw = length_m / 2.0, width_m / 2.0
    local = ((hl, hw), (hl, -hw), (-hl, -hw), (-hl, hw))
    return np.array([(x + c * a - s * b, y + s * a + c * b) for a, b in local])


def boxes_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test of two convex quadrilaterals."""
    for poly in (a, b):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True


@dataclass
class _Approach:
    """One traffic-light-controlled incoming lane: its stop line and its links."""

    tls: str
    tls_index: int
    lane: str
    end_xy: tuple[float, float]  # SUMO metres
    dir_xy: tuple[float, float]
    half_width_m: float
    #: (link index, via-lane point ~5 m into the junction, SUMO metres)
    links: list[tuple[int, tuple[float, float]]]
    #: the link index whose state the lane's head shows and the red_light check judges
    shown_index: int = -1
    shown_is_through: bool = False


def _point_along(shape: list[tuple[float, float]], dist_m: float) -> tuple[float, float]:
    left = dist_m
    for (x0, y0), (x1, y1) in zip(shape, shape[1:]):
        seg = math.hypot(x1 - x0, y1 - y0)
        if seg >= left and seg > 0:
            f = left / seg
            return x0 + f * (x1 - x0), y0 + f * (y1 - y0)
        left -= seg
    return shape[-1]


def resample(xy: list[tuple[float, float]], step_m: float = 1.0) -> list[tuple[float, float]]:
    """A polyline at `step_m` spacing (first and last points kept)."""
    pts = np.asarray(xy, dtype=float)
    if len(pts) < 2:
        return [tuple(p) for p in pts.tolist()]
    d = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
    keep = np.concatenate([[True], np.diff(d) > 1e-6])
    pts, d = pts[keep], d[keep]
    s = np.append(np.arange(0.0, d[-1], step_m), d[-1])
    return list(zip(np.interp(s, d, pts[:, 0]).round(3).tolist(), np.interp(s, d, pts[:, 1]).round(3).tolist()))


class World:
    """SUMO + the ego + the scenario, stepped one frame at a time (`STEP_S`)."""

    def __init__(self, scenario: DriveScenario, *, net: Path | None = None) -> None:
        import libsumo

        self.ls = libsumo
        self.sc = scenario
        self.net = net or net_path(scenario.town)
        self.offset = net_offset(self.net)
        self.t = 0.0
        self.rng = random.Random(f"{scenario.task_id}:{scenario.seed}")
        if libsumo.isLoaded():
            libsumo.close()
        libsumo.start(
            [
                "sumo",
                "-n",
                str(self.net),
                "--step-length",
                str(STEP_S),
                "--no-step-log",
                "true",
                "--no-warnings",
                "true",
                "--collision.action",
                "none",
                "--time-to-teleport",
                "-1",
                "--seed",
                str(scenario.seed),
            ]
        )
        self.ego = EgoCar(scenario.ego_x_m, scenario.ego_y_m, scenario.ego_yaw_deg)
        self._ids: dict[str, int] = {}
        self._touching: set[str] = set()
        self._tls_ids = sorted(libsumo.trafficlight.getIDList())
        self._approaches = self._find_approaches()
        self._tls_state = {t: libsumo.trafficlight.getRedYellowGreenState(t) for t in self._tls_ids}
        self._shown_state = self._tls_state
        self._add_ego()
        self.route_edges: list[str] = []
        self.route_xy_m = self._plan_route()
        self._trips = 0
        for _ in range(scenario.traffic_vehicles):
            self._add_trip(initial=True)
        self.statics = [
            (f"parked{i}", c, size_of(c.blueprint)) for i, c in enumerate(scenario.parked)
        ]  # (actor id, car, size)
        for aid, _, _ in self.statics:
            self._id(aid)
        self.walker_xy: tuple[float, float] | None = scenario.walker.start_xy_m if scenario.walker else None
        self.walker_started_t: float | None = None
        self.collisions: list[tuple[float, str]] = []
        self._prev_xy = (scenario.ego_x_m, scenario.ego_y_m)

    # ------------------------------------------------------------------ setup
    def _id(self, name: str) -> int:
        if name not in self._ids:
            self._ids[name] = 1 + len(self._ids)
        return self._ids[name]

    def _find_approaches(self) -> list[_Approach]:
        ls = self.ls
        out: dict[str, _Approach] = {}
        for ti, tls in enumerate(self._tls_ids):
            for idx, links in enumerate(ls.trafficlight.getControlledLinks(tls)):
                for in_lane, _out_lane, via in links:
                    if not in_lane:
                        continue
                    ap = out.get(in_lane)
                    if ap is None:
                        shape = ls.lane.getShape(in_lane)
                        (x0, y0), (x1, y1) = shape[-2], shape[-1]
                        n = math.hypot(x1 - x0, y1 - y0) or 1.0
                        ap = _Approach(
                            tls,
                            ti,
                            in_lane,
                            (x1, y1),
                            ((x1 - x0) / n, (y1 - y0) / n),
                            ls.lane.getWidth(in_lane) / 2.0,
                            [],
                        )
                        out[in_lane] = ap
                    via_shape = ls.lane.getShape(via) if via else ls.lane.getShape(_out_lane)
                    ap.links.append((idx, _point_along(list(via_shape), 5.0)))
                    if ap.shown_index < 0:
                        ap.shown_index = idx
                    through = {(lk[0], lk[4]) for lk in ls.lane.getLinks(in_lane) if lk[6] == "s"}
                    if (_out_lane, via) in through and not ap.shown_is_through:
                        ap.shown_index, ap.shown_is_through = idx, True
        return list(out.values())

    def _add_ego(self) -> None:
        ls = self.ls
        ls.vehicletype.copy("DEFAULT_VEHTYPE", EGO_TYPE)
        ls.vehicletype.setLength(EGO_TYPE, LENGTH_M)
        ls.vehicletype.setWidth(EGO_TYPE, WIDTH_M)
        ls.vehicletype.setHeight(EGO_TYPE, EGO_HEIGHT_M)
        sx, sy = self._ego_front_sumo()
        edge, pos, lane = ls.simulation.convertRoad(sx, sy)
        self.start_edge = edge
        ls.route.add("ego_route", [edge])
        ls.vehicle.add(EGO_ID, "ego_route", typeID=EGO_TYPE, depart="now", departPos="0", departLane=str(lane))
        self._move_ego()
        # one SUMO step inserts the ego at its spawn: moving a vehicle that is not yet in the
        # network far from its route crashes libsumo (segfault, SUMO 1.28)
        ls.simulationStep()

    def _ego_front_sumo(self) -> tuple[float, float]:
        s = self.ego.state
        fx = s.x_m + math.cos(s.yaw_rad) * LENGTH_M / 2.0
        fy = s.y_m + math.sin(s.yaw_rad) * LENGTH_M / 2.0
        return sumo_xy(fx, fy, self.offset)

    def _move_ego(self) -> None:
        sx, sy = self._ego_front_sumo()
        angle = (90.0 + self.ego.state.yaw_deg) % 360.0  # SUMO: 0 north, clockwise
        self.ls.vehicle.moveToXY(EGO_ID, "", -1, sx, sy, angle=angle, keepRoute=2)

    def _plan_route(self) -> list[tuple[float, float]]:
        """The route (CARLA metres, 1 m): SUMO's router from the spawn to the destination."""
        sc = self.sc
        if sc.destination_xy_m is None:
            return resample(sc.route_xy_m) if len(sc.route_xy_m) >= 2 else []
        ls = self.ls
        dx, dy = sumo_xy(*sc.destination_xy_m, self.offset)
        dest_edge, _, _ = ls.simulation.convertRoad(dx, dy)
        stage = ls.simulation.findRoute(self.start_edge, dest_edge)
        if not stage.edges:
            raise ValueError(f"no route on {sc.town} from edge {self.start_edge} to edge {dest_edge}")
        self.route_edges = list(stage.edges)
        pts: list[tuple[float, float]] = []
        edges = self.route_edges
        for i, edge in enumerate(edges):
            lanes = [f"{edge}_{k}" for k in range(ls.edge.getLaneNumber(edge))]
            lane, via = lanes[0], ""
            if i + 1 < len(edges):
                for cand in lanes:
                    hit = [lk for lk in ls.lane.getLinks(cand) if lk[0].rsplit("_", 1)[0] == edges[i + 1]]
                    if hit:
                        lane, via = cand, hit[0][4]
                        break
            pts += list(ls.lane.getShape(lane))
            if via:
                pts += list(ls.lane.getShape(via))
        xy = np.array([carla_xy(x, y, self.offset) for x, y in pts])
        d0 = np.hypot(xy[:, 0] - sc.ego_x_m, xy[:, 1] - sc.ego_y_m)
        i0 = int(d0.argmin())
        rest = xy[i0:]
        d1 = np.hypot(rest[:, 0] - sc.destination_xy_m[0], rest[:, 1] - sc.destination_xy_m[1])
        i1 = int(d1.argmin())
        seg = [(sc.ego_x_m, sc.ego_y_m), *[(float(p[0]), float(p[1])) for p in rest[1 : i1 + 1]]]
        return resample(seg)

    def _add_trip(self, *, initial: bool = False) -> None:
        """One background vehicle on a random route away from the ego (seeded)."""
        ls = self.ls
        edges = [e for e in ls.edge.getIDList() if not e.startswith(":")]
        ex, ey = sumo_xy(self.ego.state.x_m, self.ego.state.y_m, self.offset)
        for _ in range(50):
            a, b = self.rng.choice(edges), self.rng.choice(edges)
            if a == b or a == self.start_edge:
                continue
            sx, sy = ls.lane.getShape(f"{a}_0")[0]
            if math.hypot(sx - ex, sy - ey) < 40.0:
                continue
            stage = ls.simulation.findRoute(a, b)
            if len(stage.edges) < 2:
                continue
            self._trips += 1
            vid, rid = f"traffic{self._trips}", f"trip{self._trips}"
            ls.route.add(rid, list(stage.edges))
            ls.vehicle.add(vid, rid, depart="now", departPos="random" if initial else "base")
            self._id(vid)
            return

    # ------------------------------------------------------------------ stepping
    def step(self, controls: EgoControls) -> list[dict[str, Any]]:
        """One frame: ego dynamics, SUMO, walker, events (dicts: t, kind, data)."""
        ls = self.ls
        prev = (self.ego.state.x_m, self.ego.state.y_m)
        self._shown_state = self._tls_state  # the heads the driver saw when choosing this frame's controls
        self.ego.step(controls, STEP_S)
        self._move_ego()
        ls.simulationStep()
        self.t = round(self.t + STEP_S, 6)
        self._tls_state = {t: ls.trafficlight.getRedYellowGreenState(t) for t in self._tls_ids}
        events: list[dict[str, Any]] = []
        if self.sc.traffic_vehicles and round(self.t / STEP_S) % 20 == 0:
            # vehicles that arrived are replaced, so the town keeps its few cars (the ego counts 1)
            for _ in range(self.sc.traffic_vehicles - (ls.simulation.getMinExpectedNumber() - 1)):
                self._add_trip()
        events += self._walker_step()
        events += self._red_lights(prev)
        events += self._collisions()
        self._prev_xy = prev
        return events

    def _walker_step(self) -> list[dict[str, Any]]:
        w = self.sc.walker
        if w is None or self.walker_xy is None:
            return []
        out = []
        s = self.ego.state
        if self.walker_started_t is None:
            if math.hypot(s.x_m - w.trigger_xy_m[0], s.y_m - w.trigger_xy_m[1]) <= w.trigger_distance_m:
                self.walker_started_t = self.t
                out.append({"t": self.t, "kind": "scenario_trigger", "data": {"what": "pedestrian_crossing"}})
            return out
        ex, ey = w.end_xy_m
        x, y = self.walker_xy
        d = math.hypot(ex - x, ey - y)
        step = w.speed_ms * STEP_S
        self.walker_xy = (ex, ey) if d <= step else (x + (ex - x) / d * step, y + (ey - y) / d * step)
        return out

    def _red_lights(self, prev: tuple[float, float]) -> list[dict[str, Any]]:
        s = self.ego.state
        p0 = sumo_xy(prev[0], prev[1], self.offset)
        p1 = sumo_xy(s.x_m, s.y_m, self.offset)
        hx, hy = math.cos(s.yaw_rad), -math.sin(s.yaw_rad)  # heading in SUMO's frame
        out = []
        for ap in self._approaches:
            dx, dy = ap.dir_xy
            a0 = (p0[0] - ap.end_xy[0]) * dx + (p0[1] - ap.end_xy[1]) * dy
            a1 = (p1[0] - ap.end_xy[0]) * dx + (p1[1] - ap.end_xy[1]) * dy
            if not (a0 < 0.0 <= a1):
                continue
            lat = abs(-(p1[0] - ap.end_xy[0]) * dy + (p1[1] - ap.end_xy[1]) * dx)
            if lat > ap.half_width_m + STOP_LINE_SLACK_M or hx * dx + hy * dy < 0.5:
                continue
            # judged against the state the lane's head showed on the frame before the crossing
            # (what the driver saw), not the connection the ego happens to take
            state = self._shown_state[ap.tls][ap.shown_index]
            if state in _RED:
                out.append(
                    {
                        "t": self.t,
                        "kind": "red_light",
                        "data": {
                            "light_id": ap.tls_index,
                            "x_m": round(s.x_m, 3),
                            "y_m": round(s.y_m, 3),
                            "matched_by": "sumo_link",
                            "sumo_tls": ap.tls,
                            "sumo_lane": ap.lane,
                            "link_state": state,
                        },
                    }
                )
        return out

    def _others(self) -> list[tuple[str, str, str, float, float, float, float, float, float]]:
        """(actor id, kind, type id, x, y, yaw, length, width, height) of every other actor."""
        ls = self.ls
        out = []
        for vid in ls.vehicle.getIDList():
            if vid == EGO_ID:
                continue
            px, py = ls.vehicle.getPosition(vid)
            fx, fy = carla_xy(px, py, self.offset)
            yaw = ls.vehicle.getAngle(vid) - 90.0
            length = ls.vehicle.getLength(vid)
            cx = fx - math.cos(math.radians(yaw)) * length / 2.0
            cy = fy - math.sin(math.radians(yaw)) * length / 2.0
            out.append((vid, "vehicle", ls.vehicle.getTypeID(vid), cx, cy, yaw, length, ls.vehicle.getWidth(vid), 1.5))
        for aid, car, (ln, wd, ht) in self.statics:
            out.append((aid, "static_vehicle", car.blueprint, car.x_m, car.y_m, car.yaw_deg, ln, wd, ht))
        if self.walker_xy is not None and self.sc.walker is not None:
            wl, ww, wh = WALKER_SIZE_M
            out.append(("walker", "walker", self.sc.walker.blueprint, *self.walker_xy, 0.0, wl, ww, wh))
        return out

    def _collisions(self) -> list[dict[str, Any]]:
        s = self.ego.state
        ego_box = box_corners(s.x_m, s.y_m, s.yaw_deg, LENGTH_M, WIDTH_M)
        touching = set()
        out = []
        for aid, kind, type_id, x, y, yaw, ln, wd, _ in self._others():
            if math.hypot(x - s.x_m, y - s.y_m) > 10.0:
                continue
            if not boxes_overlap(ego_box, box_corners(x, y, yaw, ln, wd)):
                continue
            touching.add(aid)
            if aid in self._touching:
                continue
            other_kind = "walker" if kind == "walker" else "vehicle"
            out.append(
                {
                    "t": self.t,
                    "kind": "collision",
                    "data": {
                        "other_kind": other_kind,
                        "other_id": self._id(aid),
                        "other_type_id": type_id,
                        "x_m": round(s.x_m, 3),
                        "y_m": round(s.y_m, 3),
                    },
                }
            )
            self.collisions.append((self.t, f"Collision with {type_id}"))
        self._touching = touching
        return out

    # ------------------------------------------------------------------ output
    def lights(self) -> tuple[LightHead, ...]:
        heads = []
        for ap in self._approaches:
            # the head stands beside the stop line, right of the approach, facing the drivers
            ex = ap.end_xy[0] + ap.dir_xy[1] * (ap.half_width_m + 0.8)
            ey = ap.end_xy[1] - ap.dir_xy[0] * (ap.half_width_m + 0.8)
            x, y = carla_xy(ex, ey, self.offset)
            yaw = -math.degrees(math.atan2(ap.dir_xy[1], ap.dir_xy[0])) + 180.0
            shown: LightState = light_state(self._tls_state[ap.tls][ap.shown_index])
            heads.append(LightHead(f"{ap.tls}:{ap.lane}", x, y, (yaw + 180.0) % 360.0 - 180.0, shown))
        return tuple(heads)

    def frame(self, notices: tuple[str, ...] = ()) -> Frame:
        s = self.ego.state
        actors = []
        for aid, kind, _type_id, x, y, yaw, ln, wd, ht in self._others():
            k = "pedestrian" if kind == "walker" else "vehicle"
            actors.append(Actor(aid, k, x, y, yaw, ln, wd, ht))  # type: ignore[arg-type]
        return Frame(
            sim_time_s=self.t,
            town=self.sc.town,
            ego_x_m=s.x_m,
            ego_y_m=s.y_m,
            ego_yaw_deg=s.yaw_deg,
            speed_kmh=s.speed_kmh,
            controls=self.ego.controls,
            actors=tuple(actors),
            lights=self.lights(),
            route_xy_m=tuple(self.route_xy_m),
            road_marks_xy_m=tuple(tuple(p) for p in self.sc.road_marks_xy_m),
            collisions=tuple(self.collisions[-5:]),
            notices=notices,
        )

    def sample(self) -> dict[str, Any]:
        """The raw true state streamed to the host (CARLA frame, SI + km/h)."""
        s, c = self.ego.state, self.ego.controls
        return {
            "t": self.t,
            "x": round(s.x_m, 4),
            "y": round(s.y_m, 4),
            "yaw": round(s.yaw_deg, 4),
            "speed_kmh": round(s.speed_kmh, 4),
            "throttle": c.throttle,
            "steer": c.steer,
            "brake": c.brake,
            "reverse": int(c.reverse),
            "hand_brake": int(c.hand_brake),
            "gear": -1 if c.reverse else c.gear,
        }

    def close(self) -> None:
        try:
            self.ls.close()
        except Exception:  # libsumo raises its own TraCIException on a second close
            pass
