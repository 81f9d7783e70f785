"""Host side: the drive process's raw samples -> canonical driving signals and lane events.

Canonical signals (CARLA world frame, as the CARLA importer writes them): `x_m y_m yaw_deg
speed_kmh throttle steer brake`, and from the town's OpenDRIVE file, with the SAME lane code as
the CARLA importer (`simbridge.adapters.kit.opendrive.LaneLocator`):
`lane_id lane_offset_m`, plus `route_progress` along the planned route (fraction of its length
to the farthest route point passed in order within 30 m, as RouteCompletionTest counts).

`lane_invasion` follows the importer's rule (the body crosses its lane's edge outside
junctions: |lane_offset_m| + half the car's width > half the lane width, on the sample where it
starts) and adds `markings`, the OpenDRIVE roadMark type of the edge crossed in CARLA's names
("Broken", "Solid", "SolidSolid", "Curb", ...), as CARLA's lane-invasion sensor reports them.

Off the mapped road (the centre more than `kit.opendrive.OFF_ROAD_BEYOND_EDGE_M` outside the nearest driving
lane's edge) a sample is still a scored sample, never a gap: `lane_id` 0 (no driving lane, which
a lane-keeping verifier counts as another lane) and `lane_offset_m` the offset from that nearest
lane's centre held inside the canonical range (the data-quality check turns values outside it
into gaps, and a long gap would make the agent's own failure unscored).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from simbridge.canonical import RANGES
from simbridge.adapters.kit.opendrive import LaneLocator, RoadMarks, read_opendrive
from simbridge.adapters.drive.world._dynamics import WIDTH_M

#: InRouteTest's off-route distance: a route point is passed only while the ego is this close
ROUTE_NEAR_M = 30.0
#: how far ahead of the last passed route point a sample may jump (1 m points)
ROUTE_LOOKAHEAD = 60


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
        lane_ids, offsets = pos.canonical(RANGES["lane_offset_m"])
        out["lane_id"], out["lane_offset_m"] = float(lane_ids[0]), float(offsets[0])
        if not math.isfinite(out["lane_offset_m"]):
            out.pop("lane_offset_m")
        return out, events
