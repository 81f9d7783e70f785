"""T06: drive the route shown on the minimap to its end, stopping at red lights, without
collisions, within five minutes.

Each look reads the speed (HUD digits), the route on the heading-up minimap (the ego sits at a
fixed pixel, so the route's crossing of a circle round it is a point in the car's frame), the
lit lamps in the view (their distance from the row where the pole meets the road, through the
published camera model) and anything standing in the lane straight ahead. Steering is pure
pursuit of the route a look-ahead distance away; speed is a cruise (30 km/h, 15 in turns)
capped by stopping profiles: before the car's own red or yellow light (the head standing just
right of the route), behind a vehicle ahead, and at the route's end.

`obey_lights=False` drives through lights as if they were green (a test's red-light runner).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.drive.pilots._eyes import (
    Lamp,
    RouteView,
    obstacle_distance_m,
    read_lamps,
    read_speed_kmh,
)
from simbridge.adapters.drive.pilots._hands import (
    IDLE_WAIT_S,
    Keys,
    LoopStats,
    Pedals,
    Steering,
    lockstep,
    steer_for_curvature,
)

if TYPE_CHECKING:
    import numpy as np

    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

CRUISE_KMH = 30.0
TURN_KMH = 15.0
#: comfortable deceleration of the stopping profiles (m/s^2)
STOP_DECEL_MS2 = 2.0
#: where the car's centre stops before its light's head: the head (right of the stop line)
#: leaves the view's top edge nearer than ~7 m, and the light must stay in sight
STOP_BEFORE_HEAD_M = 9.0
#: gap kept to a vehicle ahead (its rear to the eye)
FOLLOW_GAP_M = 7.0
#: past the route's last point before stopping (the route counts as done once passed)
END_OVERSHOOT_M = 1.5
#: pure pursuit's look-ahead: LOOK_S seconds of travel, within LOOK_MIN_M..LOOK_MAX_M
LOOK_S = 1.3
LOOK_MIN_M = 8.0
LOOK_MAX_M = 14.0
#: a lamp belongs to the car's light when its pole stands this far right of the route
OWN_LIGHT_RIGHT_M = (0.3, 5.5)


def stop_speed_kmh(dist_m: float) -> float:
    """The speed from which the car stops in `dist_m` at STOP_DECEL_MS2 (0 when already there)."""
    return 3.6 * math.sqrt(2.0 * STOP_DECEL_MS2 * max(0.0, dist_m))


@dataclass
class LightMemory:
    """The car's own light as last seen (a lamp may be hidden for a look or two)."""

    colour: str = "none"
    fwd_m: float = math.inf
    t_seen: float = -1e9


