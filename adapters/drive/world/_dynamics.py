"""The ego car's dynamics: CommonRoad's single-track model (`vehicle_dynamics_st`) with the
Lincoln MKZ 2017's dimensions, driven by CARLA manual-control style pedals and steering.

Why this model: it is published and tested (Althoff & Würsching, "CommonRoad: Vehicle Models",
2020; PyPI `commonroad-vehicle-models`), models tyre slip above walking pace and falls back to
the kinematic model at low speed as the package does (here below 1.5 m/s, see below).

Parameters (`mkz_parameters`): the CommonRoad BMW 320i set (vehicle 2, the nearest mid-size
sedan) for tyres (`tire.p_ky1`, `p_dy1`), centre-of-gravity height and steering limits, with the
MKZ's own values where they are published (Lincoln 2017 MKZ specifications):
wheelbase 2.85 m, length 4.93 m, width 1.86 m, curb mass 1,700 kg (2.0T FWD ~1,680 kg), front
axle load ~59 % (a = 0.41 L from the CoG). Yaw inertia is the BMW's scaled by mass x length^2.
Road-wheel lock 35 deg (steering ratio ~15:1, 2.7 turns lock to lock). Powertrain: 2.0 L
turbo, 183 kW (245 hp); traction-limited 4.0 m/s^2 at low speed; drag Cd 0.28 x 2.3 m^2;
rolling resistance 0.012; brakes up to 8 m/s^2 (CARLA's MKZ stops from 100 km/h in ~40 m).
Below 1.5 m/s, and in reverse at any speed, the kinematic single-track model is integrated
instead (`KINEMATIC_BELOW_MS`): the dynamic model's tyre-slip equations are written for forward
travel, and backing faster than 1.5 m/s with the wheels turned spun the car (a yaw jump of 80 deg
in 0.2 s while parking at 6 km/h); reversing is slow (REVERSE_SPEED_MAX_MS), where slip is
negligible.

The state is integrated in CARLA's world frame (x, y with y to the right, yaw clockwise seen
from above, degrees in the API): the model's equations do not depend on handedness, so a
positive steering angle increases yaw, i.e. turns right in CARLA, as CARLA's steer > 0 does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from simbridge.adapters.drive.world._scene import EgoControls

G_MS2 = 9.81
WHEELBASE_M = 2.85
LENGTH_M = 4.93
WIDTH_M = 1.86
MASS_KG = 1700.0
MAX_WHEEL_ANGLE_RAD = math.radians(35.0)
#: steering-rate limit of the front wheels (faster than the BMW set's 0.4 rad/s so that a
#: keyboard driver can park; a power-steering rack turns lock to lock in ~1 s)
STEER_RATE_MAX_RADS = 1.2
#: proportional gain of the steering servo (the wheel follows steer x lock within ~0.1 s)
STEER_GAIN_PER_S = 12.0
POWER_W = 183_000.0
TRACTION_ACCEL_MS2 = 4.0
DRAG_CD_A_M2 = 0.28 * 2.3
AIR_DENSITY_KGM3 = 1.2
ROLLING_RESISTANCE = 0.012
BRAKE_DECEL_MS2 = 8.0
HAND_BRAKE_DECEL_MS2 = 5.0
#: engine braking when no pedal is pressed
COAST_DECEL_MS2 = 0.3
REVERSE_SPEED_MAX_MS = 20.0 / 3.6
TOP_SPEED_MS = 210.0 / 3.6
#: below this speed the kinematic single-track model is used: the dynamic model's slip and yaw
#: equations stiffen as 1/v (the package switches at 0.1 m/s, where a 50 ms frame would need
#: hundreds of substeps); at walking pace tyre slip is negligible, so both models agree
KINEMATIC_BELOW_MS = 1.5
#: yaw/slip eigenvalue x speed of the MKZ's single-track model (~250 m/s^2): substeps keep
#: RK4's step h below ~1/eigenvalue
STIFFNESS_MS_PER_S = 250.0


def mkz_parameters() -> Any:
    """CommonRoad parameter set 2 (BMW 320i) with the MKZ's published dimensions and mass."""
    from vehiclemodels.parameters_vehicle2 import parameters_vehicle2

    p = parameters_vehicle2()
    l_bmw, m_bmw = p.a + p.b, p.m
    p.l, p.w, p.m = LENGTH_M, WIDTH_M, MASS_KG
    p.a, p.b = 0.41 * WHEELBASE_M, 0.59 * WHEELBASE_M
    p.I_z = p.I_z * (MASS_KG / m_bmw) * (WHEELBASE_M / l_bmw) ** 2
    p.steering.max, p.steering.min = MAX_WHEEL_ANGLE_RAD, -MAX_WHEEL_ANGLE_RAD
    p.steering.v_max, p.steering.v_min = STEER_RATE_MAX_RADS, -STEER_RATE_MAX_RADS
    p.longitudinal.v_max, p.longitudinal.v_min = TOP_SPEED_MS, -REVERSE_SPEED_MAX_MS
    p.longitudinal.a_max = 11.5  # the package's own bound; the powertrain map limits below it
    return p


