"""Small controllers the flying pilots share: a PID with output limits and anti-windup, a
heading-difference helper, and the flight-state estimate built from successive readings of
the instruments (bank and pitch cross-checked with the out-the-window horizon, rates from
differences; time from the agent port's `elapsed`, the pilot's watch)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from simbridge.adapters.jsbsim.pilots._instruments import Readout, view_horizon

if TYPE_CHECKING:
    from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit


def angle_diff(a: float, b: float) -> float:
    """a - b wrapped to -180..180 degrees."""
    return (a - b + 180.0) % 360.0 - 180.0


@dataclass
class PID:
    kp: float
    ki: float = 0.0
    kd: float = 0.0
    lo: float = -1.0
    hi: float = 1.0
    i: float = 0.0
    _prev: float | None = None

    def step(self, err: float, dt: float, rate: float | None = None) -> float:
        """Output for error `err`; `rate` (d err/dt measured elsewhere) replaces the difference."""
        d = rate if rate is not None else ((err - self._prev) / dt if self._prev is not None and dt > 0 else 0.0)
        self._prev = err
        out = self.kp * err + self.i + self.kd * d
        if self.lo < out < self.hi or (out >= self.hi and err < 0) or (out <= self.lo and err > 0):
            self.i += self.ki * err * dt  # integrate only while not pushing further into a limit
        return max(self.lo, min(self.hi, self.kp * err + self.i + self.kd * d))


@dataclass
class State:
    """The pilot's picture of the flight, updated from each reading."""

    t: float = 0.0
    bank: float = 0.0
    pitch: float = 0.0
    ias: float = 0.0
    alt: float = 0.0
    vs: float = 0.0
    hdg: float = 0.0
    rpm: float = 0.0
    thr: float = 0.0
    roll_rate: float = 0.0
    pitch_rate: float = 0.0
    yaw_rate: float = 0.0
    valid: bool = False
    trace: list = field(default_factory=list)

    def update(self, t: float, r: Readout, img) -> bool:
        """Take a reading at task time `t`; False when an instrument was unreadable (keep the old state)."""
        core = r.core()
        if core is None:
            return False
        ias, alt, hdg, vs, bank, pitch, rpm = (float(v) for v in core)
        h = view_horizon(img) if img is not None else None
        if h is not None and abs(h[0] - bank) < 1.5 and abs(h[1] - pitch) < 1.5:
            bank, pitch = h  # the window's long horizon, where it agrees with the attitude indicator
        dt = t - self.t
        if self.valid and dt > 1e-3:
            self.roll_rate = 0.5 * self.roll_rate + 0.5 * (bank - self.bank) / dt
            self.pitch_rate = 0.5 * self.pitch_rate + 0.5 * (pitch - self.pitch) / dt
            self.yaw_rate = 0.8 * self.yaw_rate + 0.2 * angle_diff(hdg, self.hdg) / dt
        self.t, self.bank, self.pitch = t, bank, pitch
        self.ias, self.alt, self.vs, self.hdg, self.rpm = ias, alt, vs, hdg, rpm
        if r.thr is not None:
            self.thr = float(r.thr) / 100.0
        self.valid = True
        if os.environ.get("SIMBRIDGE_REFERENCE_TRACE"):
            self.trace.append(
                (
                    round(t, 2),
                    round(bank, 2),
                    round(pitch, 2),
                    self.ias,
                    self.alt,
                    self.vs,
                    self.hdg,
                    r.bank,
                    None if h is None else [round(h[0], 2), round(h[1], 2)],
                )
            )
        return True

    def dump_trace(self, extra: dict | None = None) -> None:
        path = os.environ.get("SIMBRIDGE_REFERENCE_TRACE")
        if path:
            with open(path, "w") as fh:
                json.dump({"trace": self.trace, **(extra or {})}, fh)


class AttitudeFlyer:
    """Bank by aileron, altitude by elevator (vertical-speed PI with a load-factor feed-forward),
    airspeed by throttle taps. Shared by the maneuver pilots."""

    def __init__(self, cp: Cockpit, st: State) -> None:
        self.cp, self.st = cp, st
        self.bank_pid = PID(kp=0.012, ki=0.002, kd=0.003, lo=-0.35, hi=0.35)
        self.vs_pid = PID(kp=0.0001, ki=0.00005, lo=-0.5, hi=0.7)
        self.last_thr_t = -10.0
        self.pull_ff_per_g = 0.22
        #: airspeed by a throttle setpoint (PI around `thr_base`, read back from the throttle lever)
        #: instead of fixed-size taps; None keeps the taps
        self.thr_pid: PID | None = None
        self.thr_base = 0.7

    def step(self, bank_target: float, alt_target: float, ias_target: float | None, dt: float) -> None:
        st = self.st
        ail = self.bank_pid.step(bank_target - st.bank, dt, rate=-st.roll_rate)
        vs_cmd = max(-600.0, min(600.0, 3.0 * (alt_target - st.alt)))
        ff = self.pull_ff_per_g * (1.0 / max(0.5, math.cos(math.radians(st.bank))) - 1.0)
        pull = self.vs_pid.step(vs_cmd - st.vs, dt) + ff
        self.cp.fly(ail, pull)
        if ias_target is not None and self.thr_pid is not None:
            self.throttle_for(ias_target)
        elif ias_target is not None and st.t - self.last_thr_t > 1.0:
            err = ias_target - st.ias
            if abs(err) > 2.0:
                taps = min(5, int(abs(err) / 2))
                self.cp.port.key("Prior" if err > 0 else "Next", repeat=taps, hold_s=0.03)
                self.last_thr_t = st.t

    def throttle_for(self, ias_target: float) -> None:
        """The airspeed by the throttle setpoint `thr_base` + `thr_pid` (once a second, in 1 % taps
        from the lever's reading); a pilot flying its own elevator law calls it alone."""
        st = self.st
        if self.thr_pid is None or st.t - self.last_thr_t < 1.0:
            return
        want = self.thr_base + self.thr_pid.step(ias_target - st.ias, st.t - self.last_thr_t)
        taps = round((want - st.thr) / 0.01)
        if taps:
            self.cp.port.key("Prior" if taps > 0 else "Next", repeat=min(abs(taps), 8), hold_s=0.03)
        self.last_thr_t = st.t
