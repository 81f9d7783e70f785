"""T07: parallel park between the two parked cars, in the bay painted on the road.

What it reads, each look: the car's location and compass heading from the HUD (`LocationReader`,
`read_heading_deg`; CARLA manual_control's info panel prints both), the speed from the HUD, and
the bay's outline (the ROAD_MARK paint, `road_mark_points`) through the published camera model,
placed on the ground by the pose of the same look. The bay is kept in the frame of the road (the
heading the car starts with, which is the road's): its left edge, its two ends and, once seen past
the rear parked car, its right edge (the kerb side).

How it parks (a reverse parallel park, as taught): drive forward on a line PASS_LEFT_M left of
the bay's left edge, past the bay, and stop level with the front parked car (START_AHEAD_M
ahead of the bay's centre); shift into reverse (Q) and back along an S-curve (half a cosine,
PARK_LENGTH_M long, lateral step from the passing line to the bay's centre line, its tightest
radius ~7 m: the keyboard's steer reaches 0.7, a 6.3 m radius) that ends END_BEHIND_M behind the
bay's centre, clear of the rear car; shift back (Q) and creep forward on the bay's centre line
to its centre; stop and hold the brake. The S-curve's length and end were chosen so that the
car's footprint, 0.25 m larger all round, touches neither parked car along it.

Steering follows the reference path from the HUD pose: feed-forward of the path's heading change
plus feedback on the heading and lateral errors, signed for the direction of travel; the wanted
wheel angle goes to the A/D keys through `Steering`. Speed by W/S round a slow target that ramps
down to each stop.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from simbridge.adapters.drive import layout as L
from simbridge.adapters.drive.pilots._eyes import (
    location_reader,
    read_heading_deg,
    read_speed_kmh,
    road_mark_points,
)
from simbridge.adapters.drive.pilots._hands import (
    IDLE_WAIT_S,
    WHEEL_LOCK_RAD,
    WHEELBASE_M,
    Keys,
    LoopStats,
    Pedals,
    Steering,
    lockstep,
)
from simbridge.agents import Agent, AgentResult

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

#: the passing line, this far left of the bay's left edge (the car is 1.86 m wide: its right
#: side passes ~0.45 m from the parked cars, which stand in the bay's lane)
PASS_LEFT_M = 0.5
#: where the reverse starts, ahead of the bay's centre (level with the front parked car)
START_AHEAD_M = 6.75
#: the reverse S-curve's length along the road and where it ends behind the bay's centre
PARK_LENGTH_M = 8.5
END_BEHIND_M = 1.75
APPROACH_KMH = 12.0
PASS_KMH = 8.0
REVERSE_KMH = 2.0
CREEP_KMH = 2.5
#: the reverse in three legs: wheel right until the car points SWING_DEG into the bay, straight
#: back, then the arc (at most the keyboard's lock) that ends straight on the bay's centre line,
#: begun when that arc's radius has come down to COUNTER_RADIUS_M; never further back than
#: BACK_LIMIT_M behind the bay's centre (the rear car's bumper is ~4.85 m behind it)
SWING_DEG = 28.0
#: the rear axle behind the centre of mass (the published MKZ: 59 % of the 2.85 m wheelbase)
REAR_AXLE_M = 0.59 * WHEELBASE_M
COUNTER_RADIUS_M = 8.0
BACK_LIMIT_M = 2.1
#: the steer is wound on at rest before each leg (the key ramps 0.5 a second), and the
#: reverse's feed-forward reads the path this far further along for the same lag (m)
PRESTEER_S = 1.5
STEER_LEAD_M = 0.8
#: not straight or not centred at the bay's centre: back up this far on its centre line and
#: come forward again, at most MAX_SHUFFLES times
SHUFFLE_M = 1.5
MAX_SHUFFLES = 4
#: deceleration of the stopping profile (m/s^2)
STOP_DECEL_MS2 = 0.8
#: heading feedback: the heading error is taken out over this distance of travel (m)
HEADING_GAIN_PER_M = 0.9
#: lateral feedback: heading correction per metre of lateral error (rad/m), and its cap
LATERAL_GAIN = 0.35
LATERAL_CAP_RAD = 0.3
#: the bay's outline is read this far ahead at most (m), and no more once the car is this close
#: to its near end (m)
MARK_FAR_M = 25.0
FREEZE_BEFORE_M = 3.0
#: the outline strip's width (the published marking width): percentiles find its outer side
MARK_W_M = L.MARKING_WIDTH_M
#: the steer key's limit (manual_control caps the steer at 0.7)
STEER_LIMIT = 0.7


@dataclass
class Bay:
    """The bay's outline points seen so far, in the road frame of the start (u ahead, v right)."""

    us: list[float] = field(default_factory=list)
    vs: list[float] = field(default_factory=list)

    def add(self, u: np.ndarray, v: np.ndarray) -> None:
        self.us.extend(u.tolist())
        self.vs.extend(v.tolist())
        if len(self.us) > 60000:
            self.us, self.vs = self.us[-40000:], self.vs[-40000:]

    @property
    def seen(self) -> bool:
        return len(self.us) >= 50

    def ends(self) -> tuple[float, float]:
        u = np.asarray(self.us)
        return float(np.percentile(u, 0.5)), float(np.percentile(u, 99.5))

    def left_v(self) -> float:
        return float(np.percentile(np.asarray(self.vs), 0.5))

    def right_v(self) -> float | None:
        """The right edge, once a line of points stands well right of the left edge."""
        v = np.asarray(self.vs)
        lo = self.left_v()
        far = v[v > lo + 2.0]
        if len(far) < 30:
            return None
        return float(np.percentile(far, 99.5))

    def centre(self) -> tuple[float, float] | None:
        r = self.right_v()
        if r is None:
            return None
        a, b = self.ends()
        return 0.5 * (a + b), 0.5 * (self.left_v() + r)