@dataclass
class EgoState:
    """The single-track state (CommonRoad order) in CARLA's frame, SI units."""

    x_m: float
    y_m: float
    delta_rad: float = 0.0
    v_ms: float = 0.0
    yaw_rad: float = 0.0
    yaw_rate_rads: float = 0.0
    beta_rad: float = 0.0

    def vector(self) -> list[float]:
        return [self.x_m, self.y_m, self.delta_rad, self.v_ms, self.yaw_rad, self.yaw_rate_rads, self.beta_rad]

    @property
    def yaw_deg(self) -> float:
        return (math.degrees(self.yaw_rad) + 180.0) % 360.0 - 180.0

    @property
    def speed_kmh(self) -> float:
        return abs(self.v_ms) * 3.6


def longitudinal_accel_ms2(c: EgoControls, v_ms: float) -> float:
    """Pedals -> acceleration along the body axis (m/s^2), CARLA manual-control semantics:
    throttle drives forward, or backward with `reverse`; brake and hand brake only slow the car
    towards standstill, never reverse it."""
    speed = abs(v_ms)
    resist = (0.5 * AIR_DENSITY_KGM3 * DRAG_CD_A_M2 * speed * speed) / MASS_KG + ROLLING_RESISTANCE * G_MS2
    drive = 0.0
    if c.throttle > 0.0:
        traction = min(TRACTION_ACCEL_MS2, POWER_W / (MASS_KG * max(speed, 0.1)))
        drive = c.throttle * traction * (-1.0 if c.reverse else 1.0)
    decel = c.brake * BRAKE_DECEL_MS2 + (HAND_BRAKE_DECEL_MS2 if c.hand_brake else 0.0)
    if c.throttle <= 0.0 and c.brake <= 0.0:
        decel += COAST_DECEL_MS2
    if speed < 1e-3:
        if abs(drive) <= decel + resist:
            return 0.0
        return drive - math.copysign(decel + resist, drive)
    return drive - math.copysign(decel + resist, v_ms)


class EgoCar:
    """Steps the MKZ at a fixed frame rate with `substeps` (or more at low speed) RK4 steps."""

    def __init__(self, x_m: float, y_m: float, yaw_deg: float, *, substeps: int = 4) -> None:
        self.p = mkz_parameters()
        self.state = EgoState(x_m, y_m, yaw_rad=math.radians(yaw_deg))
        self.substeps = substeps
        self.controls = EgoControls()

    def _rhs(self, x: list[float], u: list[float]) -> list[float]:
        from vehiclemodels.utils.vehicle_dynamics_ks_cog import vehicle_dynamics_ks_cog
        from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st

        if x[3] < KINEMATIC_BELOW_MS:
            # the package's kinematic single-track model (reference point: centre of mass); slip
            # angle and yaw rate follow from it algebraically (set after each substep)
            return [*vehicle_dynamics_ks_cog(x[:5], u, self.p), 0.0, 0.0]
        return list(vehicle_dynamics_st(x, u, self.p))

    def step(self, c: EgoControls, dt_s: float) -> EgoState:
        """Advance by `dt_s` under controls `c`; returns the new state."""
        self.controls = c
        s = self.state
        x = s.vector()
        # the single-track yaw/slip dynamics stiffen as 1/v: more substeps at walking pace
        n = self.substeps
        if x[3] >= KINEMATIC_BELOW_MS:
            n = max(n, min(64, math.ceil(dt_s * STIFFNESS_MS_PER_S / abs(x[3]))))
        h = dt_s / n
        for _ in range(n):
            target = max(-1.0, min(1.0, c.steer)) * MAX_WHEEL_ANGLE_RAD
            steer_rate = STEER_GAIN_PER_S * (target - x[2])
            accel = longitudinal_accel_ms2(c, x[3])
            u = [steer_rate, accel]
            v0 = x[3]
            k1 = self._rhs(x, u)
            k2 = self._rhs([xi + 0.5 * h * ki for xi, ki in zip(x, k1)], u)
            k3 = self._rhs([xi + 0.5 * h * ki for xi, ki in zip(x, k2)], u)
            k4 = self._rhs([xi + h * ki for xi, ki in zip(x, k3)], u)
            x = [xi + h / 6.0 * (a + 2 * b + 2 * cc + d) for xi, a, b, cc, d in zip(x, k1, k2, k3, k4)]
            # braking or rolling resistance brings the car to rest; it does not reverse it
            driving = c.throttle > 0.0 and ((x[3] > 0) != c.reverse or abs(x[3]) < 1e-6)
            if v0 != 0.0 and (x[3] == 0.0 or (x[3] > 0) != (v0 > 0)) and not driving:
                x[3], x[5], x[6] = 0.0, 0.0, 0.0
            if x[3] < KINEMATIC_BELOW_MS:
                x[6] = math.atan(math.tan(x[2]) * self.p.b / WHEELBASE_M)
                x[5] = x[3] * math.cos(x[6]) * math.tan(x[2]) / WHEELBASE_M
        self.state = EgoState(*x)
        return self.state
