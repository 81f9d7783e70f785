"""T13: drive the route at the speed limit, stop for the pedestrian who steps out from behind
the parked van, then drive on to the route's end.

The T06 route driver (`RouteDriver`: route on the minimap, speed on the HUD, pure pursuit,
a 30 km/h cruise and a stop at the route's end) with one more limit: pedestrians. Each look finds
the walkers' heads in the view (`read_walkers`: the published head colour) and their feet's
ground position through the camera model. A walker standing off the road (further right than
`WATCH_RIGHT_M`, or left of `CLEAR_LEFT_M`) is watched, not braked for, so the car comes up to
the van at the limit as the task asks; a walker between the two (stepping into the car's path
or on it) brakes the car to a stop `STOP_GAP_M` short of it, at up to `STOP_DECEL_MS2`. The car
waits until the walker has crossed past the car's left side (or has not been seen for
`FORGET_S`), then drives on.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from simbridge.adapters.drive.pilots._eyes import read_walkers
from simbridge.adapters.drive.pilots._route import RouteDriver

if TYPE_CHECKING:
    import numpy as np

#: a walker further right than this (m, from the eye) stands beside the road
WATCH_RIGHT_M = 3.8
#: a walker further left than this has crossed the car's path (the car is 1.86 m wide)
CLEAR_LEFT_M = -2.6
#: a walker nearer than this ahead is braked for (m)
WATCH_AHEAD_M = 40.0
#: where the eye stops short of the walker (the bumper is ~2.5 m ahead of the eye)
STOP_GAP_M = 7.0
#: deceleration of the stop (m/s^2; the brake gives 8)
STOP_DECEL_MS2 = 4.5
#: a walker lost from view this long is forgotten (s)
FORGET_S = 2.0


class CrossingDriver(RouteDriver):
    name = "reference"

    def __init__(self) -> None:
        super().__init__(obey_lights=True)
        #: the walker in the car's path: (fwd_m, t seen), dead-reckoned while hidden
        self.blocking: tuple[float, float] | None = None
        self.stops = 0
        self._last_t: float | None = None
        self._last_v = 0.0

    def limit_kmh(self, img: "np.ndarray", speed_kmh: float, t: float) -> float:
        dt = 0.0 if self._last_t is None else max(0.0, t - self._last_t)
        self._last_t = t
        walkers = [w for w in read_walkers(img) if math.isfinite(w.fwd_m) and 0.0 < w.fwd_m < WATCH_AHEAD_M]
        in_path = [w for w in walkers if CLEAR_LEFT_M < w.right_m < WATCH_RIGHT_M]
        if in_path:
            if self.blocking is None:
                self.stops += 1
            self.blocking = (min(w.fwd_m for w in in_path), t)
        elif self.blocking is not None:
            fwd, seen = self.blocking
            crossed = any(w.right_m <= CLEAR_LEFT_M for w in walkers)
            if crossed or t - seen > FORGET_S:
                self.blocking = None
            else:
                self.blocking = (fwd - speed_kmh / 3.6 * dt, seen)
        if self.blocking is None:
            return math.inf
        left = self.blocking[0] - STOP_GAP_M
        return 0.0 if left < 0.5 else 3.6 * math.sqrt(2.0 * STOP_DECEL_MS2 * left)