def s_curve(u: float, u_start: float, u_end: float, v_start: float, v_end: float) -> tuple[float, float, float]:
    """(v, dv/du, d2v/du2) of the half-cosine from (u_start, v_start) to (u_end, v_end)."""
    length = u_start - u_end
    s = min(1.0, max(0.0, (u_start - u) / length))
    a = v_end - v_start
    v = v_start + a * (1.0 - math.cos(math.pi * s)) / 2.0
    if s <= 0.0 or s >= 1.0:
        return v, 0.0, 0.0
    k = math.pi / length
    # s decreases as u grows: ds/du = -1/length
    dv = -a * k / 2.0 * math.sin(math.pi * s)
    d2v = a * k * k / 2.0 * math.cos(math.pi * s)
    return v, dv, d2v


def steer_to_path(psi: float, e: float, psi_ref: float, dpsi_du: float, direction: int) -> float:
    """Wanted steer (-0.7..0.7, + right) to follow a path: heading `psi_ref` and its change per
    metre along u `dpsi_du` at the car's u; `e` the car's lateral error (+ right of the path);
    `direction` +1 forward, -1 reverse."""
    psi_cmd = psi_ref - direction * max(-LATERAL_CAP_RAD, min(LATERAL_CAP_RAD, LATERAL_GAIN * e))
    err = (psi_cmd - psi + math.pi) % (2.0 * math.pi) - math.pi
    tan_delta = WHEELBASE_M * dpsi_du * math.cos(psi) + direction * WHEELBASE_M * HEADING_GAIN_PER_M * err
    want = math.atan(tan_delta) / WHEEL_LOCK_RAD
    return max(-STEER_LIMIT, min(STEER_LIMIT, want))


def stop_speed_kmh(dist_m: float) -> float:
    return 3.6 * math.sqrt(2.0 * STOP_DECEL_MS2 * max(0.0, dist_m))