class RouteDriver(Agent):
    name = "reference"

    def __init__(self, obey_lights: bool = True, cruise_kmh: float = CRUISE_KMH) -> None:
        self.obey_lights = obey_lights
        self.cruise_kmh = cruise_kmh
        self.trace: list[tuple[object, ...]] = []
        self.red_stops = 0

    @staticmethod
    def own_lamp(lamps: list[Lamp], route: RouteView) -> Lamp | None:
        """The nearest lamp whose pole stands just right of the route at its distance."""
        lo, hi = OWN_LIGHT_RIGHT_M
        for lp in lamps:
            if not math.isfinite(lp.fwd_m) or not 3.0 < lp.fwd_m < 70.0:
                continue
            rp = route.ahead(math.hypot(lp.fwd_m, lp.right_m), max_bearing_deg=60.0)
            base = rp.right_m if rp is not None else 0.0
            if lo < lp.right_m - base < hi:
                return lp
        return None

    def limit_kmh(self, img: "np.ndarray", speed_kmh: float, t: float) -> float:
        """A further speed limit from this look (a subclass's; none here)."""
        return math.inf

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        keys = Keys(port)
        steering, pedals, stats = Steering(keys), Pedals(keys), LoopStats()
        light = LightMemory()
        speed, t_prev = 0.0, None
        paused_between = lockstep(port)
        last_reach, travelled_since_reach = 40.0, 0.0
        arrived = False
        try:
            while True:
                t = port.elapsed()
                if t >= deadline_s - 0.5:
                    break
                sent = keys.sent
                stats.start()
                img = port.screenshot("png").to_array()
                v = read_speed_kmh(img)
                route = RouteView.of(img)
                lamps = read_lamps(img) if self.obey_lights else []
                obstacle = obstacle_distance_m(img)
                stats.stop()
                if v is not None:
                    speed = v
                dt = 0.0 if t_prev is None else max(0.0, t - t_prev)
                t_prev = t
                v_ms = speed / 3.6

                # -- steering: pure pursuit of the route
                look_m = max(LOOK_MIN_M, min(LOOK_MAX_M, LOOK_S * v_ms))
                aim = route.ahead(look_m)
                r = look_m
                while aim is None and r < 40.0:  # off the route: aim at where it is, further out
                    r += 2.0
                    aim = route.ahead(r)
                want = 0.0
                if aim is not None:
                    d2 = aim.fwd_m**2 + aim.right_m**2
                    want = steer_for_curvature(2.0 * aim.right_m / max(d2, 1.0))
                    if aim.fwd_m < 0.0:  # the route is behind the car's side: full lock towards it
                        want = 0.7 if aim.right_m > 0 else -0.7

                # -- speed: cruise, slower in turns, stopping profiles
                target = self.cruise_kmh
                far = route.ahead(15.0)
                if far is not None and abs(far.bearing_deg) > 20.0:
                    target = TURN_KMH
                reach = route.reach_m()
                if reach > 0.0:
                    last_reach, travelled_since_reach = reach, 0.0
                else:
                    travelled_since_reach += v_ms * dt
                if last_reach < 39.0:
                    left = last_reach + END_OVERSHOOT_M - travelled_since_reach
                    target = min(target, max(6.0, stop_speed_kmh(left)))
                    if left <= 0.0 or (reach == 0.0 and last_reach <= 6.0 and travelled_since_reach > last_reach):
                        arrived = True
                if self.obey_lights:
                    own = self.own_lamp(lamps, route)
                    if own is not None:
                        light = LightMemory(own.colour, own.fwd_m, t)
                    elif light.colour != "none":
                        light.fwd_m -= v_ms * dt  # out of sight for a moment: dead-reckon
                        if t - light.t_seen > 3.0:
                            light = LightMemory()
                    stop_m = light.fwd_m - STOP_BEFORE_HEAD_M
                    if light.colour == "red" or (light.colour == "yellow" and stop_speed_kmh(stop_m) > speed - 3.0):
                        if light.fwd_m > 1.5:  # the line (level with the head) is still ahead
                            target = min(target, stop_speed_kmh(stop_m) if stop_m > 0.5 else 0.0)
                if obstacle is not None:
                    target = min(target, stop_speed_kmh(obstacle - FOLLOW_GAP_M))
                target = min(target, self.limit_kmh(img, speed, t))
                if arrived:
                    target = 0.0
                if target < 1.0:
                    want = 0.0 if speed < 1.0 else want
                steering.update(want, t)
                pedals.update(speed, target, t)
                if paused_between and keys.sent == sent:
                    port.wait(IDLE_WAIT_S)
                if os.environ.get("SIMBRIDGE_REFERENCE_TRACE"):
                    self.trace.append(
                        (
                            round(t, 2),
                            speed,
                            round(target, 1),
                            round(want, 3),
                            reach,
                            light.colour,
                            round(light.fwd_m, 1) if math.isfinite(light.fwd_m) else None,
                            obstacle,
                        )
                    )
                if arrived and speed < 0.5:
                    break
        finally:
            keys.release_all()
            p50, p95 = stats.p50_p95_ms()
            path = os.environ.get("SIMBRIDGE_REFERENCE_TRACE")
            if path:
                with open(path, "w") as fh:
                    json.dump({"trace": self.trace, "latency_ms": [p50, p95]}, fh)
        if not arrived:
            port.give_up(f"did not reach the route's end by {t:.0f} s")
            return "give_up"
        port.done(f"at the route's end; look p50 {p50:.0f} ms, p95 {p95:.0f} ms")
        return "done"


def red_light_runner(task_id: str) -> Agent:
    """`--agent py:simbridge.adapters.drive.pilots._route:red_light_runner`: the route driver
    with `obey_lights=False` (tests that a run through a red light loses that item)."""
    return RouteDriver(obey_lights=False)
