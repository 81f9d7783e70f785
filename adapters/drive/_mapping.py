"""Host side: the drive process's raw samples -> canonical driving signals and lane events.

Canonical signals (CARLA world frame, as the CARLA importer writes them): `x_m y_m yaw_deg
speed_kmh throttle steer brake`, and from the town's OpenDRIVE file, with the SAME lane code as
the CARLA importer (`simbridge.adapters.carla._lanes.LaneLocator` over `_opendrive`):
`lane_id lane_offset_m`, plus `route_progress` along the planned route (fraction of its length
to the farthest route point passed in order within 30 m, as RouteCompletionTest counts).

`lane_invasion` follows the importer's rule (the body crosses its lane's edge outside
junctions: |lane_offset_m| + half the car's width > half the lane width, on the sample where it
starts) and adds `markings`, the OpenDRIVE roadMark type of the edge crossed in CARLA's names
("Broken", "Solid", "SolidSolid", "Curb", ...), as CARLA's lane-invasion sensor reports them.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from simbridge.adapters.carla._lanes import LaneLocator
from simbridge.adapters.carla._opendrive import read_opendrive
from simbridge.adapters.drive._dynamics import WIDTH_M

#: InRouteTest's off-route distance: a route point is passed only while the ego is this close
ROUTE_NEAR_M = 30.0
#: how far ahead of the last passed route point a sample may jump (1 m points)
ROUTE_LOOKAHEAD = 60


def carla_marking(odr_type: str) -> str:
    """OpenDRIVE roadMark type -> CARLA's LaneMarkingType name ("solid solid" -> "SolidSolid")."""
    t = odr_type.strip().lower()
    if t in ("", "none"):
        return "NONE"
    return "".join(w.capitalize() for w in t.split())


class RoadMarks:
    """Each lane's outer-border roadMark types along s: (road, lane) -> sorted [(s, type)]."""

    def __init__(self, xodr: Path) -> None:
        self.marks: dict[tuple[int, int], list[tuple[float, str]]] = {}
        root = ET.parse(xodr).getroot()
        for road in root.findall("road"):
            rid = int(road.get("id", "0"))
            for sec in road.findall("lanes/laneSection"):
                s0 = float(sec.get("s", "0"))
                for lane in sec.iter("lane"):
                    lid = int(lane.get("id", "0"))
                    for rm in lane.findall("roadMark"):
                        s = s0 + float(rm.get("sOffset", "0"))
                        self.marks.setdefault((rid, lid), []).append((s, rm.get("type", "none")))
        for v in self.marks.values():
            v.sort()

    def at(self, road: int, lane: int, s: float) -> str:
        seq = self.marks.get((road, lane))
        if not seq:
            return "NONE"
        i = max(0, bisect_right([m[0] for m in seq], s + 1e-6) - 1)
        return carla_marking(seq[i][1])

    def crossed(self, road: int, lane: int, s: float, side: str) -> str:
        """The marking on the `side` (of the direction of travel) border of a lane: the left
        border is the outer border of the next lane towards the centre line, the right one the
        lane's own outer border."""
        if side == "left":
            inner = lane - (1 if lane > 0 else -1)
            return self.at(road, inner, s)
        return self.at(road, lane, s)


@lru_cache(maxsize=4)
def _map_tools(xodr: str) -> tuple[LaneLocator, RoadMarks, Any]:
    from scipy.spatial import cKDTree

    loc = LaneLocator(read_opendrive(xodr))
    tree = cKDTree(np.column_stack([loc.samples.x_m, loc.samples.y_m]))
    return loc, RoadMarks(Path(xodr)), tree


class CanonicalMapper:
    """Feed it raw samples in time order; it returns canonical values and lane events."""

    def __init__(self, xodr: Path, route_xy_m: list[tuple[float, float]] | None = None) -> None:
        self.loc, self.marks, self._tree = _map_tools(str(xodr))
        self.route = np.asarray(route_xy_m or [], dtype=float).reshape(-1, 2)
        if len(self.route) >= 2:
            seg = np.hypot(*np.diff(self.route, axis=0).T)
            self._route_s = np.concatenate([[0.0], np.cumsum(seg)])
        else:
            self._route_s = np.zeros(len(self.route))
        self._passed = 0
        self._outside = False

    def route_progress(self, x: float, y: float) -> float:
        n = len(self.route)
        if n < 2 or self._route_s[-1] <= 0:
            return float("nan")
        lo, hi = self._passed, min(n, self._passed + ROUTE_LOOKAHEAD)
        d = np.hypot(self.route[lo:hi, 0] - x, self.route[lo:hi, 1] - y)
        k = int(d.argmin())
        if d[k] <= ROUTE_NEAR_M:
            self._passed = max(self._passed, lo + k)
        return float(self._route_s[self._passed] / self._route_s[-1])

    def map(self, t: float, raw: dict[str, Any]) -> tuple[dict[str, float], list[dict[str, Any]]]:
        x, y = float(raw["x"]), float(raw["y"])
        pos = self.loc.locate(np.array([x]), np.array([y]))
        out = {
            "x_m": x,
            "y_m": y,
            "yaw_deg": float(raw["yaw"]),
            "speed_kmh": float(raw["speed_kmh"]),
            "throttle": float(raw.get("throttle", 0.0)),
            "steer": float(raw.get("steer", 0.0)),
            "brake": float(raw.get("brake", 0.0)),
            "lane_id": float(pos.lane_id[0]),
            "lane_offset_m": float(pos.lane_offset_m[0]),
        }
        if len(self.route) >= 2:
            out["route_progress"] = self.route_progress(x, y)
        events: list[dict[str, Any]] = []
        half = WIDTH_M / 2.0
        offset, width = float(pos.lane_offset_m[0]), float(pos.lane_width_m[0])
        outside = abs(offset) + half > width / 2.0 and int(pos.junction_id[0]) == -1
        if outside and not self._outside:
            side = "left" if offset > 0 else "right"
            _, i = self._tree.query([x, y])
            s_m = float(self.loc.samples.s_m[int(i)])
            road, lane = int(pos.road_id[0]), int(pos.lane_id[0])
            events.append(
                {
                    "t": t,
                    "kind": "lane_invasion",
                    "data": {
                        "markings": [self.marks.crossed(road, lane, s_m, side)],
                        "side": side,
                        "lane_id": lane,
                        "road_id": road,
                        "lane_offset_m": round(offset, 3),
                        "lane_width_m": round(width, 3),
                        "half_width_m": half,
                    },
                }
            )
        self._outside = outside
        if not math.isfinite(out["lane_offset_m"]):
            out.pop("lane_offset_m")
        return out, events