class ParkingDriver(Agent):
    name = "reference"

    def __init__(self) -> None:
        self.trace: list[tuple[object, ...]] = []

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        keys = Keys(port)
        steering, pedals, stats = Steering(keys), Pedals(keys), LoopStats()
        paused_between = lockstep(port)
        loc = location_reader()
        loc.last = None
        bay = Bay()
        phase = "look"
        road_yaw: float | None = None
        speed = 0.0
        t = 0.0
        reason = ""
        centre: tuple[float, float] | None = None
        reverse_until = 0.0
        frozen = False
        shuffles = 0
        leg = "swing"
        u_near = u_far = 0.0
        try:
            while True:
                t = port.elapsed()
                if t >= deadline_s - 0.5:
                    reason = f"not parked by {t:.0f} s (phase {phase})"
                    break
                sent = keys.sent
                stats.start()
                img = port.screenshot("png").to_array()
                v_read = read_speed_kmh(img)
                hdg = read_heading_deg(img)
                xy = loc.read(img)
                far = MARK_FAR_M if bay.seen else 2.0 * MARK_FAR_M
                pts = road_mark_points(img, far_m=far) if not frozen else np.zeros((0, 2))
                stats.stop()
                if v_read is not None:
                    speed = v_read
                if xy is None or hdg is None:
                    # no pose this look: coast to a stop and look again
                    steering.update(0.0, t)
                    pedals.update(speed, 0.0, t)
                    if paused_between and keys.sent == sent:
                        port.wait(IDLE_WAIT_S)
                    continue
                yaw = math.radians(hdg - 90.0)  # compass -> CARLA yaw
                if road_yaw is None:
                    road_yaw = yaw
                # the pose in the road frame (u ahead along the road, v to its right)
                cr, sr = math.cos(road_yaw), math.sin(road_yaw)
                pu, pv = xy[0] * cr + xy[1] * sr, -xy[0] * sr + xy[1] * cr
                psi = (yaw - road_yaw + math.pi) % (2.0 * math.pi) - math.pi
                if len(pts):
                    fwd, right = pts[:, 0], pts[:, 1]
                    gx = xy[0] + math.cos(yaw) * fwd - math.sin(yaw) * right
                    gy = xy[1] + math.sin(yaw) * fwd + math.cos(yaw) * right
                    bay.add(gx * cr + gy * sr, -gx * sr + gy * cr)
                want_steer, target = 0.0, 0.0
                if phase == "look":
                    if bay.seen:
                        phase = "approach"
                if phase in ("approach", "pass"):
                    if not frozen:
                        u_near, u_far = bay.ends()
                        c = bay.centre()
                        if c is not None:
                            centre = c
                            # near the bay the estimate is final: further looks see it edge-on
                            frozen = pu > u_near - FREEZE_BEFORE_M
                    line_v = bay.left_v() + 0.5 * MARK_W_M - PASS_LEFT_M
                    cu = centre[0] if centre is not None else 0.5 * (u_near + u_far)
                    stop_u = cu + START_AHEAD_M
                    want_steer = steer_to_path(psi, pv - line_v, 0.0, 0.0, 1)
                    left = stop_u - pu
                    target = min(APPROACH_KMH if pu < u_near - 12.0 else PASS_KMH, max(1.5, stop_speed_kmh(left)))
                    phase = "pass" if pu > u_near - 12.0 else "approach"
                    if left <= 0.05:
                        target = 0.0
                        if speed < 0.5:
                            if centre is None:
                                reason = "the bay's right edge was never seen"
                                break
                            keys.tap("q", 0.05)
                            phase, reverse_until = "reverse", t + PRESTEER_S
                if phase == "reverse" and centre is not None:
                    cu, cv = centre
                    # the rear axle's centre moves along the car's heading (the HUD's location is
                    # the centre of mass, which sideslips on a turned wheel): its way to the line
                    gap = cv - (pv - REAR_AXLE_M * math.sin(psi))
                    turn = 1.0 - math.cos(psi)
                    r_req = gap / turn if turn > 1e-4 and gap > 0 else math.inf
                    if leg == "swing" and (psi <= -math.radians(SWING_DEG) or r_req <= COUNTER_RADIUS_M):
                        leg = "straight"
                    if leg == "straight" and r_req <= COUNTER_RADIUS_M:
                        # stop and wind the wheel on at rest: the key's ramp would cost ~0.8 m
                        leg, reverse_until = "counter", t + PRESTEER_S
                    if leg == "swing":
                        want_steer = STEER_LIMIT  # backing with the wheel right: the tail swings in
                    elif leg == "straight":
                        want_steer = 0.0
                    else:
                        # the arc from here that ends on the centre line just as the car is straight
                        want_steer = (
                            -STEER_LIMIT
                            if gap <= 0
                            else -min(STEER_LIMIT, math.atan(WHEELBASE_M / max(r_req, 1.0)) / WHEEL_LOCK_RAD)
                        )
                    done_back = (leg == "counter" and psi >= -math.radians(1.0)) or pu <= cu - BACK_LIMIT_M
                    target = 0.0 if t < reverse_until or done_back else REVERSE_KMH
                    if done_back:
                        want_steer = 0.0
                        if speed < 0.5:
                            keys.tap("q", 0.05)
                            phase, reverse_until = "forward", t + PRESTEER_S
                elif phase in ("forward", "back") and centre is not None:
                    cu, cv = centre
                    direction = 1 if phase == "forward" else -1
                    want_steer = steer_to_path(psi, pv - cv, 0.0, 0.0, direction)
                    goal = cu if phase == "forward" else cu - SHUFFLE_M
                    left = direction * (goal - pu)
                    target = min(CREEP_KMH, max(1.0, stop_speed_kmh(left)))
                    if t < reverse_until:
                        target = 0.0
                    if left <= 0.03:
                        target = 0.0
                        if speed < 0.5:
                            straight = abs(math.degrees(psi)) <= 2.0 and abs(pv - cv) <= 0.15
                            if phase == "forward" and (straight or shuffles >= MAX_SHUFFLES):
                                phase = "parked"
                            else:
                                shuffles += phase == "forward"
                                keys.tap("q", 0.05)
                                phase = "back" if phase == "forward" else "forward"
                                reverse_until = t + PRESTEER_S
                if phase == "parked":
                    target, want_steer = 0.0, 0.0
                steering.update(want_steer, t)
                pedals.update(speed, target, t, brake_margin_kmh=1.0)
                if os.environ.get("SIMBRIDGE_REFERENCE_TRACE"):
                    self.trace.append(
                        (round(t, 2), phase, xy, hdg, speed, round(target, 1), round(want_steer, 3), centre)
                    )
                if phase == "parked":
                    port.wait(0.5)
                    break
                if paused_between and keys.sent == sent:
                    port.wait(IDLE_WAIT_S)
        finally:
            keys.release_all()
            p50, p95 = stats.p50_p95_ms()
            path = os.environ.get("SIMBRIDGE_REFERENCE_TRACE")
            if path:
                with open(path, "w") as fh:
                    json.dump({"trace": self.trace, "latency_ms": [p50, p95]}, fh)
        if phase != "parked":
            port.give_up(reason or f"not parked (phase {phase})")
            return "give_up"
        port.done(f"parked; look p50 {p50:.0f} ms, p95 {p95:.0f} ms")
        return "done"
