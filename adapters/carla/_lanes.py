"""Where a vehicle is on the map: nearest driving-lane centre and signed offset from it.

This is what ScenarioRunner's example metric `srunner/metrics/examples/distance_to_lane_center.py`
computes with `Map.get_waypoint(location)` (nearest driving lane centre): the vector from the
waypoint to the vehicle, projected on the waypoint's right vector, its sign taken from
`forward.x * a.y - forward.y * a.x`.

Sign: that metric's comment says "left side is positive", but in CARLA's left-handed frame
(y to the right) its cross product is positive when the vehicle is to the *right* of the lane
centre. The canonical `lane_offset_m` is left positive, so it is the metric's value negated:
`lane_offset_m = -(a . right)`. `scenario_runner_offset_m` returns the metric's own value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simbridge.adapters.carla._opendrive import LaneSamples, OpenDriveMap


@dataclass
class LanePosition:
    """Per query point: the nearest lane-centre sample and the offset from it."""

    lane_id: np.ndarray
    road_id: np.ndarray
    junction_id: np.ndarray
    lane_width_m: np.ndarray
    #: signed distance to the lane centre, metres, left of the direction of travel positive
    lane_offset_m: np.ndarray
    #: distance to the nearest lane-centre sample (large when off the road)
    distance_m: np.ndarray
    lane_yaw_deg: np.ndarray

    @property
    def scenario_runner_offset_m(self) -> np.ndarray:
        """The value distance_to_lane_center.py reports (positive to the right in CARLA)."""
        return -self.lane_offset_m


class LaneLocator:
    def __init__(self, odr: OpenDriveMap, *, step_m: float = 0.25) -> None:
        self.map = odr
        self.samples: LaneSamples = odr.lane_samples(step_m=step_m)
        self._xy = np.column_stack([self.samples.x_m, self.samples.y_m])
        try:
            from scipy.spatial import cKDTree

            self._tree = cKDTree(self._xy)
        except ImportError:  # scipy is optional: fall back to a chunked brute-force search
            self._tree = None

    def _nearest(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = np.column_stack([x, y])
        if self._tree is not None:
            d, i = self._tree.query(q)
            return np.asarray(d), np.asarray(i)
        idx = np.empty(len(q), np.int64)
        dist = np.empty(len(q))
        step = 16  # 16 queries x the map's samples at a time: a few MB
        for lo in range(0, len(q), step):
            blk = q[lo : lo + step]
            d2 = (blk[:, None, 0] - self._xy[None, :, 0]) ** 2 + (blk[:, None, 1] - self._xy[None, :, 1]) ** 2
            k = d2.argmin(1)
            idx[lo : lo + step] = k
            dist[lo : lo + step] = np.sqrt(d2[np.arange(len(blk)), k])
        return dist, idx

    def locate(self, x_m: np.ndarray, y_m: np.ndarray) -> LanePosition:
        """Positions in CARLA's frame (metres) -> lane, road, junction and signed offset."""
        x_m = np.asarray(x_m, dtype=float)
        y_m = np.asarray(y_m, dtype=float)
        s = self.samples
        dist, i = self._nearest(x_m, y_m)
        yaw = np.radians(s.yaw_deg[i])
        ax, ay = x_m - s.x_m[i], y_m - s.y_m[i]
        # CARLA right vector of a yaw (left-handed, y right): (-sin yaw, cos yaw)
        right = -ax * np.sin(yaw) + ay * np.cos(yaw)
        return LanePosition(s.lane[i], s.road[i], s.junction[i], s.width_m[i], -right, dist, s.yaw_deg[i])
